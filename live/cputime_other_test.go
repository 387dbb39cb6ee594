//go:build !unix

package live

import "time"

// cpuTime is 0 where getrusage is missing: the per-CPU figures are then not reported.
func cpuTime() time.Duration { return 0 }
