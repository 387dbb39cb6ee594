package picker

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/list"

	"github.com/cortex-tui/cortex-tui/lesson"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/tui/common"
)

// AddLessons appends the lessons' section to the list, after the scenarios: one item per
// lesson whose scenario is in the catalog, named "lesson N: title".
func (p *Model) AddLessons(ls []scenarios.Lesson, done map[string]bool) {
	items := p.list.Items()
	for i := range ls {
		scn, err := lesson.Scenario(ls[i])
		if err != nil {
			continue
		}
		l := common.CleanLesson(ls[i])
		items = append(items, list.Item(pickerItem{scn: common.CleanScenario(scn), lesson: &l, n: i + 1, done: done[ls[i].Name]}))
	}
	p.list.SetItems(items)
	p.list.Title = "Scenarios and lessons"
	p.list.SetStatusBarItemName("entry", "entries")
	p.fitList()
	p.refresh(true)
}

// MarkLessonDone marks the lesson called name as completed (✓).
func (p *Model) MarkLessonDone(name string) {
	items := p.list.Items()
	for i, it := range items {
		if pi, ok := it.(pickerItem); ok && pi.lesson != nil && pi.lesson.Name == name {
			pi.done = true
			items[i] = pi
		}
	}
	p.list.SetItems(items)
	p.refresh(true)
}

// SelectLesson clears the filter and highlights the lesson called name, if it is listed (to
// open the picker on the next lesson once one is complete).
func (p *Model) SelectLesson(name string) {
	p.list.ResetFilter()
	for i, it := range p.list.Items() {
		if pi, ok := it.(pickerItem); ok && pi.lesson != nil && pi.lesson.Name == name {
			p.list.Select(i)
		}
	}
	p.fitChrome()
	p.refresh(false)
}

// SelectLessons clears the filter and highlights the first lesson not completed (the first
// lesson when all are), to open the picker on the lessons (cortex-tui learn).
func (p *Model) SelectLessons() {
	p.list.ResetFilter()
	first := -1
	for i, it := range p.list.Items() {
		pi, ok := it.(pickerItem)
		if !ok || pi.lesson == nil {
			continue
		}
		if first < 0 {
			first = i
		}
		if !pi.done {
			first = i
			break
		}
	}
	if first >= 0 {
		p.list.Select(first)
	}
	p.fitChrome()
	p.refresh(false)
}

// selectedLesson returns the highlighted lesson, nil when a scenario (or nothing) is.
func (p *Model) selectedLesson() *scenarios.Lesson {
	it, ok := p.list.SelectedItem().(pickerItem)
	if !ok {
		return nil
	}
	return it.lesson
}

// name is what the list shows as the item's name: the scenario's, or "lesson N: title".
func (i pickerItem) name() string {
	if i.lesson != nil {
		mark := ""
		if i.done {
			mark = " ✓"
		}
		return fmt.Sprintf("lesson %d: %s%s", i.n, i.lesson.Title, mark)
	}
	return i.scn.Name
}

// summary is the item's second line: the scenario's summary, or the lesson's scenario and steps.
func (i pickerItem) summary() string {
	if i.lesson != nil {
		return fmt.Sprintf("%s, %d steps, starts with %s: %s", i.lesson.Scenario, len(i.lesson.Steps), i.lesson.Strategy, i.lesson.Summary)
	}
	return i.scn.Summary
}

// renderLesson draws the story block of a lesson: its title, scenario, summary and steps.
func (p *Model) renderLesson(l scenarios.Lesson, w, h int) string {
	var b strings.Builder
	b.WriteString(p.st.Title.Render(common.FitLine(l.Title, w)))
	b.WriteString("\n")
	b.WriteString(p.st.Muted.Render(common.Wrap(fmt.Sprintf("on %s, starting with %s · %d steps · enter starts it (also: cortex-tui learn %s)", l.Scenario, l.Strategy, len(l.Steps), l.Name), w)))
	b.WriteString("\n\n")
	b.WriteString(p.st.Text.Render(common.Wrap(l.Summary, w)))
	for i, s := range l.Steps {
		b.WriteString("\n\n")
		b.WriteString(p.st.Muted.Render(common.Wrap(fmt.Sprintf("%d. %s", i+1, s.Text), w)))
	}
	return common.Fit(b.String(), w, h)
}

// PickedLessonMsg says the user picked a lesson of the picker's lessons section: its scenario,
// and the lesson to follow over it.
type PickedLessonMsg struct {
	Scenario scenarios.Scenario
	Lesson   scenarios.Lesson
}
