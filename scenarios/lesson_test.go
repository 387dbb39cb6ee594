package scenarios_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/scenarios"
)

// TestBuiltinLessonsValid asserts that every embedded lesson file parses, and that the catalog
// has the six lessons of the issue, each on a built-in scenario with steps that have a goal,
// a text and a hint.
func TestBuiltinLessonsValid(t *testing.T) {
	files := scenarios.LessonFiles()
	require.GreaterOrEqual(t, len(files), 6)
	for name, data := range files {
		_, err := scenarios.ParseLesson(name, data)
		assert.NoError(t, err, name)
	}
	var names []string
	for _, l := range scenarios.Lessons() {
		names = append(names, l.Name)
		_, err := scenarios.Lookup(l.Scenario)
		require.NoError(t, err)
		require.NotEmpty(t, l.Steps, l.Name)
		for _, s := range l.Steps {
			assert.NotEmpty(t, s.Goals, l.Name)
			assert.NotEmpty(t, s.Hint, l.Name)
		}
	}
	assert.Equal(t, []string{"retry-storm", "open-loop-backoff", "metastable", "budgets-breakers", "reading-cps", "priorities"}, names)
	_, err := scenarios.LookupLesson("nope")
	assert.ErrorContains(t, err, `unknown lesson "nope"; valid names: retry-storm, `)
}

// TestParseLessonErrors asserts that a broken lesson file is refused with every problem as
// file:line: field: message, as scenario files are.
func TestParseLessonErrors(t *testing.T) {
	head := "name = \"x\"\ntitle = \"X\"\nscenario = \"black-friday\"\n"
	step := func(goal string) string {
		return head + "\n[[step]]\ntext = \"t\"\nhint = \"h\"\ngoal = [" + goal + "]\n"
	}
	ctl := func(keys string) string { // a [[control]] at line 10, its keys from line 11
		return step(`{ metric = "service", op = "==", value = "DOWN" }`) + "\n[[control]]\n" + keys + "\n"
	}
	tests := []struct {
		name, text, want string
	}{
		{"unknown top key", head + "titel = \"y\"\n", `l.toml:4: titel: unknown key (did you mean "title"?)`},
		{"unknown scenario", "name = \"x\"\ntitle = \"X\"\nscenario = \"black-fri\"\n", `l.toml:3: scenario: unknown scenario "black-fri"`},
		{"no steps", head, `l.toml: step: is required`},
		{"unknown metric", step(`{ metric = "sucess", op = ">", value = 1 }`), `l.toml:8: step[1].goal[1].metric: unknown metric "sucess" (did you mean "success"?)`},
		{"unknown class", step(`{ metric = "class.orders.success", op = ">", value = 1 }`), `l.toml:8: step[1].goal[1].metric: scenario black-friday has no class "orders"; its classes: payment, search, analytics`},
		{"order on a state", step(`{ metric = "service", op = ">", value = "UP" }`), `l.toml:8: step[1].goal[1].op: must be one of == != for service, got ">"`},
		{"unknown state", step(`{ metric = "service", op = "==", value = "BROKEN" }`), `l.toml:8: step[1].goal[1].value: must be one of UP, DOWN, CRASHED, WARMING for service, got "BROKEN"`},
		{"string for a number", step(`{ metric = "success", op = ">", value = "high" }`), `l.toml:8: step[1].goal[1].value: must be a number for success, got the string "high"`},
		{"unknown goal key", step(`{ metric = "success", op = ">", value = 1, fro = "2s" }`), `l.toml:8: step[1].goal[1].fro: unknown key (did you mean "for"?)`},
		{"bad action", step(`{ metric = "success", op = ">", value = 1 }`) + "do = [\"strategy naiv\"]\n", `l.toml:9: step[1].do: action 1: unknown strategy "naiv"`},
		{"unknown strategy", head + "strategy = \"cortx\"\n", `l.toml:4: strategy: unknown strategy "cortx" (did you mean "cortex"?)`},
		{"control after the run", ctl(`at = "9m"` + "\n" + `do = "clear-all"`), `l.toml:11: control[1].at: is at or after the end of the run (duration + drain = 210s), got 540s`},
		{"control between ticks", ctl(`at = "20.05s"` + "\n" + `do = "clear-all"`), `l.toml:11: control[1].at: must be a multiple of tick (100ms)`},
		{"control on no class", ctl(`at = "20s"` + "\n" + `do = "class"` + "\n" + `class = "orders"` + "\n" + `share = 2`), `l.toml:13: control[1].class: no class "orders"; the classes are payment, search, analytics`},
		{"unknown control", ctl(`at = "20s"` + "\n" + `do = "explode"`), `l.toml:12: control[1].do: unknown control "explode"; valid: inject, clear, clear-all, weights, adaptive, class, strategy`},
		{"control key of another do", ctl(`at = "20s"` + "\n" + `do = "clear-all"` + "\n" + `kind = "outage"`), `l.toml:13: control[1].kind: is not a key of do = "clear-all", which takes no other key`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.ParseLesson("l.toml", []byte(tt.text))
			require.Error(t, err)
			assert.True(t, strings.Contains(err.Error(), tt.want), "got:\n%s\nwant a line starting:\n%s", err, tt.want)
		})
	}
}

