package cortexhttp

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// Asserts the status table of the package doc at its edges: codes outside 100..599 are a
// misbehaving server (ServerError), 1xx is a success.
func TestClassifyStatus(t *testing.T) {
	tests := map[int]strategy.Outcome{
		0: strategy.ServerError, 99: strategy.ServerError, 100: strategy.Success, 101: strategy.Success,
		200: strategy.Success, 399: strategy.Success, 400: strategy.BadRequest, 408: strategy.Timeout,
		429: strategy.Throttled, 499: strategy.BadRequest, 500: strategy.ServerError,
		501: strategy.BadRequest, 503: strategy.FastFail, 599: strategy.ServerError,
		600: strategy.ServerError, 999: strategy.ServerError,
	}
	for code, want := range tests {
		assert.Equal(t, want, classifyStatus(code), "status %d", code)
	}
}

// Asserts the error classes: timeouts of every kind are Timeout, refused/reset/EOF/DNS and
// unknown errors are FastFail (retryable), certificate and malformed-request errors are
// permanent, also when wrapped as http.Client wraps them (*url.Error).
func TestClassifyError(t *testing.T) {
	wrap := func(err error) error { return &url.Error{Op: "Get", URL: "http://127.0.0.1:1", Err: err} }
	opErr := func(errno syscall.Errno) error {
		return &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: errno}}
	}
	tests := []struct {
		name      string
		err       error
		expired   bool
		want      strategy.Outcome
		permanent bool
	}{
		{"attempt expired", errors.New("whatever"), true, strategy.Timeout, false},
		{"ErrAttemptTimeout", wrap(ErrAttemptTimeout), false, strategy.Timeout, false},
		{"deadline", wrap(context.DeadlineExceeded), false, strategy.Timeout, false},
		{"os deadline", &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}, false, strategy.Timeout, false},
		{"refused", wrap(opErr(syscall.ECONNREFUSED)), false, strategy.FastFail, false},
		{"reset", wrap(opErr(syscall.ECONNRESET)), false, strategy.FastFail, false},
		{"EOF", wrap(io.EOF), false, strategy.FastFail, false},
		{"unexpected EOF", io.ErrUnexpectedEOF, false, strategy.FastFail, false},
		{"DNS", wrap(&net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}), false, strategy.FastFail, false},
		{"unknown", errors.New("something odd"), false, strategy.FastFail, false},
		{"unknown authority", wrap(x509.UnknownAuthorityError{}), false, strategy.BadRequest, true},
		{"hostname", wrap(x509.HostnameError{Certificate: &x509.Certificate{}, Host: "h"}), false, strategy.BadRequest, true},
		{"scheme", fmt.Errorf("unsupported protocol scheme %q", "ftp"), false, strategy.BadRequest, true},
		{"no host", wrap(errors.New("http: no Host in request URL")), false, strategy.BadRequest, true},
		{"header", errors.New(`net/http: invalid header field value for "X"`), false, strategy.BadRequest, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, permanent := classifyError(tc.err, tc.expired)
			assert.Equal(t, tc.want, o)
			assert.Equal(t, tc.permanent, permanent)
		})
	}
}

// Asserts Retry-After parsing (RFC 9110 10.2.3): delay-seconds, the three HTTP date formats
// measured from now, a past date as 0, and what is ignored (absent, empty, negative, fractions,
// words); a huge number saturates instead of overflowing.
func TestRetryAfterParse(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	later := now.Add(90 * time.Second)
	tests := []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"", 0, false},
		{"120", 120 * time.Second, true},
		{" 7 ", 7 * time.Second, true},
		{"0", 0, true},
		{"-1", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"99999999999999999999", 1<<63 - 1, true},
		{"9999999999999", 1<<63 - 1, true},
		{later.Format("Mon, 02 Jan 2006 15:04:05 GMT"), 90 * time.Second, true},
		{later.Format(time.RFC850), 90 * time.Second, true},
		{later.Format(time.ANSIC), 90 * time.Second, true},
		{now.Add(-time.Hour).Format("Mon, 02 Jan 2006 15:04:05 GMT"), 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.value, func(t *testing.T) {
			h := map[string][]string{}
			if tc.value != "" {
				h["Retry-After"] = []string{tc.value}
			}
			got, ok := retryAfter(h, engine.NewManualClock(now))
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

// Asserts which header names the config accepts.
func TestValidToken(t *testing.T) {
	for s, want := range map[string]bool{
		"X-Cortex-Priority": true, "priority": true, "X_P.1~": true,
		"": false, "X Priority": false, "X:P": false, "X\x00": false, "Prïority": false, "(p)": false,
	} {
		assert.Equal(t, want, validToken(s), "%q", s)
	}
}
