package common

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// The formats of the dashboard's figures.

// FmtCPS formats a CPS with two decimals, rounded down, so the figure agrees with its band and
// with floor(CPS×10): 0.4997 is DEGRADED with floor 4 and shows as 0.49, not 0.50.
func FmtCPS(v float64) string { return fmt.Sprintf("%.2f", math.Floor(v*100+1e-9)/100) }

// FmtAge formats a view's age: 120ms under a second, 3.4s above.
func FmtAge(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return FmtDur(d)
}

// FmtDur formats a virtual time: 42.3s, or 2m05s from 100 s on (FmtSecs).
func FmtDur(d time.Duration) string {
	if d < 100*time.Second {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return FmtSecs(d)
}

// FmtSecs formats a time in whole seconds as the rest of the screen writes it: 42s, or 2m05s
// from 100 s on, as FmtDur and the header's clock do (never "210s" beside a header's 3m30s).
func FmtSecs(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s < 100 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

// FmtClock formats the run's current time to the tenth of a second, 42.3s or 2m05.3s, so a
// step of one 100 ms tick ("." while paused) always changes the header.
func FmtClock(d time.Duration) string {
	if d < 100*time.Second {
		return FmtDur(d)
	}
	tenths := int64(d.Round(100*time.Millisecond) / (100 * time.Millisecond))
	return fmt.Sprintf("%dm%02d.%ds", tenths/600, tenths/10%60, tenths%10)
}

// FmtAmp formats an amplification as the reports and the README write it, the factor then
// "x": 1.02x (to two decimals; one for a peak, FmtPeak).
func FmtAmp(v float64) string { return fmt.Sprintf("%.2fx", v) }

// FmtPeak formats a peak amplification to one decimal: 2.6x.
func FmtPeak(v float64) string { return fmt.Sprintf("%.1fx", v) }

// FmtSpeed formats a speed factor: 0.25, 0.5, 1, 2 ... 64.
func FmtSpeed(s float64) string { return strings.TrimSuffix(fmt.Sprintf("%g", s), ".0") }

// FmtDelay formats a delay compactly, to the millisecond: 500ms, 1.25s, 30s.
func FmtDelay(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Round(time.Millisecond).Milliseconds())
	}
	ms := d.Round(time.Millisecond).Milliseconds()
	frac := strings.TrimRight(fmt.Sprintf("%03d", ms%1000), "0")
	if frac == "" {
		return strconv.FormatInt(ms/1000, 10) + "s"
	}
	return strconv.FormatInt(ms/1000, 10) + "." + frac + "s"
}

// FmtTick formats a tick length in seconds, as short as exact: 0.1s, 1s.
func FmtTick(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s" }

// FmtRate formats a per-second figure compactly: 950, 1.2k, 35k.
func FmtRate(v float64) string {
	switch {
	case v >= 9999.5:
		return strconv.FormatFloat(v/1000, 'f', 0, 64) + "k"
	case v >= 999.5:
		return strconv.FormatFloat(v/1000, 'f', 1, 64) + "k"
	case v < 9.95 && v != math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}
