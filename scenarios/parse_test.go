package scenarios_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/scenarios"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// minimal is the smallest valid scenario; the error cases below edit it. Its lines:
// 1 name, 2 summary, 3 duration, 5 [[class]], 6-8 class keys, 10 [service], 11 workers,
// 12 service_time. Text appended by a case starts at line 13.
const minimal = `name = "t"
summary = "s"
duration = "60s"

[[class]]
name = "a"
priority = 5
rate = 10

[service]
workers = 2
service_time = "100ms"
`

// edit returns minimal with old replaced by new (old must occur).
func edit(t *testing.T, old, new string) string {
	t.Helper()
	require.Contains(t, minimal, old, "the test edits a line minimal does not have")
	return strings.Replace(minimal, old, new, 1)
}

// TestParseMinimalDefaults asserts that Parse fills every default of the format when the file
// leaves the keys out.
func TestParseMinimalDefaults(t *testing.T) {
	s, err := scenarios.Parse("t.toml", []byte(minimal))
	require.NoError(t, err)
	want := scenarios.Defaults()
	assert.Equal(t, scenarios.DefaultTick, s.Tick)
	assert.Equal(t, want.Drain, s.Drain)
	assert.Equal(t, want.Seed, s.Seed)
	assert.Equal(t, want.Clients, s.Clients)
	assert.Equal(t, want.Deadline, s.Deadline)
	assert.Equal(t, want.Timeout, s.Timeout)
	assert.Equal(t, want.Layers, s.Layers)
	assert.Equal(t, want.Service.Sigma, s.Service.Sigma)
	assert.Equal(t, want.Service.WarmStart, s.Service.WarmStart)
	assert.Equal(t, want.Service.RefusalCost, s.Service.RefusalCost)
	assert.Equal(t, scenarios.DefaultRefusalCost, s.Service.RefusalCost)
	assert.Equal(t, 0.1, scenarios.DefaultRefusalCost, "the documented default (docs/scenarios.md, README)")
	assert.False(t, s.Loop.Closed, "open loop by default")
	assert.Empty(t, s.Load, "flat load by default")
	assert.Equal(t, 1.0, s.LoadAt(30*time.Second))
	assert.Equal(t, 20, s.Clients)
	assert.Equal(t, 100*time.Millisecond, s.Tick)
}

// TestParseRefusalCost asserts that service.refusal_cost takes any fraction of one service
// time from 0 to 1, both ends included, and refuses everything else naming the field and range.
func TestParseRefusalCost(t *testing.T) {
	tests := []struct {
		value string
		want  float64
		ok    bool
	}{
		{"0", 0, true},
		{"0.25", 0.25, true},
		{"1", 1, true},
		{"1.0001", 0, false},
		{"-0.0001", 0, false},
		{"nan", 0, false},
		{"inf", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			s, err := scenarios.Parse("t.toml", []byte(minimal+"refusal_cost = "+tt.value+"\n"))
			if !tt.ok {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "service.refusal_cost: must be in [0, 1]")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, s.Service.RefusalCost)
		})
	}
}

