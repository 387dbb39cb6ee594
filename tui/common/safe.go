package common

import (
	"slices"

	"github.com/cortex-tui/cortex-tui/internal/safetext"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/source"
)

// Text from files (a scenario's name, summary, story, class names and notes, and whatever a
// source says in its events) comes from strangers. It is made inert once, where it enters the
// dashboard: the metadata and snapshots of every source (run.syncMeta, run.add), the scenarios
// listed by the picker (newPicker) and the footer's messages, which may quote it
// (footer.SetStatus). Panels then only ever draw clean text: no escape sequence reaches the
// terminal, and the widths lipgloss measures are the widths the terminal draws, so borders
// stay straight. See package safetext for what cleaning does.

// CleanMeta returns meta with its texts made inert; the story keeps its line breaks. The
// classes are copied (nil stays nil), so meta's own slice is left as it was.
func CleanMeta(meta source.Meta) source.Meta {
	meta.Scenario = safetext.Line(meta.Scenario)
	meta.Summary = safetext.Line(meta.Summary)
	meta.Story = safetext.Text(meta.Story)
	meta.Strategy = safetext.Line(meta.Strategy)
	meta.Engine = safetext.Line(meta.Engine)
	meta.Classes = slices.Clone(meta.Classes)
	for i := range meta.Classes {
		meta.Classes[i].Name = safetext.Line(meta.Classes[i].Name)
	}
	return meta
}

// CleanFleet returns a copy of fm with its texts made inert (nil for nil).
func CleanFleet(fm *source.FleetMeta) *source.FleetMeta {
	if fm == nil {
		return nil
	}
	return &source.FleetMeta{Name: safetext.Line(fm.Name), Store: safetext.Line(fm.Store), Instance: safetext.Line(fm.Instance)}
}

// CleanSnapshot makes the texts of s inert, in place: a snapshot shares no memory with its
// source, so its slices are the dashboard's own. Plain ASCII (the usual case) costs a scan and
// no allocation.
func CleanSnapshot(s *source.Snapshot) {
	s.Note = safetext.Line(s.Note)
	for i := range s.Events {
		e := &s.Events[i]
		e.Text = safetext.Line(e.Text)
		e.Fault.Kind = scenarios.FaultKind(safetext.Line(string(e.Fault.Kind)))
		e.Fault.Reason = safetext.Line(e.Fault.Reason)
		e.Control.Class = safetext.Line(e.Control.Class)
		e.Control.Strategy = safetext.Line(e.Control.Strategy)
	}
	for i := range s.Faults {
		s.Faults[i].Kind = scenarios.FaultKind(safetext.Line(string(s.Faults[i].Kind)))
	}
	if s.Cortex != nil && s.Cortex.Fleet != nil {
		s.Cortex.Fleet.LastError = safetext.Line(s.Cortex.Fleet.LastError) // a store's error may quote anything
	}
}

// CleanScenario returns a copy of scn with its texts made inert, for the picker; the story
// keeps its line breaks; its slices are copies (nil stays nil). Only texts change: the copy
// runs exactly as scn would.
func CleanScenario(scn scenarios.Scenario) scenarios.Scenario {
	scn.Name = safetext.Line(scn.Name)
	scn.Summary = safetext.Line(scn.Summary)
	scn.Story = safetext.Text(scn.Story)
	scn.Classes = slices.Clone(scn.Classes)
	for i := range scn.Classes {
		scn.Classes[i].Name = safetext.Line(scn.Classes[i].Name)
	}
	scn.Notes = slices.Clone(scn.Notes)
	for i := range scn.Notes {
		scn.Notes[i].Text = safetext.Line(scn.Notes[i].Text)
	}
	return scn
}

// CleanDecisions makes the texts of decisions a source kept inert, in place (the slice is the
// dashboard's own copy): the class names come from the scenario file.
func CleanDecisions(ds []source.DecisionRecord) {
	for i := range ds {
		ds[i].Class = safetext.Line(ds[i].Class)
		ds[i].Failure = safetext.Line(ds[i].Failure)
		ds[i].Reason = safetext.Line(ds[i].Reason)
	}
}

// CleanLesson returns l with its texts made inert for the terminal (a lesson file given with
// learn --file is a stranger's text, as a scenario file is: see above).
func CleanLesson(l scenarios.Lesson) scenarios.Lesson {
	l.Name = safetext.Line(l.Name)
	l.Title = safetext.Line(l.Title)
	l.Summary = safetext.Line(l.Summary)
	l.Steps = slices.Clone(l.Steps)
	for i := range l.Steps {
		s := &l.Steps[i]
		s.Text, s.Hint = safetext.Line(s.Text), safetext.Line(s.Hint)
		s.Actions = slices.Clone(s.Actions)
		for j := range s.Actions {
			s.Actions[j].Text = safetext.Line(s.Actions[j].Text)
		}
	}
	return l
}
