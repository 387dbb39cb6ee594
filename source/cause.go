package source

import "fmt"

// FailureCause is why an attempt failed, as live mode counts it (Counts.FailureCauses): what
// the target, the network or the fault injector did, finer than the five outcome kinds. The
// simulator leaves them at zero: its failures are the model's, not a server's. String gives the
// words the dashboard and the summary use ("oversize headers").
type FailureCause uint8

// The causes.
const (
	FailTimeout      FailureCause = iota // no answer within the attempt's timeout
	FailRefused                          // connection refused (down, crashed, an outage)
	FailReset                            // connection reset, or closed before a whole answer
	FailUnreachable                      // the host does not resolve, or no route to it
	FailOversize                         // response headers over the limit (64 KiB)
	FailTLS                              // TLS failed: a certificate, a handshake, an answer that is not TLS
	FailMalformed                        // not a valid HTTP answer: garbage, a bad status line, header, length or coding
	FailBody                             // the body broke off or was malformed after a good head
	FailRedirect                         // a redirect, not followed: not the resource asked for
	FailUnavailable                      // a 503 from the service (its queue full, say)
	FailThrottled                        // a 429 from the service
	FailServerError                      // another 5xx from the service
	FailClientError                      // another 4xx from the service
	FailInjected                         // an answer the fault injector made up (errors, throttle, bad_requests)
	FailOther                            // anything else
	NumFailureCauses                     // how many causes there are
)

var causeNames = [NumFailureCauses]string{
	FailTimeout: "timeout", FailRefused: "refused", FailReset: "reset", FailUnreachable: "unreachable",
	FailOversize: "oversize headers", FailTLS: "TLS", FailMalformed: "malformed", FailBody: "body cut short",
	FailRedirect: "redirect", FailUnavailable: "503", FailThrottled: "429", FailServerError: "5xx",
	FailClientError: "4xx", FailInjected: "injected fault", FailOther: "other",
}

// String returns the cause in the dashboard's words, e.g. "oversize headers".
func (c FailureCause) String() string {
	if c < NumFailureCauses {
		return causeNames[c]
	}
	return fmt.Sprintf("FailureCause(%d)", int(c))
}

// FailureCauseOf returns the FailureCause whose String is s, and whether there is one.
func FailureCauseOf(s string) (FailureCause, bool) {
	for c, n := range causeNames {
		if n == s {
			return FailureCause(c), true
		}
	}
	return FailOther, false
}
