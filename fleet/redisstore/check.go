package redisstore

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"
)

// ErrUnreachable is what Check's error matches (errors.Is) when Redis does not answer: nothing
// listens, the dial or the answer timed out, the host is unknown, no sentinel answers. A fleet
// can start without it (every engine LOCAL) and join once it answers.
var ErrUnreachable = errors.New("redis does not answer")

// unreachable is a Check error matching ErrUnreachable.
type unreachable struct {
	what string
	err  error
}

func (u *unreachable) Error() string        { return fmt.Sprintf("%s does not answer: %v", u.what, u.err) }
func (u *unreachable) Unwrap() error        { return u.err }
func (u *unreachable) Is(target error) bool { return target == ErrUnreachable }

// explain turns the error of a start-up check into one that names the mistake, or into an
// unreachable error when nothing is wrong but the server's absence. A probe of the other
// protocol (TLS or plain) may take up to probe.
func (c *Conn) explain(ctx context.Context, err error, probe time.Duration) error {
	what := fmt.Sprintf("%s at %s", c.Kind(), c.String())
	msg := err.Error()
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(msg, x) {
				return true
			}
		}
		return false
	}
	var cert *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var record tls.RecordHeaderError
	switch {
	case has("NOAUTH"):
		return fmt.Errorf("%s asks for a password (NOAUTH): give it in the URL (redis://USER:PASSWORD@HOST:PORT) or in $%s", what, PasswordEnv)
	case has("WRONGPASS"):
		return fmt.Errorf("%s refused the user or the password (WRONGPASS)", what)
	case has("without any password configured"):
		return fmt.Errorf("%s has no password, but one was given: %v", what, err)
	case has("NOPERM"):
		return fmt.Errorf("%s: the user may not run what a fleet needs (NOPERM; it needs EVALSHA, EVAL, PING, EXISTS on cortex:* keys): %v", what, err)
	case has("DB index is out of range", "invalid DB index"):
		return fmt.Errorf("%s has no database %d (%v)", what, c.DB, err)
	case has("SELECT is not allowed in cluster mode"), has("MOVED ", "CROSSSLOT"):
		return fmt.Errorf("%s is a Redis Cluster: add ?cluster=1 to the URL (%v)", what, err)
	case has("cluster support disabled"):
		return fmt.Errorf("%s is not a Redis Cluster: drop cluster=1 and addr= from the URL (%v)", what, err)
	case has("unknown command 'sentinel'", "ERR unknown command `sentinel`"):
		return fmt.Errorf("%s: the addresses are not sentinels (%v)", what, err)
	case errors.As(err, &cert), errors.As(err, &unknownCA), errors.As(err, &hostname), has("x509:", "certificate"):
		return fmt.Errorf("%s: TLS certificate not trusted (%v); give its CA with ?ca=FILE", what, err)
	case errors.As(err, &record), has("first record does not look like a TLS handshake"):
		return fmt.Errorf("%s does not speak TLS (rediss:// to a plain port): use redis:// (%v)", what, err)
	}
	if c.TLS != nil && timedOut(err) && speaksPlain(ctx, c.Addrs[0], probe) {
		return fmt.Errorf("%s speaks plain Redis, not TLS (rediss:// to a plain port): use redis://", what)
	}
	if c.TLS == nil && (errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || has("EOF", "connection reset")) {
		if speaksTLS(ctx, c.Addrs[0], probe) {
			return fmt.Errorf("%s expects TLS (redis:// to a TLS port): use rediss://", what)
		}
	}
	return &unreachable{what: what, err: err}
}

// timedOut reports whether err is a timeout.
func timedOut(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) || strings.Contains(err.Error(), "timeout")
}

// minProbe is the least time a probe of the other protocol may take: the store's timeout when
// it is longer.
const minProbe = time.Second

// speaksPlain reports whether addr answers a plain-text PING as Redis does (+PONG, or an error
// such as -NOAUTH) within probe.
func speaksPlain(ctx context.Context, addr string, probe time.Duration) bool {
	d := net.Dialer{Timeout: probe}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(probe))
	if _, err := io.WriteString(conn, "PING\r\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	return err == nil && (strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-"))
}

// speaksTLS reports whether addr completes a TLS handshake (its certificate unchecked: this
// only tells the protocol, and nothing is sent after it) within probe.
func speaksTLS(ctx context.Context, addr string, probe time.Duration) bool {
	d := tls.Dialer{NetDialer: &net.Dialer{Timeout: probe}, Config: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}} //nolint:gosec // a protocol probe, nothing is sent
	c, cancel := context.WithTimeout(ctx, probe)
	defer cancel()
	conn, err := d.DialContext(c, "tcp", addr)
	if err != nil {
		return false
	}
	_ = conn.Close()
	return true
}
