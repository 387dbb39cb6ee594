package live

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ErrTargetURL is wrapped by every error about the --target URL itself (its scheme, host or
// port, or a scheme the target does not speak: https:// to a plain HTTP service, http:// to a
// TLS one): a usage error, which a different URL fixes.
var ErrTargetURL = errors.New("bad --target URL")

// targetError is an error about the --target URL.
type targetError struct{ msg string }

func (e *targetError) Error() string        { return e.msg }
func (e *targetError) Is(target error) bool { return target == ErrTargetURL }

// badTarget returns a targetError.
func badTarget(format string, a ...any) error { return &targetError{fmt.Sprintf(format, a...)} }

// ParseTarget parses a --target URL: http:// or https://, a host name or address, a port in
// 1..65535 if given, any path and query. User info (http://user:password@host/) is allowed:
// the fault proxy sends it to the target as HTTP basic authentication. Every error wraps
// ErrTargetURL and shows the URL with its password replaced by "xxxxx".
func ParseTarget(s string) (*url.URL, error) {
	if !strings.Contains(s, "://") && !strings.HasPrefix(s, "http:") && !strings.HasPrefix(s, "https:") {
		shown := strings.TrimPrefix(redactRaw("http://"+s), "http://")
		return nil, badTarget("--target %q has no scheme: did you mean http://%s?", shown, shown)
	}
	u, err := url.Parse(s)
	if err != nil {
		why := ""
		var ue *url.Error
		if errors.As(err, &ue) && !strings.Contains(s, "@") { // the parser's words may quote a password
			why = " (" + ue.Err.Error() + ")"
		}
		return nil, badTarget("--target %q is not a URL%s; want http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/api", redactRaw(s), why)
	}
	if err := checkTargetURL(u); err != nil {
		return nil, err
	}
	return u, nil
}

// checkTargetURL checks what ParseTarget checks on a parsed URL.
func checkTargetURL(u *url.URL) error {
	switch {
	case u == nil:
		return badTarget("--target: no URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return badTarget("--target %q: want an http:// or https:// URL, e.g. http://127.0.0.1:8080/api", u.Redacted())
	case u.Opaque != "" || u.Host == "":
		return badTarget("--target %q: no host; want http://HOST:PORT/PATH, e.g. http://127.0.0.1:8080/api", u.Redacted())
	case u.Hostname() == "":
		return badTarget("--target %q: no host name before the port (it would dial this machine by accident); write it, e.g. %s://127.0.0.1%s/", u.Redacted(), u.Scheme, u.Host)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return badTarget("--target %q: port %s is not in 1..65535", u.Redacted(), p)
		}
	}
	return nil
}

// dialAddr is the host:port a URL's service listens on: its port, or its scheme's.
func dialAddr(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// Timeouts of CheckTarget: the dial and, for https://, the TLS handshake; probeTimeout bounds
// the TLS probe of an http:// target.
const (
	checkTimeout = 3 * time.Second
	probeTimeout = time.Second
)

// CheckTarget checks a --target URL (as ParseTarget does) and connects to it once, so that
// what would fail every attempt is one clear error before the run instead of a run of failed
// attempts: a host that refuses connections or does not resolve, an https:// target that
// answers plain HTTP, an http:// target that speaks TLS (it sends one TLS hello, which a plain
// HTTP service answers 400 or closes), and a TLS certificate the proxy would not trust. A
// target that accepts the connection and then says nothing definite in time (it never
// answers, it closes) passes: its attempts will say what it does. Errors about the URL wrap
// ErrTargetURL; every error shows the URL with its password replaced by "xxxxx".
func CheckTarget(ctx context.Context, u *url.URL) error {
	if err := checkTargetURL(u); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	conn, err := dialTarget(ctx, u)
	if err != nil {
		return err
	}
	defer conn.Close()
	if u.Scheme != "https" {
		return probeTLS(ctx, conn, u)
	}
	if err := checkTLS(ctx, conn, u); err != errClosedHello {
		return err
	}
	return probeHTTP(ctx, u) // the hello got no answer: a plain HTTP server may close on garbage
}

// errClosedHello is checkTLS's answer for a target that closed or reset the connection on the
// TLS hello, which says nothing definite.
var errClosedHello = errors.New("the target closed the connection on the TLS hello")

// dialTarget connects to the target of u, or says that it is not reachable.
func dialTarget(ctx context.Context, u *url.URL) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", dialAddr(u))
	if err != nil {
		return nil, fmt.Errorf("--target %s is not reachable: %w", u.Redacted(), err)
	}
	return conn, nil
}

// checkTLS makes the TLS handshake the proxy would make with an https:// target.
func checkTLS(ctx context.Context, conn net.Conn, u *url.URL) error {
	err := tls.Client(conn, &tls.Config{ServerName: u.Hostname()}).HandshakeContext(ctx)
	if err == nil {
		return nil
	}
	plain := *u
	plain.Scheme = "http"
	var rec tls.RecordHeaderError
	var alert tls.AlertError
	switch {
	case errors.As(err, &rec) && strings.HasPrefix(string(rec.RecordHeader[:]), "HTTP/"):
		return badTarget("--target %s speaks plain HTTP, not TLS (it answered the TLS hello with an HTTP answer): use %s", u.Redacted(), plain.Redacted())
	case errors.As(err, &rec):
		return badTarget("--target %s does not speak TLS (it answered the TLS hello with %q): is it %s?", u.Redacted(), rec.RecordHeader[:], plain.Redacted())
	case untrusted(err):
		return fmt.Errorf("--target %s: its TLS certificate is not trusted, so every attempt would fail: %w", u.Redacted(), err)
	case errors.As(err, &alert):
		return fmt.Errorf("--target %s: the TLS handshake failed, so every attempt would fail: %w", u.Redacted(), err)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return nil // silent: nothing definite; the attempts will say
	}
	return errClosedHello
}

// probeHTTP sends "OPTIONS * HTTP/1.1" (a request for the server itself, which reaches no
// handler of a Go server and changes nothing anywhere) to an https:// target on a connection of
// its own: an HTTP answer means it speaks plain HTTP and https:// is the wrong scheme.
func probeHTTP(ctx context.Context, u *url.URL) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", dialAddr(u))
	if err != nil {
		return nil
	}
	defer conn.Close()
	dl, _ := ctx.Deadline()
	_ = conn.SetDeadline(dl)
	if _, err := io.WriteString(conn, "OPTIONS * HTTP/1.1\r\nHost: "+u.Host+"\r\nConnection: close\r\n\r\n"); err != nil {
		return nil
	}
	head := make([]byte, 5)
	if _, err := io.ReadFull(conn, head); err != nil || string(head) != "HTTP/" {
		return nil
	}
	plain := *u
	plain.Scheme = "http"
	return badTarget("--target %s speaks plain HTTP, not TLS (it closed on the TLS hello and answered a plain HTTP request): use %s", u.Redacted(), plain.Redacted())
}

