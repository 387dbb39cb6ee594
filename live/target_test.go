package live

import (
	"context"
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cortex-tui/cortex-tui/source"
)

// Asserts that ParseTarget takes http(s) URLs with a host name and a port in range (user info
// allowed) and refuses the rest as URL errors (ErrTargetURL) naming the problem, with the
// password never shown: a port out of range (":99999" as ":-1"), no host name before the port
// (which would dial this machine), another scheme, no host, a URL that does not parse.
func TestParseTarget(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"http://127.0.0.1:8080/api?x=1", "https://example.com", "http://[::1]:1/", "http://u:secret@host:65535/p"} {
		u, err := ParseTarget(ok)
		require.NoError(t, err, ok)
		assert.Equal(t, ok, u.String())
	}
	cases := []struct{ in, want string }{
		{"http://127.0.0.1:99999/", "port 99999 is not in 1..65535"},
		{"http://127.0.0.1:0/", "port 0 is not in 1..65535"},
		{"http://127.0.0.1:-1/", "is not a URL"},
		{"http://:8080/", "no host name before the port"},
		{"ftp://u:secret@host/", "want an http:// or https:// URL"},
		{"http:///path", "no host"},
		{"http:host", "no host"},
		{"http:/host", "no host"},
		{"127.0.0.1:8080", "has no scheme: did you mean http://127.0.0.1:8080?"},
		{"u:secret@127.0.0.1:8080", "has no scheme"},
		{"http://u:sec/ret@host:x/", "is not a URL"},
		{"http://u:secret@host:x/", "is not a URL"},
		{"http://u:secret@:8080/", "no host name"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			_, err := ParseTarget(c.in)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrTargetURL))
			assert.Contains(t, err.Error(), c.want)
			assert.NotContains(t, err.Error(), "secret")
			assert.NotContains(t, err.Error(), "sec/ret")
		})
	}
}

// Asserts that CheckTarget names, before any run, what would fail every attempt: an https://
// target that speaks plain HTTP (a Go server, which answers the TLS hello with a 400, and one
// that closes on it: a plain request then tells), an http:// target that speaks TLS, a
// certificate the proxy would not trust (not a URL error: the URL is right), a refused port;
// and that it lets pass a healthy target and one that accepts and never answers (its
// attempts will say so).
func TestCheckTarget(t *testing.T) {
	noLeaks(t)
	plainGo := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer plainGo.Close()
	tlsGo := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer tlsGo.Close()
	_, okU := hostileURL(t, "ok")
	_, tlsU := hostileURL(t, "tls")
	_, silentU := hostileURL(t, "silent")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	refused := "http://" + ln.Addr().String() + "/"
	require.NoError(t, ln.Close())
	swap := func(u string, scheme string) string { return scheme + "://" + u[strings.Index(u, "://")+3:] }

	cases := []struct {
		name, url string
		want      string // "" for no error
		urlErr    bool
	}{
		{"https to a Go plain server", swap(plainGo.URL, "https"), "speaks plain HTTP, not TLS", true},
		{"https to a server closing on the hello", swap(okU.String(), "https"), "speaks plain HTTP, not TLS", true},
		{"http to a Go TLS server", swap(tlsGo.URL, "http"), "speaks TLS, not plain HTTP", true},
		{"http to a TLS server", swap(tlsU.String(), "http"), "speaks TLS, not plain HTTP", true},
		{"untrusted certificate", swap(tlsU.String(), "https"), "certificate is not trusted", false},
		{"refused", refused, "is not reachable", false},
		{"healthy", okU.String(), "", false},
		{"silent over https", swap(silentU.String(), "https"), "", false},
		{"silent", silentU.String(), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, err := url.Parse(c.url)
			require.NoError(t, err)
			err = CheckTarget(context.Background(), u)
			if c.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Equal(t, c.urlErr, errors.Is(err, ErrTargetURL), err.Error())
		})
	}
}

// Asserts that the user info of a --target URL reaches the target as HTTP basic
// authentication on every attempt, and appears nowhere in what the run shows: not in the URL
// its clients send to, not in any event or snapshot text.
func TestTargetCredentials(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Header.Get("Authorization")]++
		mu.Unlock()
	}))
	defer srv.Close()
	u, err := ParseTarget("http://alice:s3cr%40t@" + strings.TrimPrefix(srv.URL, "http://") + "/pay")
	require.NoError(t, err)
	scn := small()
	scn.Duration, scn.Drain = 300*time.Millisecond, 200*time.Millisecond
	clk := manual()
	r := newRun(t, Config{Scenario: scn, Strategy: "none", Clock: clk, Stack: ExternalStack(u, DefaultDrainLimit)})
	assert.NotContains(t, r.stack.URL.String(), "s3cr")
	snaps := stepAll(t, r, clk)
	c := sum(snaps)
	require.Positive(t, c.Attempts)
	mu.Lock()
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:s3cr@t"))
	assert.Equal(t, map[string]int{want: c.Attempts}, seen, "every attempt authenticated")
	mu.Unlock()
	for _, s := range snaps {
		assert.NotContains(t, textOf(s), "s3cr")
	}
}

// textOf is every text a snapshot carries (note, events).
func textOf(s source.Snapshot) string {
	var b strings.Builder
	b.WriteString(s.Note)
	for _, e := range s.Events {
		b.WriteString(e.Text + e.Fault.Reason + "\n")
	}
	return b.String()
}
