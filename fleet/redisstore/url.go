package redisstore

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
)

// PasswordEnv is the environment variable a password is read from when the URL has none, so
// that it appears in no command line, process list or shell history.
const PasswordEnv = "CORTEX_FLEET_PASSWORD"

// Conn is where a fleet meets: one Redis, a Redis Cluster or a Sentinel-watched master, with
// its credentials and TLS. Build it with ParseURL; String never shows the password.
type Conn struct {
	Addrs    []string // host:port of the server, of the cluster's seeds or of the sentinels
	Username string   // ACL user ("": default)
	Password string   // never printed
	DB       int      // database number (standalone and Sentinel only)
	Cluster  bool     // a Redis Cluster: Addrs are seeds
	Master   string   // a Sentinel master name: Addrs are sentinels
	TLS      *tls.Config
	shown    string // the URL without its password
}

// ParseURL reads a fleet's Redis URL:
//
//	redis://[USER[:PASSWORD]@]HOST[:PORT][/DB][?addr=HOST:PORT&addr=...&cluster=1&master=NAME&ca=FILE]
//
// rediss:// is TLS, verified against the system's roots or the CA certificates of ca=FILE
// (PEM). addr= adds seeds (Cluster) or sentinels (with master=NAME); cluster=1 is a Redis
// Cluster even with one seed; two addresses or more without master= are a Cluster too. The
// password comes from the URL or, when it has none, from getenv(PasswordEnv) (nil: os.Getenv).
// Every error names what is wrong and never holds the password.
func ParseURL(raw string, getenv func(string) string) (*Conn, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("not a URL: %s", redact(strings.TrimPrefix(err.Error(), "parse "), passwordIn(raw)))
	}
	c := &Conn{}
	if u.User != nil {
		c.Username = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	if c.Password == "" {
		c.Password = getenv(PasswordEnv)
	}
	shown := *u
	if u.User != nil {
		shown.User = url.User(u.User.Username())
		if c.Username == "" {
			shown.User = nil
		}
	}
	c.shown = shown.String()
	switch u.Scheme {
	case "redis":
	case "rediss":
		c.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	default:
		return nil, fmt.Errorf("%s: the scheme must be redis:// or rediss:// (TLS), not %q", c.shown, u.Scheme)
	}
	addr, err := hostPort(u.Host)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.shown, err)
	}
	c.Addrs = []string{addr}
	if p := strings.Trim(u.Path, "/"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || strconv.Itoa(n) != p {
			return nil, fmt.Errorf("%s: the database must be a number from 0, as in /0 (got %q)", c.shown, p)
		}
		c.DB = n
	}
	q := u.Query()
	for k := range q {
		switch k {
		case "addr", "cluster", "master", "ca":
		default:
			return nil, fmt.Errorf("%s: unknown parameter %q (known: addr, cluster, master, ca)", c.shown, k)
		}
	}
	for _, a := range q["addr"] {
		a, err := hostPort(a)
		if err != nil {
			return nil, fmt.Errorf("%s: addr: %w", c.shown, err)
		}
		c.Addrs = append(c.Addrs, a)
	}
	switch v := q.Get("cluster"); v {
	case "", "0", "false":
	case "1", "true":
		c.Cluster = true
	default:
		return nil, fmt.Errorf("%s: cluster must be 1 or 0 (got %q)", c.shown, v)
	}
	c.Master = q.Get("master")
	if c.Master != "" && c.Cluster {
		return nil, fmt.Errorf("%s: master= (Sentinel) and cluster=1 exclude each other", c.shown)
	}
	if c.Master == "" && len(c.Addrs) > 1 {
		c.Cluster = true
	}
	if c.Cluster && c.DB != 0 {
		return nil, fmt.Errorf("%s: a Redis Cluster has database 0 only (got /%d)", c.shown, c.DB)
	}
	if ca := q.Get("ca"); ca != "" {
		if c.TLS == nil {
			return nil, fmt.Errorf("%s: ca= needs rediss:// (TLS)", c.shown)
		}
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, fmt.Errorf("%s: ca: %w", c.shown, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: ca: %s holds no PEM certificate", c.shown, ca)
		}
		c.TLS.RootCAs = pool
	}
	return c, nil
}