// TestParseErrors asserts the exact message for each kind of bad file: it names the file, the
// line where known, and the field, and lists every problem, in file order.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		text string
		want string
	}{
		{
			name: "syntax error shows the parser's context",
			text: edit(t, "rate = 10", "rate = 10 10"),
			want: "t.toml:8: invalid TOML: expected a top-level item to end with a newline, comment, or EOF, but got '1' instead\n" +
				"      6 | name = \"a\"\n" +
				"      7 | priority = 5\n" +
				"      8 | rate = 10 10\n" +
				"                   ^^",
		},
		{
			name: "an unclosed table header is reported on its own line",
			text: edit(t, "[service]", "[service"),
			want: "t.toml:10: invalid TOML: expected '.' or ']' to end table name, but got '\\n' instead\n" +
				"      8 | rate = 10\n" +
				"      9 | \n" +
				"     10 | [service\n" +
				"                  ^",
		},
		{
			name: "a key without a value is reported on its own line",
			text: edit(t, `summary = "s"`, "summary ="),
			want: "t.toml:2: invalid TOML: expected value but found '\\n' instead\n" +
				"      1 | name = \"t\"\n" +
				"      2 | summary =\n" +
				"                   ^",
		},
		{
			name: "unknown top-level key",
			text: edit(t, `name = "t"`, "name = \"t\"\ncolour = \"red\""),
			want: `t.toml:2: colour: unknown key; valid keys at the top level: name, summary, story, duration, drain, tick, seed, strategy, fleet, class, load, service, fault, control, note, engine`,
		},
		{
			name: "misspelt key is unknown, with a suggestion, and the real one missing",
			text: edit(t, "workers = 2", "worker = 2"),
			want: "t.toml:10: service.workers: is required (e.g. workers = 50)\n" +
				`t.toml:11: service.worker: unknown key (did you mean "workers"?); valid keys in [service]: workers, service_time, sigma, queue_limit, drop_expired, refusal_cost, crash_factor, crash_after, restart_delay, warm_start, warmup`,
		},
		{
			name: "string for an integer",
			text: edit(t, "workers = 2", `workers = "2"`),
			want: `t.toml:11: service.workers: must be an integer, got the string "2"`,
		},
		{
			name: "float for an integer",
			text: edit(t, "workers = 2", "workers = 2.5"),
			want: `t.toml:11: service.workers: must be an integer, got the number 2.5`,
		},
		{
			name: "duration without a unit",
			text: edit(t, `duration = "60s"`, `duration = "60"`),
			want: `t.toml:3: duration: must be a duration with a unit, like "250ms" or "2m", got "60"`,
		},
		{
			name: "a duration past the largest one",
			text: edit(t, `duration = "60s"`, `duration = "9999999999h"`),
			want: `t.toml:3: duration: "9999999999h" overflows: the largest duration is 2562047h47m16.854775807s (about 292 years)`,
		},
		{
			name: "a duration below the smallest one",
			text: edit(t, `duration = "60s"`, "duration = \"60s\"\ndrain = \"-99999999999999999999ns\""),
			want: `t.toml:4: drain: "-99999999999999999999ns" overflows: the smallest duration is -2562047h47m16.854775808s (about 292 years)`,
		},
		{
			name: "queue_limit past a 32-bit integer, as a float",
			text: edit(t, "workers = 2", "workers = 2\nqueue_limit = 1e12"),
			want: `t.toml:12: service.queue_limit: must be between 0 and 1000000, got 1e+12`,
		},
		{
			name: "queue_limit past a 32-bit integer",
			text: edit(t, "workers = 2", "workers = 2\nqueue_limit = 1000000000000"),
			want: `t.toml:12: service.queue_limit: must be between 0 and 1000000, got 1000000000000`,
		},
		{
			name: "negative queue_limit",
			text: edit(t, "workers = 2", "workers = 2\nqueue_limit = -1"),
			want: `t.toml:12: service.queue_limit: must be between 0 and 1000000, got -1`,
		},
		{
			name: "an integer written as a float",
			text: edit(t, "workers = 2", "workers = 2e1"),
			want: `t.toml:11: service.workers: must be an integer (written without a decimal point or exponent), got the number 20`,
		},
		{
			name: "clients past a 32-bit integer",
			text: minimal + "\n[fleet]\nclients = 99999999999\n",
			want: `t.toml:15: fleet.clients: must be between 1 and 1000, got 99999999999`,
		},
		{
			name: "duration as a number",
			text: edit(t, `duration = "60s"`, `duration = 60`),
			want: `t.toml:3: duration: must be a duration string with a unit, like "250ms" or "2m", got the integer 60`,
		},
		{
			name: "negative duration",
			text: edit(t, `duration = "60s"`, `duration = "-60s"`),
			want: `t.toml:3: duration: must be positive, got -60s`,
		},
		{
			name: "negative rate",
			text: edit(t, "rate = 10", "rate = -5"),
			want: `t.toml:8: class[1].rate: must be a number >= 0, got -5`,
		},
		{
			name: "a rate too high to simulate",
			text: edit(t, "rate = 10", "rate = 1e9"),
			want: `t.toml:8: class[1].rate: must be at most 100000 requests/s, got 1e+09`,
		},
		{
			name: "priority out of range",
			text: edit(t, "priority = 5", "priority = 11"),
			want: `t.toml:7: class[1].priority: must be between 0 and 10, got 11`,
		},
		{
			name: "zero workers",
			text: edit(t, "workers = 2", "workers = 0"),
			want: `t.toml:11: service.workers: must be between 1 and 100000, got 0`,
		},
		{
			name: "fraction outside [0,1]",
			text: minimal + "\n[[fault]]\nkind = \"errors\"\nat = \"10s\"\nduration = \"5s\"\nfraction = 1.5\n",
			want: `t.toml:18: fault[1].fraction: must be in (0, 1], got 1.5`,
		},
		{
			name: "fault starting after the end of the run",
			text: minimal + "\n[[fault]]\nkind = \"outage\"\nat = \"90s\"\nduration = \"10s\"\n",
			want: `t.toml:16: fault[1].at: starts at 90s, at or after the end of the run's arrivals (duration = 60s)`,
		},
		{
			name: "fault starting between two ticks",
			text: minimal + "\n[[fault]]\nkind = \"outage\"\nat = \"10050ms\"\nduration = \"40ms\"\n",
			want: "t.toml:16: fault[1].at: must be a multiple of tick (100ms): faults start and end on tick boundaries, got 10.05s\n" +
				"t.toml:17: fault[1].duration: must be a multiple of tick (100ms): faults start and end on tick boundaries, got 40ms",
		},
		{
			name: "fault without a duration",
			text: minimal + "\n[[fault]]\nkind = \"outage\"\nat = \"10s\"\n",
			want: `t.toml:14: fault[1].duration: is required (e.g. duration = "30s")`,
		},
		{
			name: "notes out of order",
			text: minimal + "\n[[note]]\nat = \"20s\"\ntext = \"b\"\n\n[[note]]\nat = \"10s\"\ntext = \"a\"\n",
			want: `t.toml:19: note[2].at: must be after note[1].at (20s): notes go in time order, got 10s`,
		},
		{
			name: "note after the end of the run",
			text: minimal + "\n[[note]]\nat = \"95s\"\ntext = \"late\"\n",
			want: `t.toml:15: note[1].at: is at or after the end of the run (duration + drain = 90s), got 95s`,
		},
		{
			name: "note for an unknown strategy",
			text: minimal + "\n[[note]]\nat = \"5s\"\ntext = \"a\"\nstrategies = [\"naiv\"]\n",
			want: `t.toml:17: note[1].strategies: unknown strategy "naiv" (did you mean "naive"?); valid: ` + strings.Join(strategy.Names(), ", "),
		},
		{
			name: "note naming a strategy twice",
			text: minimal + "\n[[note]]\nat = \"5s\"\ntext = \"a\"\nstrategies = [\"naive\", \"naive\"]\n",
			want: `t.toml:17: note[1].strategies: names "naive" twice`,
		},
		{
			name: "note strategies not strings",
			text: minimal + "\n[[note]]\nat = \"5s\"\ntext = \"a\"\nstrategies = \"naive\"\n",
			want: `t.toml:17: note[1].strategies: must be an array of strings, like ["naive", "backoff"], got the string "naive"`,
		},
		{
			name: "two notes at one time for a common strategy",
			text: minimal + "\n[[note]]\nat = \"5s\"\ntext = \"a\"\nstrategies = [\"naive\", \"cortex\"]\n\n[[note]]\nat = \"5s\"\ntext = \"b\"\nstrategies = [\"cortex\"]\n",
			want: `t.toml:20: note[2].at: must be after note[1].at (5s): notes go in time order, got 5s`,
		},
		{
			name: "a note for some beside one for all but them",
			text: minimal + "\n[[note]]\nat = \"5s\"\ntext = \"a\"\nstrategies = [\"naive\"]\n\n[[note]]\nat = \"5s\"\ntext = \"b\"\nexcept = [\"naive\", \"cortex\"]\n\n[[note]]\nat = \"5s\"\ntext = \"c\"\nexcept = [\"cortex\"]\n",
			want: `t.toml:25: note[3].at: must be after note[2].at (5s): notes go in time order, got 5s`,
		},
		{
			name: "strategies and except",
			text: minimal + "\n[[note]]\nat = \"5s\"\ntext = \"a\"\nstrategies = [\"naive\"]\nexcept = [\"cortex\"]\n",
			want: `t.toml:18: note[1].except: give strategies (the note's) or except (those it is not for), not both`,
		},
		{
			name: "an unknown control",
			text: minimal + "\n[[control]]\nat = \"5s\"\ndo = \"restart\"\n",
			want: `t.toml:16: control[1].do: unknown control "restart"; valid: ` + scheduledNames(),
		},
		{
			name: "a key the control does not take",
			text: minimal + "\n[[control]]\nat = \"5s\"\ndo = \"clear\"\nkind = \"outage\"\nlatency = \"1s\"\n",
			want: `t.toml:18: control[1].latency: is not a key of do = "clear", which takes kind`,
		},
		{
			name: "controls between ticks, out of order, of no class, of bad weights, of no strategy",
			text: minimal + "\n[[control]]\nat = \"5.05s\"\ndo = \"clear-all\"\n" +
				"\n[[control]]\nat = \"4s\"\ndo = \"class\"\nclass = \"b\"\nshare = 2\n" +
				"\n[[control]]\nat = \"6s\"\ndo = \"weights\"\nweights = { F = 0, L = 0, Q = 0, B = 0, C = 0 }\n" +
				"\n[[control]]\nat = \"7s\"\ndo = \"strategy\"\nstrategy = \"naiv\"\n" +
				"\n[[control]]\nat = \"8s\"\ndo = \"inject\"\nkind = \"errors\"\nfraction = 2\n",
			want: "t.toml:15: control[1].at: must be a multiple of tick (100ms): controls apply between ticks, got 5.05s\n" +
				"t.toml:19: control[2].at: must not be before control[1].at (5.05s): controls go in time order, got 4s\n" +
				"t.toml:21: control[2].class: no class \"b\"; the classes are a\n" +
				"t.toml:27: control[3].weights: " + weightsZeroMessage(t) + "\n" +
				"t.toml:32: control[4].strategy: unknown strategy \"naiv\" (did you mean \"naive\"?); valid: " + strings.Join(strategy.Names(), ", ") + "\n" +
				"t.toml:38: control[5].fraction: must be in (0, 1], got 2",
		},
		{
			name: "empty note text",
			text: minimal + "\n[[note]]\nat = \"5s\"\ntext = \"  \"\n",
			want: `t.toml:16: note[1].text: is required`,
		},
		{
			name: "load points not increasing",
			text: minimal + "\n[[load]]\nat = \"30s\"\nfactor = 1\n\n[[load]]\nat = \"30s\"\nfactor = 2\n",
			want: `t.toml:19: load[2].at: must be after load[1].at (30s), got 30s`,
		},
		{
			name: "negative load factor",
			text: minimal + "\n[[load]]\nat = \"0s\"\nfactor = -1\n",
			want: `t.toml:16: load[1].factor: must be between 0 and 100, got -1`,
		},
		{
			name: "a value key of another kind",
			text: minimal + "\n[[fault]]\nkind = \"latency\"\nat = \"10s\"\nduration = \"5s\"\nfraction = 0.5\n",
			want: "t.toml:14: fault[1].latency: is required (e.g. latency = \"800ms\")\n" +
				`t.toml:18: fault[1].fraction: is not a value of kind "latency", which takes latency = "800ms"`,
		},
		{
			name: "a value for a kind that takes none",
			text: minimal + "\n[[fault]]\nkind = \"outage\"\nat = \"10s\"\nduration = \"5s\"\nrate = 5\n",
			want: `t.toml:18: fault[1].rate: kind "outage" takes no value`,
		},
		{
			name: "a latency that makes no sense",
			text: minimal + "\n[[fault]]\nkind = \"latency\"\nat = \"10s\"\nduration = \"5s\"\nlatency = \"-1s\"\n",
			want: `t.toml:18: fault[1].latency: must be a duration in (0s, 600s], got -1s`,
		},
		{
			name: "a capacity factor above 1",
			text: minimal + "\n[[fault]]\nkind = \"capacity\"\nat = \"10s\"\nduration = \"5s\"\nfactor = 2\n",
			want: `t.toml:18: fault[1].factor: must be a factor in (0, 1], got 2`,
		},
		{
			name: "a throttle rate of zero",
			text: minimal + "\n[[fault]]\nkind = \"throttle\"\nat = \"10s\"\nduration = \"5s\"\nrate = 0\n",
			want: `t.toml:18: fault[1].rate: must be a rate > 0 in requests/s, got 0`,
		},
		{
			name: "unknown fault kind",
			text: minimal + "\n[[fault]]\nkind = \"meteor\"\nat = \"10s\"\nduration = \"5s\"\n",
			want: `t.toml:15: fault[1].kind: unknown kind "meteor"; valid kinds: ` + kindNames(),
		},
		{
			name: "overlapping faults of one kind",
			text: minimal + "\n[[fault]]\nkind = \"outage\"\nat = \"10s\"\nduration = \"20s\"\n\n[[fault]]\nkind = \"outage\"\nat = \"25s\"\nduration = \"10s\"\n",
			want: `t.toml:19: fault[2]: overlaps fault[1] (outage from 10s to 30s): faults of one kind must not overlap`,
		},
		{
			name: "a table where a list of tables is expected",
			text: edit(t, "[[class]]", "[class]"),
			want: `t.toml:5: class: must be a list of tables: write [[class]], not [class]`,
		},
		{
			name: "no [service]",
			text: strings.Split(minimal, "[service]")[0],
			want: `t.toml: service: a [service] table is required (at least workers and service_time)`,
		},
		{
			name: "no name",
			text: edit(t, "name = \"t\"\n", ""),
			want: `t.toml: name: is required (e.g. name = "my-scenario")`,
		},
		{
			name: "a name that is not an identifier",
			text: edit(t, `name = "t"`, `name = "Black Friday"`),
			want: `t.toml:1: name: must be lowercase letters, digits and single hyphens (like "black-friday"), got "Black Friday"`,
		},
		{
			name: "duplicate class names",
			text: minimal + "\n[[class]]\nname = \"a\"\nrate = 1\n",
			want: `t.toml:15: class[2].name: "a" is already the name of class[1]`,
		},
		{
			name: "timeout longer than the deadline",
			text: minimal + "\n[fleet]\ntimeout = \"40s\"\n",
			want: `t.toml:15: fleet.timeout: must not exceed fleet.deadline (30s), got 40s`,
		},
		{
			name: "users with an open loop",
			text: minimal + "\n[fleet]\nusers = 10\n",
			want: `t.toml:15: fleet.users: is only for loop = "closed" (open-loop rates come from [[class]] rate)`,
		},
		{
			name: "closed loop without users",
			text: minimal + "\n[fleet]\nloop = \"closed\"\n",
			want: `t.toml:14: fleet.users: must be at least 1 with loop = "closed", got 0`,
		},
		{
			name: "closed loop with too many users",
			text: minimal + "\n[fleet]\nloop = \"closed\"\nusers = 100000000\n",
			want: `t.toml:16: fleet.users: must be between 1 and 10000, got 100000000`,
		},
		{
			name: "bad loop",
			text: minimal + "\n[fleet]\nloop = \"half\"\n",
			want: `t.toml:15: fleet.loop: must be "open" or "closed", got "half"`,
		},
		{
			name: "crash factor below 1",
			text: minimal + "crash_factor = 0.5\nrestart_delay = \"5s\"\n",
			want: `t.toml:13: service.crash_factor: must be 0 (never crashes) or at least 1 (a service below capacity does not crash), got 0.5`,
		},
		{
			name: "crash factor without a restart delay",
			text: minimal + "crash_factor = 2\n",
			want: `t.toml:10: service.restart_delay: must be positive when service.crash_factor is set`,
		},
		{
			name: "refusal cost above one service time",
			text: minimal + "refusal_cost = 1.5\n",
			want: `t.toml:13: service.refusal_cost: must be in [0, 1] (a fraction of one service time), got 1.5`,
		},
		{
			name: "negative refusal cost",
			text: minimal + "refusal_cost = -0.1\n",
			want: `t.toml:13: service.refusal_cost: must be in [0, 1] (a fraction of one service time), got -0.1`,
		},
		{
			name: "refusal cost of the wrong type",
			text: minimal + "refusal_cost = \"10%\"\n",
			want: `t.toml:13: service.refusal_cost: must be a number, got the string "10%"`,
		},
		{
			name: "warm start of zero",
			text: minimal + "warm_start = 0\n",
			want: `t.toml:13: service.warm_start: must be in (0, 1], got 0`,
		},
		{
			name: "tick that does not divide the duration",
			text: edit(t, `duration = "60s"`, "duration = \"60s\"\ntick = \"70ms\""),
			want: `t.toml:4: tick: must divide duration (60s) evenly, got 70ms`,
		},
		{
			name: "dotted key at the top level",
			text: edit(t, `duration = "60s"`, "duration = \"60s\"\nfleet.clients = 0"),
			want: `t.toml:4: fleet.clients: must be between 1 and 1000, got 0`,
		},
		{
			name: "values of other TOML types",
			text: edit(t, `name = "t"
summary = "s"`, "name = 1979-05-27\nsummary = [\"s\"]") + "drop_expired = \"yes\"\n",
			want: "t.toml:1: name: must be a string, got a date or time\n" +
				"t.toml:2: summary: must be a string, got an array\n" +
				`t.toml:13: service.drop_expired: must be true or false, got the string "yes"`,
		},
		{
			name: "a scalar where a table is expected",
			text: edit(t, `duration = "60s"`, "duration = \"60s\"\nfleet = 3"),
			want: `t.toml:4: fleet: must be a table ([fleet]), got the integer 3`,
		},
		{
			name: "an unknown table",
			text: minimal + "\n[servce]\nworkers = 3\n",
			want: `t.toml:14: servce: unknown key (did you mean "service"?); valid keys at the top level: name, summary, story, duration, drain, tick, seed, strategy, fleet, class, load, service, fault, control, note, engine`,
		},
		{
			name: "a bad entry in an inline list of classes",
			text: edit(t, "[[class]]\nname = \"a\"\npriority = 5\nrate = 10\n", "class = [{name = \"a\", rate = 1}, 7]\n"),
			want: `t.toml:5: class[2]: must be a table, got the integer 7`,
		},
		{
			name: "CRLF line endings keep their line numbers",
			text: strings.ReplaceAll(edit(t, "workers = 2", "workers = 0"), "\n", "\r\n"),
			want: `t.toml:11: service.workers: must be between 1 and 100000, got 0`,
		},
		{
			name: "an engine key misspelt, with its line",
			text: minimal + "\n[engine]\nname = \"tuned.toml\"\n\n[engine.retry]\nmax_atempts = 5\n",
			want: `t.toml:18: engine.retry.max_atempts: unknown key (did you mean "max_attempts"?); valid keys in [engine.retry]: max_attempts, backoff_base, backoff_max, deadline_aware`,
		},
		{
			name: "an engine value the engine refuses",
			text: minimal + "\n[engine]\nbase = \"tuned\"\n\n[engine.budget]\ncapacity = -1\n",
			want: "t.toml:15: engine.base: must be \"default\" or \"article\", got \"tuned\"\nt.toml:18: engine.budget.capacity: must be >= 0, got -1",
		},
		{
			name: "several problems at once, in file order",
			text: edit(t, "priority = 5\nrate = 10", "priority = -1\nrate = -1") + "sigma = -0.5\n",
			want: "t.toml:7: class[1].priority: must be between 0 and 10, got -1\n" +
				"t.toml:8: class[1].rate: must be a number >= 0, got -1\n" +
				"t.toml:13: service.sigma: must be between 0 and 3, got -0.5",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse("t.toml", []byte(tt.text))
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			var fe *scenarios.FieldError
			assert.True(t, errors.As(err, &fe), "errors.As reaches a *FieldError")
		})
	}
}

