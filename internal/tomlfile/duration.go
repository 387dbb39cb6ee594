package tomlfile

import (
	"fmt"
	"time"
)

// FormatDuration formats d as the project's files write it, exactly and short: whole seconds
// as "180s", the rest as time.Duration does ("250ms", "1.5s", "0s"). Both forms parse back
// with time.ParseDuration. The scenario, lesson and engine files all write durations so.
func FormatDuration(d time.Duration) string {
	if d != 0 && d%time.Second == 0 && d < 1000*time.Hour && d > -1000*time.Hour {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}
