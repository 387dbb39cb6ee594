package picker

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// renderStory draws the story block of scn, wrapped and clipped to storyW x storyH.
func (p *Model) renderStory(scn scenarios.Scenario, ok bool) string {
	w, h := p.storyW, p.storyH
	if w <= 0 || h <= 0 {
		return ""
	}
	if !ok {
		return common.Fit(p.st.Muted.Render(common.Wrap("No scenario matches the filter.", w)), w, h)
	}
	if l := p.selectedLesson(); l != nil {
		return p.renderLesson(*l, w, h)
	}
	story := scn.Story
	if story == "" {
		story = scn.Summary
	}
	fleet, faults := pickerFacts(scn)
	faultLines := strings.Split(common.Wrap(faults, w), "\n")
	if len(faultLines) > pickerFactsMaxLines {
		faultLines = faultLines[:pickerFactsMaxLines]
		last := faultLines[pickerFactsMaxLines-1]
		faultLines[pickerFactsMaxLines-1] = ansi.Truncate(last, max(w-1, 0), "") + "…"
	}
	var b strings.Builder
	b.WriteString(p.st.Title.Render(ansi.Truncate(scn.Name, w, "…")))
	b.WriteString("\n")
	b.WriteString(p.st.Muted.Render(common.Wrap(fleet, w)))
	b.WriteString("\n")
	b.WriteString(p.st.Muted.Render(strings.Join(faultLines, "\n")))
	b.WriteString("\n\n")
	b.WriteString(p.st.Text.Render(common.Wrap(story, w)))
	return common.Fit(b.String(), w, h)
}

// pickerFacts is what the story block says under a scenario's name: its length, fleet and
// priority classes, and its fault timeline.
func pickerFacts(scn scenarios.Scenario) (fleet, faults string) {
	fleet = pickerDuration(scn.Duration)
	if scn.Drain > 0 { // the header's total counts the drain too
		fleet += " + " + pickerDuration(scn.Drain) + " drain"
	}
	fleet += " · " + strconv.Itoa(scn.Clients) + " clients"
	if len(scn.Classes) > 0 {
		cs := make([]string, len(scn.Classes))
		for i, c := range scn.Classes {
			cs[i] = c.Name + " p" + strconv.Itoa(c.Priority)
		}
		fleet += " · " + strings.Join(cs, ", ")
	}
	if len(scn.Faults) == 0 {
		return fleet, "no injected fault: the load alone"
	}
	fs := make([]string, len(scn.Faults))
	for i, f := range scn.Faults {
		fs[i] = pickerFault(f)
	}
	return fleet, "faults: " + strings.Join(fs, ", ")
}

// pickerFault writes one fault of the timeline: kind, strength and when, e.g.
// "latency +500ms 0:20-0:50", "errors 30% 1:00-1:30", "outage 1:00-1:30".
func pickerFault(f scenarios.Fault) string {
	s := f.Kind.Label(f.Value)
	if f.Duration <= 0 {
		return s + " from " + pickerClock(f.At)
	}
	return s + " " + pickerClock(f.At) + "-" + pickerClock(f.At+f.Duration)
}

// pickerClock writes a virtual time as m:ss.
func pickerClock(d time.Duration) string {
	d = d.Round(time.Second)
	return fmt.Sprintf("%d:%02d", int64(d/time.Minute), int64(d%time.Minute/time.Second))
}

// pickerDuration writes a scenario's length for people: "3 min", "2 min 30 s", "45 s".
func pickerDuration(d time.Duration) string {
	d = d.Round(time.Second)
	m, s := int64(d/time.Minute), int64(d%time.Minute/time.Second)
	switch {
	case m > 0 && s == 0:
		return fmt.Sprintf("%d min", m)
	case m > 0:
		return fmt.Sprintf("%d min %d s", m, s)
	default:
		return fmt.Sprintf("%d s", s)
	}
}