// TestParseFileErrors asserts that ParseFile names the path when the file cannot be read.
func TestParseFileErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.toml")
	tests := []struct {
		name, path, want string
	}{
		{"missing file", missing, missing + ": cannot read: no such file or directory"},
		{"directory", dir, dir + ": is a directory, not a scenario file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.ParseFile(tt.path)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// TestParseFileReadsAndParses asserts that ParseFile parses a file from disk like Parse does.
func TestParseFileReadsAndParses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ok.toml")
	require.NoError(t, os.WriteFile(path, []byte(minimal), 0o600))
	got, err := scenarios.ParseFile(path)
	require.NoError(t, err)
	want, err := scenarios.Parse("other-name.toml", []byte(minimal))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// TestParseRejectsHugeFiles asserts that a file beyond MaxFileSize is refused before parsing,
// with the limit in the message.
func TestParseRejectsHugeFiles(t *testing.T) {
	data := []byte(minimal + "# " + strings.Repeat("x", scenarios.MaxFileSize) + "\n")
	_, err := scenarios.Parse("big.toml", data)
	require.Error(t, err)
	assert.Equal(t, "big.toml: larger than 1 MiB (the limit for a scenario file)", err.Error())
	_, err = scenarios.ParseReader("-", strings.NewReader(string(data)))
	require.Error(t, err)
	assert.Equal(t, "-: larger than 1 MiB (the limit for a scenario file)", err.Error())
}

// weightsZeroMessage is what the engine says of weights that are all zero.
func weightsZeroMessage(t *testing.T) string {
	t.Helper()
	_, err := engine.Weights{}.Normalized()
	require.Error(t, err)
	return err.Error()
}

// TestRoundTrip asserts that a full example (every key of the format) parses, writes back with
// MarshalTOML and parses again to the same Scenario, and that its fields hold what the file says.
func TestRoundTrip(t *testing.T) {
	data, err := os.ReadFile("testdata/full.toml")
	require.NoError(t, err)
	s, err := scenarios.Parse("full.toml", data)
	require.NoError(t, err)

	assert.Equal(t, "full-example", s.Name)
	assert.True(t, s.Loop.Closed)
	assert.Equal(t, 200, s.Loop.Users)
	assert.Equal(t, 2, s.Layers)
	require.Len(t, s.Faults, len(scenarios.FaultKinds), "one fault of every kind")
	for i := 1; i < len(s.Faults); i++ {
		assert.LessOrEqual(t, s.Faults[i-1].At, s.Faults[i].At, "faults are sorted by start")
	}
	kinds := map[scenarios.FaultKind]float64{}
	for _, f := range s.Faults {
		kinds[f.Kind] = f.Value
	}
	assert.InDelta(t, 0.8, kinds[scenarios.FaultLatency], 1e-12, "latency is stored in seconds")
	assert.Len(t, kinds, len(scenarios.FaultKinds))
	assert.Equal(t, "naive", s.Strategy)
	require.Len(t, s.Controls, 8, "one control of every kind a timeline may hold, and more")
	for i, k := range []scenarios.ControlKind{scenarios.ControlInject, scenarios.ControlInject, scenarios.ControlClear, scenarios.ControlClearAll,
		scenarios.ControlWeights, scenarios.ControlAdaptive, scenarios.ControlClass, scenarios.ControlStrategy} {
		assert.Equal(t, k, s.Controls[i].Control)
	}
	assert.Equal(t, 21050*time.Millisecond, s.Controls[1].At)
	assert.Equal(t, scenarios.Fault{Kind: scenarios.FaultLatency, Duration: 5 * time.Second, Value: 1}, s.Controls[0].Fault)
	spec, _ := scenarios.FaultThrottle.Spec()
	assert.Equal(t, spec.InjectValue(s.Service.Capacity()), s.Controls[1].Fault.Value, "no value: the throttle key's")
	assert.Equal(t, 1.0, s.Controls[6].Share, "a class control without a share keeps the class's")
	assert.Equal(t, 0, s.Controls[6].Priority)
	assert.True(t, s.Controls[5].On)
	assert.Equal(t, "cortex", s.Controls[7].Strategy)

	require.NotNil(t, s.Engine)
	want := engine.ArticleConfig()
	want.MaxRetryAttempts, want.TokenBucketCapacity = 5, 100
	assert.Equal(t, want, *s.Engine, "[engine] over its base")
	assert.Equal(t, "tuned.toml", s.EngineName)

	out, err := s.MarshalTOML()
	require.NoError(t, err)
	again, err := scenarios.Parse("again.toml", out)
	require.NoError(t, err, "MarshalTOML output:\n%s", out)
	assert.Equal(t, s, again)
}

// TestRoundTripEscapes asserts that strings needing escapes survive MarshalTOML and Parse.
func TestRoundTripEscapes(t *testing.T) {
	base, err := scenarios.Parse("t.toml", []byte(minimal))
	require.NoError(t, err)
	for _, story := range []string{
		"plain",
		"two\nlines",
		`ends with a quote "`,
		`has """ triple quotes`,
		`back\slash`,
		"tab\tand \x01 control",
		"\nleading newline",
		"windows\r\nline",
		"unicode: é, 日本",
	} {
		s := base
		s.Story = story
		s.Notes = []scenarios.Note{{At: 0, Text: story}}
		out, err := s.MarshalTOML()
		require.NoError(t, err)
		again, err := scenarios.Parse("again.toml", out)
		require.NoError(t, err, "output:\n%s", out)
		assert.Equal(t, story, again.Story)
		assert.Equal(t, story, again.Notes[0].Text)
	}
}

// TestValidateScenarioBuiltInCode asserts that Validate works on a Scenario built in code from
// Defaults, naming the missing fields, and accepts it once they are set.
func TestValidateScenarioBuiltInCode(t *testing.T) {
	s := scenarios.Defaults()
	err := s.Validate()
	require.Error(t, err)
	var es scenarios.Errors
	require.True(t, errors.As(err, &es))
	var fields []string
	for _, e := range es {
		fields = append(fields, e.Field)
		assert.Empty(t, e.File, "no file for a scenario built in code")
		assert.Zero(t, e.Line)
	}
	assert.Equal(t, []string{"name", "summary", "duration", "class", "service.workers", "service.service_time"}, fields)

	s.Name, s.Summary, s.Duration = "code", "built in code", time.Minute
	s.Classes = []scenarios.Class{{Name: "a", Priority: 3, Rate: 5}}
	s.Service.Workers, s.Service.ServiceTime = 4, 50*time.Millisecond
	assert.NoError(t, s.Validate())
}

// TestParseInlineTables asserts that inline tables and arrays of inline tables mean the same as
// their [table] and [[array]] forms.
func TestParseInlineTables(t *testing.T) {
	inline := `name = "t"
summary = "s"
duration = "60s"
fleet = {clients = 4, timeout = "1s"}
class = [{name = "a", priority = 5, rate = 10}]
service = {workers = 2, service_time = "100ms"}
`
	want, err := scenarios.Parse("t.toml", []byte(minimal+"\n[fleet]\nclients = 4\ntimeout = \"1s\"\n"))
	require.NoError(t, err)
	got, err := scenarios.Parse("inline.toml", []byte(inline))
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

// TestFieldErrorFormat asserts how a FieldError prints with and without its file, line and field.
func TestFieldErrorFormat(t *testing.T) {
	tests := []struct {
		err  scenarios.FieldError
		want string
	}{
		{scenarios.FieldError{File: "a.toml", Line: 3, Field: "fleet.clients", Msg: "bad"}, "a.toml:3: fleet.clients: bad"},
		{scenarios.FieldError{File: "a.toml", Field: "name", Msg: "is required"}, "a.toml: name: is required"},
		{scenarios.FieldError{Field: "name", Msg: "is required"}, "name: is required"},
		{scenarios.FieldError{Line: 7, Msg: "odd"}, "line 7: odd"},
		{scenarios.FieldError{File: "a.toml", Msg: "cannot read"}, "a.toml: cannot read"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
	}
}

// kindNames is the list of fault kinds that messages give, from the table of fault kinds.
func kindNames() string {
	names := make([]string, len(scenarios.FaultKinds))
	for i, k := range scenarios.FaultKinds {
		names[i] = string(k)
	}
	return strings.Join(names, ", ")
}

// scheduledNames lists the controls a scenario may schedule, as the parser's message does.
func scheduledNames() string {
	names := make([]string, len(scenarios.ScheduledKinds))
	for i, k := range scenarios.ScheduledKinds {
		names[i] = k.String()
	}
	return strings.Join(names, ", ")
}