// TestParseLessonGoal asserts that a goal is decoded into its typed parts and written back as
// the panel shows it.
func TestParseLessonGoal(t *testing.T) {
	text := "name = \"x\"\ntitle = \"X\"\nscenario = \"black-friday\"\nstrategy = \"naive\"\n\n[[step]]\ntext = \"t\"\nhint = \"h\"\ndo = [\"strategy cortex\", \"priority payment 1\"]\ngoal = [{ metric = \"class.payment.success\", op = \">=\", value = 0.9, for = \"15s\" }, { metric = \"service\", op = \"!=\", value = \"CRASHED\" }]\n"
	l, err := scenarios.ParseLesson("l.toml", []byte(text))
	require.NoError(t, err)
	require.Len(t, l.Steps, 1)
	g := l.Steps[0].Goals
	require.Len(t, g, 2)
	assert.Equal(t, scenarios.MetricClassSuccess, g[0].Metric.ID)
	assert.Equal(t, "payment", g[0].Class)
	assert.Equal(t, "class.payment.success >= 90% for 15s", g[0].String())
	assert.Equal(t, "service != CRASHED", g[1].String())
	require.Len(t, l.Steps[0].Actions, 2)
	assert.Equal(t, scenarios.Action{Kind: scenarios.ActPriority, Name: "payment", Value: 1, Text: "priority payment 1"}, l.Steps[0].Actions[1])
	assert.Equal(t, "naive", l.Strategy)
	assert.True(t, l.Guided, "guided by default")
}

// TestParseLessonControls asserts that a lesson's [[control]] tables are decoded as a
// scenario's, completed from the lesson's scenario (an outage's value, a class's priority
// left out), and that lesson.Scenario's timeline has them.
func TestParseLessonControls(t *testing.T) {
	text := "name = \"x\"\ntitle = \"X\"\nscenario = \"black-friday\"\n\n[[step]]\ntext = \"t\"\nhint = \"h\"\ngoal = [{ metric = \"service\", op = \"==\", value = \"DOWN\" }]\n" +
		"\n[[control]]\nat = \"20s\"\ndo = \"inject\"\nkind = \"throttle\"\nduration = \"10s\"\n" +
		"\n[[control]]\nat = \"25s\"\ndo = \"class\"\nclass = \"analytics\"\nshare = 2\n"
	l, err := scenarios.ParseLesson("l.toml", []byte(text))
	require.NoError(t, err)
	require.Len(t, l.Controls, 2)
	scn, err := scenarios.Lookup("black-friday")
	require.NoError(t, err)
	assert.Equal(t, scenarios.ControlInject, l.Controls[0].Control)
	assert.Equal(t, 0.5*scn.Service.Capacity(), l.Controls[0].Fault.Value, "the throttle the dashboard's key injects")
	assert.Equal(t, 10*time.Second, l.Controls[0].Fault.Duration)
	assert.Equal(t, scenarios.ControlEvent{Control: scenarios.ControlClass, Class: "analytics", Share: 2, Priority: 1}, l.Controls[1].ControlEvent, "the class's own priority")
}

// FuzzParseLesson asserts that ParseLesson never panics, and that a lesson it accepts has
// steps, each with a goal on a metric of the vocabulary and a valid comparison. Its seed
// corpus is the built-in lessons.
func FuzzParseLesson(f *testing.F) {
	for _, data := range scenarios.LessonFiles() {
		f.Add(data)
	}
	f.Add([]byte("name = \"x\"\ntitle = \"X\"\nscenario = \"metastable\"\n[[step]]\ntext = \"t\"\nhint = \"h\"\ngoal = [{ metric = \"queue\", op = \">\", value = 1 }]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := scenarios.ParseLesson("fuzz.toml", data)
		if err != nil {
			assert.NotEmpty(t, err.Error())
			return
		}
		require.NotEmpty(t, l.Steps)
		for _, s := range l.Steps {
			require.NotEmpty(t, s.Goals)
			for _, g := range s.Goals {
				assert.Contains(t, []scenarios.Op{"<", "<=", ">", ">=", "==", "!="}, g.Op)
				assert.NotEmpty(t, g.Metric.Name)
			}
		}
	})
}

// TestParseLessonLimits asserts that a hostile lesson file is refused by the loader's limits
// before it is decoded: past the size limit, and with too many keys.
func TestParseLessonLimits(t *testing.T) {
	big := strings.Repeat("# padding\n", 30<<10)
	_, err := scenarios.ParseLesson("big.toml", []byte(big))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "larger than 256 KiB (the limit for a lesson file)")

	many := strings.Repeat("[[step]]\ntext = \"t\"\n", 3000)
	_, err = scenarios.ParseLesson("many.toml", []byte(many))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the limit for a lesson file")
}
