package cli_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// liveScenario is a scenario of one second at a small rate against a fast service, for
// headless live runs that finish in about two seconds. An attempt has 5 s: on a loaded machine
// under -race (the live tests run in parallel) some attempts ran out of 500 ms against the
// healthy target and were retried, where the tests count no retry.
const liveScenario = `name = "tiny-live"
summary = "a tiny live scenario"
duration = "1s"
drain = "1s"
[fleet]
clients = 3
timeout = "5s"
deadline = "10s"
[[class]]
name = "payment"
priority = 9
rate = 40
[[class]]
name = "search"
priority = 4
rate = 20
[service]
workers = 20
service_time = "5ms"
queue_limit = 20
`

// writeScenario writes text to a scenario file in a temporary directory and returns its path.
func writeScenario(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.toml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

// TestLiveHeadlessJSON asserts that `live --headless --format json` prints the same run
// document as `run --headless`: one row per second of the run, the cortex columns, the
// summary's keys, and the originals it counted all completing against a healthy target.
func TestLiveHeadlessJSON(t *testing.T) {
	t.Parallel()
	path := writeScenario(t, liveScenario)
	code, out, errOut := execute("live", "--scenario-file", path, "--headless", "--format", "json", "--seed", "3")
	require.Equal(t, 0, code, errOut)
	var doc runDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, "tiny-live", doc.Scenario)
	assert.Equal(t, "cortex", doc.Strategy)
	assert.Equal(t, int64(3), doc.Seed)
	require.Len(t, doc.Timeline, 2)
	for _, k := range []string{"t", "originals", "attempts", "retries", "successes", "failures", "shed", "service", "capacity", "queue", "cps", "state", "circuit", "signals"} {
		assert.Contains(t, doc.Timeline[0], k)
	}
	assert.Equal(t, "UP", doc.Timeline[0]["service"])
	assert.Positive(t, doc.Timeline[0]["originals"])
	assert.Equal(t, 1.0, doc.Summary["success_rate"])
	assert.Equal(t, 1.0, doc.Summary["amplification"])
}

// TestLiveTarget asserts that --target sends the traffic to the URL given (its path
// included), and only there, with the strategy's retries.
func TestLiveTarget(t *testing.T) {
	t.Parallel()
	hits := make(chan string, 10000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits <- r.URL.Path
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	path := writeScenario(t, liveScenario)
	code, out, errOut := execute("live", "--scenario-file", path, "--headless", "--format", "json", "--strategy", "naive", "--target", srv.URL+"/api/pay")
	require.Equal(t, 0, code, errOut)
	var doc runDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, 0.0, doc.Summary["success_rate"])
	assert.Equal(t, 4.0, doc.Summary["amplification"], "naive: 1 + 3 retries of every 503")
	close(hits)
	n := 0
	for p := range hits {
		assert.Equal(t, "/api/pay", p)
		n++
	}
	assert.Positive(t, n)
}

