package cortexhttp

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cortex-tui/cortex-tui/engine"
	"github.com/cortex-tui/cortex-tui/strategy"
)

// classifyStatus is the outcome of an attempt that got a response with this status code (the
// table in the package doc).
func classifyStatus(code int) strategy.Outcome {
	switch {
	case code >= 100 && code < 400:
		return strategy.Success
	case code == http.StatusRequestTimeout:
		return strategy.Timeout
	case code == http.StatusTooManyRequests:
		return strategy.Throttled
	case code == http.StatusServiceUnavailable:
		return strategy.FastFail
	case code == http.StatusNotImplemented:
		return strategy.BadRequest
	case code >= 400 && code < 500:
		return strategy.BadRequest
	default: // 5xx, and codes outside 100..599: the server is misbehaving
		return strategy.ServerError
	}
}

// classifyError is the outcome of an attempt that ended in err, the request's own context
// being still alive (the caller checks that first). attemptExpired reports that the attempt's
// own timeout (Config.AttemptTimeout) ran out. permanent is true for an error that no retry
// can cure and that says nothing about the service: it is neither recorded nor retried.
func classifyError(err error, attemptExpired bool) (o strategy.Outcome, permanent bool) {
	if attemptExpired || isTimeout(err) {
		return strategy.Timeout, false
	}
	if isPermanent(err) {
		return strategy.BadRequest, true
	}
	// Refused, reset, broken pipe, EOF on a closed connection, DNS failures, a proxy's error,
	// and errors we cannot name: retryable, as in go-retryablehttp and failsafe-go.
	return strategy.FastFail, false
}

// isTimeout reports whether err is a timeout: a deadline exceeded, or a net.Error that says so
// (dial and TLS handshake timeouts, http.Transport's ResponseHeaderTimeout).
func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// permanentMessages are the texts of net/http's untyped errors for a request that can never be
// sent: a bad scheme, URL, method or header. go-retryablehttp matches the same way.
var permanentMessages = []string{
	"unsupported protocol scheme",
	"no Host in request URL",
	"nil Request.URL",
	"nil Request.Header",
	"invalid method",
	"invalid header field",
	"invalid trailer field",
}

// isPermanent reports whether err is one that a retry cannot cure: a certificate the client
// does not trust, a server that does not speak TLS, or a request net/http refuses to send.
func isPermanent(err error) bool {
	var recordHeader tls.RecordHeaderError
	return isCertificate(err) || errors.As(err, &recordHeader) || containsAny(err.Error(), permanentMessages)
}

// retryAfter parses the Retry-After header of h (RFC 9110 10.2.3): delay-seconds, or an HTTP
// date measured from clk's now, read only then (a date in the past is 0). ok is false when the
// header is absent or unparsable (negative seconds included), in which case it is ignored.
func retryAfter(h http.Header, clk engine.Clock) (d time.Duration, ok bool) {
	v := h["Retry-After"]
	if len(v) == 0 {
		return 0, false
	}
	s := strings.TrimSpace(v[0])
	if s == "" {
		return 0, false
	}
	if s[0] >= '0' && s[0] <= '9' {
		secs, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			if errors.Is(err, strconv.ErrRange) {
				return time.Duration(1<<63 - 1), true // absurdly long: the cap applies
			}
			return 0, false
		}
		if secs > int64((1<<63-1)/time.Second) {
			return time.Duration(1<<63 - 1), true
		}
		return time.Duration(secs) * time.Second, true
	}
	at, err := http.ParseTime(s)
	if err != nil {
		return 0, false
	}
	return max(at.Sub(clk.Now()), 0), true
}
