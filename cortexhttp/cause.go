package cortexhttp

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
)

// Cause says what an attempt met, finer than its Outcome: what the server or the network did
// (a refused connection, headers over the limit, a malformed answer, a redirect...). Strategies
// see only the Outcome; Cause is for logs and dashboards (Attempt.Cause), and ErrorCause names
// the cause of any error net/http returns, for a proxy or a caller reading a body. The words are
// stable: a proxy may pass them on in a header.
type Cause string

// The causes, the first that applies. An attempt answered 1xx or 2xx has none.
const (
	CauseNone        Cause = ""                 // a 1xx or 2xx answer, or nothing was sent
	CauseTimeout     Cause = "timeout"          // no answer in time: the attempt's timeout, the deadline, a dial, TLS handshake or header timeout, a 408
	CauseOversize    Cause = "oversize-headers" // the answer's headers passed the base transport's limit (http.Transport.MaxResponseHeaderBytes)
	CauseTLS         Cause = "tls"              // TLS failed: a certificate not trusted, a handshake refused, an answer that is not TLS
	CauseMalformed   Cause = "malformed"        // not a valid HTTP answer: garbage, HTTP/0.9, a bad status line, header, length or transfer coding
	CauseRefused     Cause = "refused"          // the connection was refused: nothing listens (down, crashed)
	CauseReset       Cause = "reset"            // the connection was reset, or closed before a whole answer
	CauseUnreachable Cause = "unreachable"      // the host does not resolve, or there is no route to it
	CauseRequest     Cause = "request"          // the request cannot be sent as it is (a scheme or header net/http refuses): not the server's doing
	CauseRedirect    Cause = "redirect"         // a redirect (301, 302, 303, 307, 308, those http.Client follows): the transport does not follow it
	CauseUnavailable Cause = "unavailable"      // 503
	CauseThrottled   Cause = "throttled"        // 429
	CauseServerError Cause = "server-error"     // another 5xx, or a status outside 100..599
	CauseClientError Cause = "client-error"     // another 4xx
	CauseOther       Cause = "other"            // an error none of the above names
)

// Causes lists every cause but CauseNone, in the order ErrorCause and StatusCause try them.
var Causes = []Cause{CauseTimeout, CauseOversize, CauseTLS, CauseMalformed, CauseRefused, CauseReset,
	CauseUnreachable, CauseRequest, CauseRedirect, CauseUnavailable, CauseThrottled, CauseServerError,
	CauseClientError, CauseOther}

// StatusCause is the cause of an answer with status code: CauseNone for 1xx, 2xx and the 3xx
// that are not redirects (304 Not Modified, 300 Multiple Choices).
func StatusCause(code int) Cause {
	switch {
	case code >= 100 && code < 400:
		switch code {
		case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
			http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			return CauseRedirect
		}
		return CauseNone
	case code == http.StatusRequestTimeout:
		return CauseTimeout
	case code == http.StatusTooManyRequests:
		return CauseThrottled
	case code == http.StatusServiceUnavailable:
		return CauseUnavailable
	case code >= 400 && code < 500:
		return CauseClientError
	default:
		return CauseServerError
	}
}

// malformedMessages are the texts of net/http's untyped errors for an answer that is not valid
// HTTP (its status line, headers, length, transfer coding or chunks).
var malformedMessages = []string{
	"malformed HTTP", // response, status code, version
	"malformed MIME header",
	"cannot contain multiple Content-Length",
	"bad Content-Length",
	"invalid Content-Length",
	"unsupported transfer encoding",
	"too many transfer encodings",
	"invalid byte in chunk length",
	"chunk length too large",
	"malformed chunked encoding",
	"too many 1xx informational responses",
	"suspiciously long trailer",
}

// ErrorCause is the cause of an error from an http.RoundTripper (or from reading a response
// body): nil is CauseNone; a timeout, headers over the limit, a TLS failure, a malformed answer,
// a refused, reset or closed connection, an unreachable host, a request net/http refuses to
// send; CauseOther for anything else.
func ErrorCause(err error) Cause {
	if err == nil {
		return CauseNone
	}
	if isTimeout(err) {
		return CauseTimeout
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "server response headers exceeded"):
		return CauseOversize
	case isTLS(err):
		return CauseTLS
	case containsAny(msg, malformedMessages):
		return CauseMalformed
	case errors.Is(err, syscall.ECONNREFUSED):
		return CauseRefused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNABORTED),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		strings.Contains(msg, "server closed idle connection"):
		return CauseReset
	case isUnreachable(err):
		return CauseUnreachable
	case containsAny(msg, permanentMessages):
		return CauseRequest
	}
	return CauseOther
}

// containsAny reports whether s contains one of subs.
func containsAny(s string, subs []string) bool {
	for _, m := range subs {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// isTLS reports whether err is a TLS failure: a certificate the client does not trust, an alert
// from the server, or an answer that is not TLS.
func isTLS(err error) bool {
	var (
		alert  tls.AlertError
		record tls.RecordHeaderError
	)
	return isCertificate(err) || errors.As(err, &alert) || errors.As(err, &record) ||
		strings.Contains(err.Error(), "tls: ")
}

// isCertificate reports whether err is a certificate the client does not trust.
func isCertificate(err error) bool {
	var (
		unknownAuthority x509.UnknownAuthorityError
		hostname         x509.HostnameError
		invalid          x509.CertificateInvalidError
		verification     *tls.CertificateVerificationError
	)
	return errors.As(err, &unknownAuthority) || errors.As(err, &hostname) || errors.As(err, &invalid) ||
		errors.As(err, &verification)
}

// isUnreachable reports whether err says the host cannot be reached: a name that does not
// resolve, no route to the host or its network.
func isUnreachable(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns) || errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)
}
