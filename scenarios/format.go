package scenarios

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engineconf"
	"github.com/cortex-tui/cortex-tui/internal/safetext"
)

// MarshalTOML writes s in the scenario file format, every key explicit (defaults included), so
// that Parse(name, data) gives back s (with its faults sorted by start time). It implements
// toml.Marshaler. It never fails for a Scenario that passes Validate; the error is always nil
// and exists to satisfy the interface.
func (s Scenario) MarshalTOML() ([]byte, error) {
	var b bytes.Buffer
	kv := func(key, value string) { fmt.Fprintf(&b, "%s = %s\n", key, value) }
	kv("name", quote(s.Name))
	kv("summary", quote(s.Summary))
	if s.Story != "" {
		kv("story", multiline(s.Story))
	}
	kv("duration", quote(FormatDuration(s.Duration)))
	kv("drain", quote(FormatDuration(s.Drain)))
	kv("tick", quote(FormatDuration(s.Tick)))
	kv("seed", strconv.FormatInt(s.Seed, 10))
	if s.Strategy != "" {
		kv("strategy", quote(s.Strategy))
	}

	b.WriteString("\n[fleet]\n")
	kv("clients", strconv.Itoa(s.Clients))
	if s.Loop.Closed {
		kv("loop", quote("closed"))
		kv("users", strconv.Itoa(s.Loop.Users))
		kv("think", quote(FormatDuration(s.Loop.Think)))
	} else {
		kv("loop", quote("open"))
	}
	kv("deadline", quote(FormatDuration(s.Deadline)))
	kv("timeout", quote(FormatDuration(s.Timeout)))
	kv("layers", strconv.Itoa(s.Layers))
	if s.Budget != BudgetPerClient { // the default is left out, as before the key existed
		kv("budget", quote(s.Budget.String()))
	}

	for _, c := range s.Classes {
		b.WriteString("\n[[class]]\n")
		kv("name", quote(c.Name))
		kv("priority", strconv.Itoa(c.Priority))
		kv("rate", number(c.Rate))
		for _, l := range c.Load {
			b.WriteString("\n[[class.load]]\n")
			kv("at", quote(FormatDuration(l.At)))
			kv("factor", number(l.Factor))
		}
	}
	for _, l := range s.Load {
		b.WriteString("\n[[load]]\n")
		kv("at", quote(FormatDuration(l.At)))
		kv("factor", number(l.Factor))
	}

	v := s.Service
	b.WriteString("\n[service]\n")
	kv("workers", strconv.Itoa(v.Workers))
	kv("service_time", quote(FormatDuration(v.ServiceTime)))
	kv("sigma", number(v.Sigma))
	kv("queue_limit", strconv.Itoa(v.QueueLimit))
	kv("drop_expired", strconv.FormatBool(v.DropExpired))
	kv("refusal_cost", number(v.RefusalCost))
	kv("crash_factor", number(v.CrashFactor))
	kv("crash_after", quote(FormatDuration(v.CrashAfter)))
	kv("restart_delay", quote(FormatDuration(v.RestartDelay)))
	kv("warm_start", number(v.WarmStart))
	kv("warmup", quote(FormatDuration(v.Warmup)))

	if s.Engine != nil {
		b.WriteString("\n[engine]\n")
		if s.EngineName != "" {
			kv("name", quote(s.EngineName))
		}
		b.WriteString(engineconf.FormatUnder(*s.Engine, "engine"))
	}

	for _, f := range s.Faults {
		b.WriteString("\n[[fault]]\n")
		kv("kind", quote(string(f.Kind)))
		kv("at", quote(FormatDuration(f.At)))
		kv("duration", quote(FormatDuration(f.Duration)))
		writeFaultValue(kv, f)
	}
	s.formatControls(kv, func(h string) { b.WriteString("\n" + h + "\n") })
	for _, n := range s.Notes {
		b.WriteString("\n[[note]]\n")
		kv("at", quote(FormatDuration(n.At)))
		kv("text", quote(n.Text))
		if len(n.Strategies) > 0 {
			kv("strategies", quotedList(n.Strategies))
		}
		if len(n.Except) > 0 {
			kv("except", quotedList(n.Except))
		}
	}
	return b.Bytes(), nil
}

// writeFaultValue writes f's value under its kind's key (nothing for a kind without one).
func writeFaultValue(kv func(key, value string), f Fault) {
	switch spec, _ := f.Kind.Spec(); spec.Unit {
	case UnitNone:
	case UnitSeconds:
		kv(spec.Key, quote(FormatDuration(time.Duration(math.Round(f.Value*float64(time.Second))))))
	default:
		kv(spec.Key, number(f.Value))
	}
}

// quotedList writes names as a TOML array of strings.
func quotedList(names []string) string {
	quoted := make([]string, len(names))
	for i, name := range names {
		quoted[i] = quote(name)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// number formats a float as the shortest TOML number that reads back exactly.
func number(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// quote returns s as a TOML basic string (TOML's escapes differ from Go's: no \x, no \a).
// Every rune a terminal must not receive raw (safetext.Unsafe: controls, C1 controls, bidi
// controls, zero-width and other invisible characters) is written as an escape, so printing
// the file (scenarios NAME --toml) cannot act on the terminal, and it reads back exactly.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r > 0xffff && safetext.Unsafe(r):
			fmt.Fprintf(&b, `\U%08X`, r)
		case safetext.Unsafe(r):
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// multiline returns s as a TOML multi-line basic string when that reads back exactly, is
// easier to read and holds nothing quote would escape for the terminal; otherwise as a quoted
// single-line string.
func multiline(s string) string {
	plain := !strings.Contains(s, `"""`) && !strings.Contains(s, `\`) && !strings.HasSuffix(s, `"`) &&
		!strings.HasPrefix(s, "\n") && !strings.HasPrefix(s, "\r")
	for _, r := range s {
		if r != '\n' && r != '\t' && safetext.Unsafe(r) {
			plain = false
		}
	}
	if !plain {
		return quote(s)
	}
	return `"""` + "\n" + s + `"""`
}