// TestLiveUsageErrors asserts that bad flags and scenarios live mode cannot play are usage
// errors (exit 2) naming the problem, and that a dead --target is a clear error, not a hang.
func TestLiveUsageErrors(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String() + "/"
	require.NoError(t, ln.Close())
	path := writeScenario(t, liveScenario)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"live", "--headless"}, 2, "no scenario"},
		{[]string{"live", "--scenario", "nope", "--headless"}, 2, "nope"},
		{[]string{"live", "--scenario", "closed-loop", "--headless"}, 2, "open-loop scenarios only"},
		{[]string{"live", "--scenario", "two-layers", "--headless"}, 2, "one retry layer"},
		{[]string{"live", "--scenario-file", path, "--headless", "--scale", "0"}, 2, "--scale"},
		{[]string{"live", "--scenario-file", path, "--headless", "--max-rps", "-1"}, 2, "--max-rps"},
		{[]string{"live", "--scenario-file", path, "--headless", "--duration", "-1s"}, 2, "--duration"},
		{[]string{"live", "--scenario-file", path, "--headless", "--max-inflight", "-1"}, 2, "--max-inflight"},
		{[]string{"live", "--scenario-file", path, "--headless", "--strategy", "nope"}, 2, "unknown strategy"},
		{[]string{"live", "--scenario-file", path, "--headless", "--format", "xml"}, 2, "xml"},
		{[]string{"live", "--scenario-file", path, "--headless", "--target", "ftp://x"}, 2, "http://"},
		{[]string{"live", "--scenario-file", path, "--headless", "--target", dead}, 1, "not reachable"},
		{[]string{"live", "--scenario-file", path, "--headless", "--target", "http://127.0.0.1:99999/"}, 2, "port 99999 is not in 1..65535"},
		{[]string{"live", "--scenario-file", path, "--headless", "--target", "http://127.0.0.1:-1/"}, 2, "is not a URL"},
		{[]string{"live", "--scenario-file", path, "--headless", "--target", "http://:8080/"}, 2, "no host name before the port"},
		{[]string{"live", "--scenario-file", path, "--headless", "--target", "127.0.0.1:8080"}, 2, "did you mean http://127.0.0.1:8080?"},
		{[]string{"live", "--scenario-file", path}, 2, "needs a terminal"},
		{[]string{"target", "--addr", "nonsense"}, 2, "addr"},
		{[]string{"live", "--scenario-file", path, "--compare-sim", "--format", "csv"}, 2, "table, json or markdown"},
		{[]string{"live", "--scenario-file", path, "--headless", "--fleet", "http://127.0.0.1:6379"}, 2, "must be redis:// or rediss://"},
		{[]string{"live", "--scenario-file", path, "--headless", "--fleet", "redis://127.0.0.1:port"}, 2, "invalid port"},
		{[]string{"live", "--scenario-file", path, "--headless", "--fleet", "redis://127.0.0.1:99999"}, 2, "port must be a number from 1 to 65535"},
		{[]string{"live", "--scenario-file", path, "--headless", "--fleet", "redis://127.0.0.1:6379/-1"}, 2, "database must be a number from 0"},
		{[]string{"live", "--scenario-file", path, "--headless", "--fleet", "redis://127.0.0.1:6379?db=3"}, 2, "unknown parameter"},
		{[]string{"live", "--scenario-file", path, "--headless", "--fleet", "redis://:s3cret@127.0.0.1:port"}, 2, "invalid port"},
		{[]string{"live", "--scenario-file", path, "--headless", "--budget", "per-client", "--fleet", "redis://127.0.0.1:6379"}, 2, "--budget per-client"},
		{[]string{"live", "--scenario-file", path, "--headless", "--budget", "nope"}, 2, "unknown budget"},
		{[]string{"live", "--scenario-file", path, "--headless", "--fleet", "redis://127.0.0.1:6379/x"}, 2, "--fleet"},
		{[]string{"live", "--scenario-file", path, "--headless", "--instance", "a"}, 2, "need --fleet"},
		{[]string{"live", "--scenario-file", path, "--headless", "--fleet", "redis://127.0.0.1:6379", "--instance", "a b"}, 2, "--instance"},
		{[]string{"live", "--scenario-file", path, "--headless", "--fleet", "redis://127.0.0.1:6379", "--fleet-name", "x/y"}, 2, "--fleet-name"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args[1:], " "), func(t *testing.T) {
			code, _, errOut := execute(c.args...)
			assert.Equal(t, c.code, code, errOut)
			assert.Contains(t, errOut, c.want)
		})
	}
}

// TestLiveFleetRedisDown asserts that a run whose Redis does not answer starts anyway, LOCAL,
// and says so on stderr; its output is the run's rows and summary as without a fleet.
func TestLiveFleetRedisDown(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "redis://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	path := writeScenario(t, liveScenario)
	code, out, errOut := execute("live", "--scenario-file", path, "--headless", "--duration", "1s", "--format", "json",
		"--fleet", dead, "--instance", "a")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "does not answer")
	assert.Contains(t, errOut, "starting LOCAL")
	assert.Contains(t, out, `"summary"`)
	assert.NotContains(t, out, "fleet", "the JSON rows carry nothing about the fleet")
}

// TestLiveScaledByMaxRPS asserts that a scenario whose peak exceeds --max-rps is scaled to
// it, and says so.
func TestLiveScaledByMaxRPS(t *testing.T) {
	t.Parallel()
	path := writeScenario(t, liveScenario)
	code, out, errOut := execute("live", "--scenario-file", path, "--headless", "--format", "json", "--max-rps", "30")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "scaled by 0.5")
	var doc runDoc
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Less(t, doc.Timeline[0]["originals"], 60.0, "about 30 a second, not 60")
}

// TestLiveHeadlessTable asserts that the table of a live run says it was live, not simulated,
// and names the scenario and the strategy.
func TestLiveHeadlessTable(t *testing.T) {
	t.Parallel()
	path := writeScenario(t, liveScenario)
	code, out, errOut := execute("live", "--scenario", path, "--headless", "--format", "table", "--strategy", "backoff")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "tiny-live")
	assert.Contains(t, out, "backoff")
	assert.Regexp(t, `(?m)^live\s+2s`, out)
	assert.NotContains(t, out, "simulated")
}

