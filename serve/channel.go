package serve

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// What a connection may do before it has a session: how long its handshake may take, and how
// many connections may be open at once beyond the sessions (a scan, clients trying keys).
const (
	handshakeTimeout = 30 * time.Second
	extraConns       = 16
	maxChannels      = 4 // session channels at once on one connection (ssh -o ControlMaster)
)

// connKey keys a connection's *limitedConn in its ssh.Context.
type connKey struct{}

// limitedConn is a client's connection: until its first channel it must finish the SSH
// handshake by a deadline (the library's own deadlines, pushed back by every byte, would let
// a client hold the connection by sending a byte now and then); it counts its channels and
// gives its place back when it closes. It is safe for concurrent use.
type limitedConn struct {
	net.Conn
	mu       sync.Mutex
	deadline time.Time // the handshake's; zero once it is over
	channels int
	release  func() // gives the connection's place back, once
}

// SetDeadline keeps the handshake's deadline while the handshake lasts.
func (c *limitedConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	if !c.deadline.IsZero() && (t.IsZero() || t.After(c.deadline)) {
		t = c.deadline
	}
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

// Close closes the connection and gives its place back.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// openChannel counts a new session channel: the handshake is over. It reports false when the
// connection already has maxChannels.
func (c *limitedConn) openChannel() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.channels >= maxChannels {
		return false
	}
	c.channels++
	if !c.deadline.IsZero() {
		c.deadline = time.Time{}
		_ = c.Conn.SetDeadline(time.Time{})
	}
	return true
}

// closeChannel counts a session channel closed.
func (c *limitedConn) closeChannel() {
	c.mu.Lock()
	c.channels--
	c.mu.Unlock()
}

// acceptConn is the server's ConnCallback: it refuses a connection past the limit (the
// sessions plus extraConns) and wraps the others.
func (s *Server) acceptConn(ctx ssh.Context, conn net.Conn) net.Conn {
	s.mu.Lock()
	if s.conns >= s.cfg.MaxSessions+extraConns || s.closing {
		s.mu.Unlock()
		s.logf("refused a connection from %s: %d connections open", conn.RemoteAddr(), s.cfg.MaxSessions+extraConns)
		return nil
	}
	s.conns++
	s.mu.Unlock()
	var once sync.Once
	lc := &limitedConn{Conn: conn, deadline: time.Now().Add(handshakeTimeout), release: func() {
		once.Do(func() {
			s.mu.Lock()
			s.conns--
			s.mu.Unlock()
		})
	}}
	_ = conn.SetDeadline(lc.deadline)
	ctx.SetValue(connKey{}, lc)
	return lc
}

// sessionChannel is the server's only channel handler: a session channel (no port forwarding,
// no other channel type), at most maxChannels a connection, whose requests pass filterRequests.
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, newChan gossh.NewChannel, ctx ssh.Context) {
	lc, _ := ctx.Value(connKey{}).(*limitedConn)
	if lc == nil || !lc.openChannel() {
		_ = newChan.Reject(gossh.ResourceShortage, "too many sessions on this connection")
		return
	}
	defer lc.closeChannel()
	ssh.DefaultSessionHandler(srv, conn, filteredChannel{newChan}, ctx)
}

// filteredChannel is a session channel whose requests pass filterRequests.
type filteredChannel struct{ gossh.NewChannel }

// Accept accepts the channel and filters its requests.
func (c filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := c.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go filterRequests(reqs, out)
	return ch, out, nil
}

// filterRequests passes a session's requests on, refusing at once what the server never does
// (agent and X11 forwarding) and the environment past maxEnv variables or maxEnvBytes each,
// which the library would otherwise keep without bound. It ends when the channel does.
func filterRequests(in <-chan *gossh.Request, out chan<- *gossh.Request) {
	defer close(out)
	env := 0
	for req := range in {
		switch req.Type {
		case "auth-agent-req@openssh.com", "x11-req":
			_ = req.Reply(false, nil)
			continue
		case "env":
			if env >= maxEnv || len(req.Payload) > maxEnvBytes {
				_ = req.Reply(false, nil)
				continue
			}
			env++
		}
		out <- req
	}
}

// errRefused is a session the server will not serve.
var errRefused = errors.New("refused")
