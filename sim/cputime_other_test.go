//go:build !unix

package sim

import "time"

// cpuTime is unavailable here; benchmarks then report wall-clock throughput only.
func cpuTime() time.Duration { return 0 }
