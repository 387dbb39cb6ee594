//go:build !unix

package cputime

import "time"

// Process is unavailable here: it returns 0, and callers report wall-clock figures only.
func Process() time.Duration { return 0 }
