package hostile

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Named is a behaviour of the catalog: its name, what it does, its kind and how it serves.
type Named struct {
	Name string
	Doc  string
	// Kind groups the catalog: "slow" (never answers, trickles), "flood" (large headers or
	// bodies), "broken" (garbage, closes, resets), "odd" (Retry-After, redirects, TLS),
	// "malformed" (the table of malformed responses).
	Kind  string
	Serve Behaviour
	// Answer is the bytes a behaviour that answers every request with the same raw bytes
	// sends (the table of malformed answers, for a fuzz target's seeds); "" for the others.
	Answer string
}

// raw is a catalog entry that answers every request with answer (Raw).
func raw(name, doc, kind, answer string, closeAfter bool) Named {
	return Named{Name: name, Doc: doc, Kind: kind, Serve: Raw(answer, closeAfter), Answer: answer}
}

// trickle is the pace of the slow behaviours: one byte (or one header line) per tick.
const trickle = 10 * time.Millisecond

// Catalog is every named behaviour, grouped by kind.
var Catalog = []Named{
	{"silent", "reads the request and never answers", "slow", Silent, ""},
	{"slow-headers", "sends the status line, then one header byte every 10 ms, never ending the head (slowloris)", "slow", SlowHeaders, ""},
	{"slow-body", "announces a 1 GiB body, then sends one byte of it every 10 ms", "slow", SlowBody, ""},
	{"headers-1m-slow", "sends 1 MiB of headers in 1 KiB lines, one line every 10 ms", "slow", Headers(1<<20, trickle), ""},
	{"headers-2m", "sends 2 MiB of headers (1 KiB lines) at full speed, then an empty body", "flood", Headers(2<<20, 0), ""},
	{"headers-4m", "sends 4 MiB of headers at full speed", "flood", Headers(4<<20, 0), ""},
	{"headers-8m", "sends 8 MiB of headers at full speed", "flood", Headers(8<<20, 0), ""},
	{"huge-header-line", "sends one 8 MiB header line", "flood", HugeHeaderLine(8 << 20), ""},
	{"big-body", "answers 200 with a 100 MB body, as fast as the client reads", "flood", BigBody(100_000_000), ""},
	{"endless-body", "answers 200 with a chunked body that never ends", "flood", EndlessBody, ""},
	{"garbage", "answers 64 KiB of random bytes, then closes", "broken", Garbage(64 << 10), ""},
	raw("http09", "answers as HTTP/0.9: a body with no status line and no headers, then closes", "broken", "<html>hello from 1991</html>\n", true),
	raw("mid-close", "sends the status line and half a header, then closes", "broken", "HTTP/1.1 200 OK\r\nContent-Ty", true),
	{"close", "reads the request, then closes without a byte", "broken", Close, ""},
	{"reset", "reads the request, then resets the connection (RST)", "broken", Reset, ""},
	{"reset-on-accept", "resets every connection at once, before the request", "broken", ResetOnAccept, ""},
	raw("retry-after", "answers 503 with Retry-After: 99999999999999999999 (an absurd delay)", "odd", "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 99999999999999999999\r\nContent-Length: 0\r\n\r\n", false),
	raw("retry-after-date", "answers 429 with a Retry-After date in the year 9999", "odd", "HTTP/1.1 429 Too Many Requests\r\nRetry-After: Fri, 31 Dec 9999 23:59:59 GMT\r\nContent-Length: 0\r\n\r\n", false),
	{"redirect-loop", "answers 302 to the same URL, forever", "odd", RedirectLoop, ""},
	raw("redirect-away", "answers 301 to another host (192.0.2.1, which nothing should ever contact)", "odd", "HTTP/1.1 301 Moved Permanently\r\nLocation: http://192.0.2.1/\r\nContent-Length: 0\r\n\r\n", false),
	{"ok", "a plain HTTP/1.1 server answering 200 ok to every request", "odd", OK, ""},
	{"tls", "a TLS server (a self-signed certificate) answering 200 ok", "odd", TLS(OK), ""},
	raw("bad-status-line", "answers HTTP/1.1 2OO OK (letters in the code)", "malformed", "HTTP/1.1 2OO OK\r\nContent-Length: 0\r\n\r\n", true),
	raw("status-999", "answers HTTP/1.1 999 (a code outside 100..599)", "malformed", "HTTP/1.1 999 Odd\r\nContent-Length: 0\r\n\r\n", false),
	raw("no-version", "answers a status line without a protocol version", "malformed", "200 OK\r\nContent-Length: 0\r\n\r\n", true),
	raw("folded-header", "folds a header over two lines (obsolete line folding)", "malformed", "HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 2\r\n\r\nok", false),
	raw("header-no-colon", "sends a header line without a colon", "malformed", "HTTP/1.1 200 OK\r\nNoColonHere\r\nContent-Length: 2\r\n\r\nok", true),
	raw("nul-header", "sends a NUL byte inside a header value", "malformed", "HTTP/1.1 200 OK\r\nX-Nul: a\x00b\r\nContent-Length: 2\r\n\r\nok", true),
	raw("bad-chunk-size", "a chunked body whose chunk size is not hexadecimal", "malformed", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", true),
	raw("chunk-overflow", "a chunked body whose chunk size overflows 64 bits", "malformed", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\nhello\r\n", true),
	raw("chunk-no-end", "a chunked body closed before its last chunk", "malformed", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", true),
	raw("cl-short", "announces Content-Length 1000, sends 10 bytes and closes (a length that lies)", "malformed", "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789", true),
	raw("cl-long", "announces Content-Length 5 and sends 100 bytes on a kept-alive connection", "malformed", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"+strings.Repeat("x", 100), false),
	raw("cl-conflict", "sends two different Content-Length headers", "malformed", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok", true),
	raw("cl-negative", "sends Content-Length: -5", "malformed", "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nok", true),
	raw("cl-huge", "sends a Content-Length that overflows 64 bits", "malformed", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\nok", true),
	raw("te-and-cl", "sends both Transfer-Encoding: chunked and a Content-Length", "malformed", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 100\r\n\r\n2\r\nok\r\n0\r\n\r\n", false),
	raw("bad-te", "sends Transfer-Encoding: gzip, chunked, gzip (an unsupported coding)", "malformed", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked, gzip\r\n\r\n2\r\nok\r\n0\r\n\r\n", true),
	{"1xx-flood", "sends 103 Early Hints answers forever, never the final answer", "malformed", InfoFlood, ""},
	raw("lf-only", "ends its lines with LF alone, not CRLF", "malformed", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", false),
	raw("empty-status", "sends an empty line where the status line should be", "malformed", "\r\n\r\n", true),
}

// Lookup returns the behaviour of the catalog called name.
func Lookup(name string) (Named, bool) {
	for _, n := range Catalog {
		if n.Name == name {
			return n, true
		}
	}
	return Named{}, false
}

// serveRequests calls answer for every request the connection sends, until it ends, answer
// fails, or the server closes.
func serveRequests(c *Conn, answer func(c *Conn) bool) {
	for c.ReadRequest() != nil {
		if !answer(c) {
			return
		}
	}
}

// Silent reads the request and never answers.
func Silent(c *Conn) {
	if c.ReadRequest() != nil {
		c.Hold()
	}
}

// SlowHeaders sends the status line, then a header byte every 10 ms, forever.
func SlowHeaders(c *Conn) {
	if c.ReadRequest() == nil || c.WriteString("HTTP/1.1 200 OK\r\nX-Slow: ") != nil {
		return
	}
	for c.Sleep(trickle) {
		if c.WriteString("a") != nil {
			return
		}
	}
}

// SlowBody announces a 1 GiB body, then sends a byte of it every 10 ms.
func SlowBody(c *Conn) {
	if c.ReadRequest() == nil || c.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 1073741824\r\n\r\n") != nil {
		return
	}
	for c.Sleep(trickle) {
		if c.WriteString("a") != nil {
			return
		}
	}
}

// headerLine is one 1 KiB header line of the header floods.
var headerLine = []byte("X-Flood: " + strings.Repeat("f", 1024-len("X-Flood: \r\n")) + "\r\n")

// The floods write byte slices made once: a string written to a connection is copied first.

// Headers returns a behaviour that answers each request with size bytes of headers in 1 KiB
// lines (one line every pace; 0: at full speed), then an empty body.
func Headers(size int, pace time.Duration) Behaviour {
	block := bytes.Repeat(headerLine, 64) // 64 KiB
	return func(c *Conn) {
		serveRequests(c, func(c *Conn) bool {
			if c.WriteString("HTTP/1.1 200 OK\r\n") != nil {
				return false
			}
			for sent := 0; sent < size; {
				chunk := block
				if pace > 0 {
					chunk = headerLine
					if !c.Sleep(pace) {
						return false
					}
				}
				if _, err := c.Write(chunk); err != nil {
					return false
				}
				sent += len(chunk)
			}
			return c.WriteString("Content-Length: 0\r\n\r\n") == nil
		})
	}
}

// HugeHeaderLine returns a behaviour that answers with one header line of size bytes.
func HugeHeaderLine(size int) Behaviour {
	block := bytes.Repeat([]byte("h"), 64<<10)
	return func(c *Conn) {
		serveRequests(c, func(c *Conn) bool {
			if c.WriteString("HTTP/1.1 200 OK\r\nX-Huge: ") != nil {
				return false
			}
			for sent := 0; sent < size; sent += len(block) {
				if _, err := c.Write(block); err != nil {
					return false
				}
			}
			return c.WriteString("\r\nContent-Length: 0\r\n\r\n") == nil
		})
	}
}

// bodyBlock is what the body floods send, 32 KiB at a time.
var bodyBlock = bytes.Repeat([]byte("b"), 32<<10)

// BigBody returns a behaviour that answers 200 with a body of size bytes.
func BigBody(size int) Behaviour {
	return func(c *Conn) {
		serveRequests(c, func(c *Conn) bool {
			if c.WriteString("HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(size)+"\r\n\r\n") != nil {
				return false
			}
			for left := size; left > 0; {
				n := min(left, len(bodyBlock))
				if _, err := c.Write(bodyBlock[:n]); err != nil {
					return false
				}
				left -= n
			}
			return true
		})
	}
}

// endlessChunk is one chunk of EndlessBody's body: bodyBlock in the chunked coding.
var endlessChunk = []byte(strconv.FormatInt(int64(len(bodyBlock)), 16) + "\r\n" + string(bodyBlock) + "\r\n")

// EndlessBody answers 200 with a chunked body that never ends.
func EndlessBody(c *Conn) {
	if c.ReadRequest() == nil || c.WriteString("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n") != nil {
		return
	}
	for {
		if _, err := c.Write(endlessChunk); err != nil {
			return
		}
	}
}

// Garbage returns a behaviour that answers size random bytes (the same on every connection),
// then closes.
func Garbage(size int) Behaviour {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	return func(c *Conn) {
		if c.ReadRequest() != nil {
			_, _ = c.Write(b)
		}
	}
}

// Raw returns a behaviour that answers every request with the bytes of answer, then closes the
// connection if closeAfter, or reads the next request.
func Raw(answer string, closeAfter bool) Behaviour {
	return func(c *Conn) {
		serveRequests(c, func(c *Conn) bool { return c.WriteString(answer) == nil && !closeAfter })
	}
}

// Close reads the request, then closes the connection without a byte.
func Close(c *Conn) { c.ReadRequest() }

// Reset reads the request, then resets the connection.
func Reset(c *Conn) {
	if c.ReadRequest() != nil {
		c.Reset()
	}
}

// ResetOnAccept resets the connection at once.
func ResetOnAccept(c *Conn) { c.Reset() }

// RedirectLoop answers 302 to the URL asked for, forever.
func RedirectLoop(c *Conn) {
	for {
		req := c.ReadRequest()
		if req == nil {
			return
		}
		loc := "http://" + req.Host + req.URL.RequestURI()
		if c.WriteString("HTTP/1.1 302 Found\r\nLocation: "+loc+"\r\nContent-Length: 0\r\n\r\n") != nil {
			return
		}
	}
}

// OK answers 200 ok to every request, keep-alive.
func OK(c *Conn) {
	serveRequests(c, func(c *Conn) bool {
		return c.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n") == nil
	})
}

// InfoFlood answers 103 Early Hints, over and over, never the final answer.
func InfoFlood(c *Conn) {
	if c.ReadRequest() == nil {
		return
	}
	for c.WriteString("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n") == nil {
		if !c.Sleep(time.Millisecond) {
			return
		}
	}
}