// passwordIn returns the password of a URL that may not parse: what stands between the
// user's ':' and the '@' after "://" ("" when there is none).
func passwordIn(raw string) string {
	_, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return ""
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return ""
	}
	_, pw, ok := strings.Cut(rest[:at], ":")
	if !ok {
		return ""
	}
	return pw
}

// hostPort checks HOST[:PORT] and returns host:port (6379 by default).
func hostPort(s string) (string, error) {
	host, port := s, "6379"
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	} else if strings.Count(s, ":") == 1 {
		return "", fmt.Errorf("bad address %q", s)
	}
	if host == "" {
		return "", fmt.Errorf("no host in %q", s)
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("the port must be a number from 1 to 65535 (got %q)", port)
	}
	return net.JoinHostPort(host, port), nil
}

// String returns the URL without its password.
func (c *Conn) String() string { return c.shown }

// Kind names the kind of server: "Redis", "Redis Cluster" or "Sentinel master NAME".
func (c *Conn) Kind() string {
	switch {
	case c.Cluster:
		return "Redis Cluster"
	case c.Master != "":
		return "Sentinel master " + c.Master
	}
	return "Redis"
}

// client returns go-redis's universal client for c: every dial, read and write bounded by
// timeout, and at most one retry inside a call, at once, within the caller's deadline (a
// pooled connection to a server that restarted fails once, and the retry takes another); a
// Redis that does not answer fails the sync, which the next tick tries again. It speaks RESP2:
// with RESP3, go-redis's pool reads any bytes waiting on an idle connection (a late reply after a
// stall, a TLS 1.3 session ticket) as a possible push notification, through the TLS connection
// and with no deadline, so a sync could wait for ever; with RESP2 such a connection is closed
// and another taken. The fleet's script answers the same in both.
func (c *Conn) client(timeout time.Duration) redis.UniversalClient {
	return redis.NewUniversalClient(&redis.UniversalOptions{
		Protocol: 2,
		Addrs:    c.Addrs, Username: c.Username, Password: c.Password, DB: c.DB,
		MasterName: c.Master, IsClusterMode: c.Cluster, Dialer: c.dialer(timeout),
		DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout,
		ContextTimeoutEnabled: true, MaxRetries: 1, MinRetryBackoff: -1, MaxRetryBackoff: -1, MaxRedirects: 3,
		PoolSize: 4, DisableIdentity: true,
	})
}

// dialer dials addr, with TLS when c has it (verifying the name of the host dialled unless the
// configuration names another). A TLS connection keeps its socket reachable (checkedTLS), so
// that go-redis's pool can tell, before using it, that the server closed it.
func (c *Conn) dialer(timeout time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := net.Dialer{Timeout: timeout, KeepAlive: 5 * time.Minute}
		raw, err := d.DialContext(ctx, network, addr)
		if err != nil || c.TLS == nil {
			return raw, err
		}
		tc := c.TLS.Clone()
		if tc.ServerName == "" {
			tc.ServerName, _, _ = net.SplitHostPort(addr)
		}
		conn := tls.Client(raw, tc)
		hs, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if err := conn.HandshakeContext(hs); err != nil {
			_ = raw.Close()
			return nil, err
		}
		sc, ok := raw.(syscall.Conn)
		if !ok {
			return conn, nil
		}
		return &checkedTLS{Conn: conn, raw: sc}, nil
	}
}

// checkedTLS is a TLS connection whose socket go-redis's pool may peek at (syscall.Conn) to see
// that the peer closed it, which it cannot do through a *tls.Conn.
type checkedTLS struct {
	*tls.Conn
	raw syscall.Conn
}

// SyscallConn returns the socket under the TLS connection.
func (c *checkedTLS) SyscallConn() (syscall.RawConn, error) { return c.raw.SyscallConn() }

// redact replaces every occurrence of secret in s.
func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "xxxxx")
}

// redacted is an error whose text has the password taken out; Unwrap keeps the cause for
// errors.Is and errors.As.
type redacted struct {
	err error
	msg string
}

func (r *redacted) Error() string { return r.msg }
func (r *redacted) Unwrap() error { return r.err }

// redactErr returns err with secret taken out of its text (nil for nil).
func redactErr(err error, secret string) error {
	if err == nil || secret == "" || !strings.Contains(err.Error(), secret) {
		return err
	}
	return &redacted{err: err, msg: redact(err.Error(), secret)}
}
