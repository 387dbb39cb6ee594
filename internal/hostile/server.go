// Package hostile is a set of misbehaving HTTP servers on loopback: servers that never answer,
// trickle their headers or bodies, send megabytes of headers, endless bodies, garbage, HTTP/0.9,
// malformed status lines, chunk sizes and content lengths, close or reset mid-answer, redirect
// forever or speak TLS where HTTP is expected. Each is a Behaviour run on the raw connection
// (net/http cannot misbehave this much), so live mode, its fault proxy and cortexhttp can be
// tested and measured against what a broken or hostile service really sends. Tests start one
// with Start; `go run ./internal/hostile/cmd/hostile NAME` serves one from the shell for
// measurements. Only tests and that command use this package.
package hostile

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Behaviour serves one accepted connection; the server closes the connection when it returns.
// It must return soon after the connection fails or the server closes (Conn.Sleep and the
// connection's errors say so).
type Behaviour func(c *Conn)

// Server is a TCP listener whose connections a Behaviour handles. Its methods are safe for
// concurrent use.
type Server struct {
	ln    net.Listener
	serve Behaviour

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
	done   chan struct{} // closed by Close: behaviours asleep wake up

	accepted, requests, written atomic.Int64
}

// Start serves b on a free port of 127.0.0.1 until Close.
func Start(b Behaviour) (*Server, error) { return Listen("127.0.0.1:0", b) }

// Listen serves b on addr (host:port) until Close.
func Listen(addr string, b Behaviour) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, serve: b, conns: map[net.Conn]struct{}{}, done: make(chan struct{})}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// accept hands every connection to the behaviour, each on its own goroutine.
func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = nc.Close()
			return
		}
		s.conns[nc] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		s.accepted.Add(1)
		go func() {
			defer s.wg.Done()
			c := &Conn{Conn: nc, br: bufio.NewReader(nc), s: s}
			s.serve(c)
			_ = nc.Close()
			s.mu.Lock()
			delete(s.conns, nc)
			s.mu.Unlock()
		}()
	}
}

// Addr returns the listening address, host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL returns http://ADDR/.
func (s *Server) URL() string { return "http://" + s.Addr() + "/" }

// Accepted returns the connections accepted so far.
func (s *Server) Accepted() int64 { return s.accepted.Load() }

// Requests returns the request heads read so far (Conn.ReadRequest).
func (s *Server) Requests() int64 { return s.requests.Load() }

// Open returns the connections open now.
func (s *Server) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Written returns the bytes written to every connection so far (those the kernel took).
func (s *Server) Written() int64 { return s.written.Load() }

// Close stops listening, closes every connection and waits for every behaviour to return.
// Closing twice is fine.
func (s *Server) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.done)
		_ = s.ln.Close()
		for c := range s.conns {
			_ = c.Close()
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// Conn is one accepted connection: reads go through a buffered reader, writes are counted in
// Server.Written.
type Conn struct {
	net.Conn
	br *bufio.Reader
	s  *Server
}

// maxRequestBody is how much of a request's body ReadRequest reads and discards.
const maxRequestBody = 1 << 20

// ReadRequest reads the next request's head (and discards its body, up to 1 MiB); nil when the
// connection ended or sent something that is not a request.
func (c *Conn) ReadRequest() *http.Request {
	req, err := http.ReadRequest(c.br)
	if err != nil {
		return nil
	}
	c.s.requests.Add(1)
	_, _ = io.Copy(io.Discard, io.LimitReader(req.Body, maxRequestBody))
	_ = req.Body.Close()
	return req
}

// Write writes b and counts what was written.
func (c *Conn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.s.written.Add(int64(n))
	return n, err
}

// WriteString writes s.
func (c *Conn) WriteString(s string) error {
	_, err := io.WriteString(c, s)
	return err
}

// Sleep waits d; false if the server closed meanwhile.
func (c *Conn) Sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.s.done:
		return false
	}
}

// Hold blocks until the peer closes the connection or the server closes, reading and
// discarding whatever the peer sends.
func (c *Conn) Hold() {
	_, _ = io.Copy(io.Discard, c.br)
}

// Reset closes the connection with a TCP reset (SO_LINGER 0) instead of a FIN.
func (c *Conn) Reset() {
	nc := c.Conn
	if u, ok := nc.(interface{ NetConn() net.Conn }); ok { // a TLS connection
		nc = u.NetConn()
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Conn.Close()
}