// TestLiveCompareSim asserts that --compare-sim runs the scenario in the simulator and live with
// the same seed and prints both summaries: against a healthy target both complete everything
// with no retry.
func TestLiveCompareSim(t *testing.T) {
	t.Parallel()
	path := writeScenario(t, liveScenario)
	code, out, errOut := execute("live", "--scenario-file", path, "--compare-sim", "--format", "json", "--seed", "4")
	require.Equal(t, 0, code, errOut)
	var doc struct {
		Scenario string         `json:"scenario"`
		Seed     int64          `json:"seed"`
		Sim      map[string]any `json:"sim"`
		Live     map[string]any `json:"live"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	assert.Equal(t, "tiny-live", doc.Scenario)
	assert.Equal(t, int64(4), doc.Seed)
	for _, run := range []map[string]any{doc.Sim, doc.Live} {
		assert.Equal(t, 1.0, run["success_rate"])
		assert.Equal(t, 1.0, run["amplification"])
		assert.Equal(t, 0.0, run["retries"])
	}
}

// TestLiveTargetCredentials asserts that the user info of --target reaches the target as basic
// authentication, and that the password is never printed: not in the run's output, not in the
// error of a bad scheme or a dead target, not in the no-terminal hint (which shows "xxxxx").
func TestLiveTargetCredentials(t *testing.T) {
	t.Parallel()
	auth := make(chan string, 10000)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { auth <- r.Header.Get("Authorization") }))
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close())
	path := writeScenario(t, liveScenario)
	withUser := func(scheme, hostport string) string { return scheme + "://ann:hunter2@" + hostport + "/pay" }
	live := strings.TrimPrefix(srv.URL, "http://")

	code, out, errOut := execute("live", "--scenario-file", path, "--headless", "--format", "json", "--target", withUser("http", live))
	require.Equal(t, 0, code, errOut)
	close(auth)
	n := 0
	for a := range auth {
		assert.Equal(t, "Basic YW5uOmh1bnRlcjI=", a) // ann:hunter2
		n++
	}
	assert.Positive(t, n)
	assert.NotContains(t, out+errOut, "hunter2")

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--headless", "--target", withUser("ftp", live)}, 2, "ftp://ann:xxxxx@"},
		{[]string{"--headless", "--target", withUser("http", dead)}, 1, "http://ann:xxxxx@" + dead + "/pay is not reachable"},
		{[]string{"--headless", "--target", withUser("https", live)}, 2, "speaks plain HTTP, not TLS"},
		{[]string{"--target", withUser("http", live)}, 2, "--target http://ann:xxxxx@" + live + "/pay"},
	} {
		code, out, errOut := execute(append([]string{"live", "--scenario-file", path}, c.args...)...)
		assert.Equal(t, c.code, code, errOut)
		assert.Contains(t, errOut, c.want)
		assert.NotContains(t, out+errOut, "hunter2")
	}
}

// TestLiveInFlightCap asserts that arrivals refused at --max-inflight are counted apart
// (inflight_cap_refused, a row of the table) with one warning naming the flag and the cap, and
// that a run of the scenario's own load under the derived cap refuses none and warns nothing.
// The target takes 1 s an answer, so with --max-inflight 1 the first request holds the only
// slot while the others arrive.
func TestLiveInFlightCap(t *testing.T) {
	t.Parallel()
	slow := writeScenario(t, strings.Replace(liveScenario, `service_time = "5ms"`, `service_time = "1s"`, 1))
	cases := []struct {
		name    string
		args    []string
		refused bool
	}{
		{"json, cap 1", []string{"--format", "json", "--max-inflight", "1"}, true},
		{"table, cap 1", []string{"--format", "table", "--max-inflight", "1"}, true},
		{"json, derived cap", []string{"--format", "json"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := execute(append([]string{"live", "--scenario-file", slow, "--headless", "--strategy", "none"}, c.args...)...)
			require.Equal(t, 0, code, errOut)
			if !c.refused {
				assert.NotContains(t, out, "inflight_cap_refused")
				assert.NotContains(t, errOut, "in-flight cap")
				return
			}
			assert.Regexp(t, `warning: \d+ of \d+ arrivals were refused at the in-flight cap \(--max-inflight 1: requests alive at once\)`, errOut)
			assert.Equal(t, 1, strings.Count(errOut, "in-flight cap"), "one warning line")
			if c.args[1] == "table" {
				assert.Regexp(t, `(?m)^refused at the in-flight cap\s+[1-9]\d*`, out)
				return
			}
			var doc runDoc
			require.NoError(t, json.Unmarshal([]byte(out), &doc))
			assert.Positive(t, doc.Summary["inflight_cap_refused"])
			assert.GreaterOrEqual(t, doc.Summary["local_refusals"], doc.Summary["inflight_cap_refused"])
		})
	}
}