// untrusted reports whether err is a certificate the client does not trust.
func untrusted(err error) bool {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
	)
	return errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid) || errors.As(err, &verify)
}

// probeTLS sends a TLS hello to an http:// target: a handshake that completes, or a TLS alert,
// means it speaks TLS and http:// is the wrong scheme.
func probeTLS(ctx context.Context, conn net.Conn, u *url.URL) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	// Only to learn whether the other end speaks TLS: nothing is sent over the connection.
	err := tls.Client(conn, &tls.Config{InsecureSkipVerify: true, ServerName: u.Hostname()}).HandshakeContext(ctx) //nolint:gosec
	var alert tls.AlertError
	if err == nil || errors.As(err, &alert) {
		secure := *u
		secure.Scheme = "https"
		return badTarget("--target %s speaks TLS, not plain HTTP (it answered a TLS hello): use %s", u.Redacted(), secure.Redacted())
	}
	return nil
}

// redactRaw replaces the password of a URL that does not parse by "xxxxx": everything between
// "://" and the last "@" before the query is user info.
func redactRaw(s string) string {
	start := strings.Index(s, "://")
	if start < 0 {
		return s
	}
	start += 3
	end := len(s)
	if i := strings.IndexAny(s[start:], "?#"); i >= 0 {
		end = start + i
	}
	at := strings.LastIndex(s[start:end], "@")
	if at < 0 {
		return s
	}
	user := s[start : start+at]
	if c := strings.Index(user, ":"); c >= 0 {
		user = user[:c] + ":xxxxx"
	}
	return s[:start] + user + s[start+at:]
}
