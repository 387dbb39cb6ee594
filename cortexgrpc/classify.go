package cortexgrpc

import (
	"strconv"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"github.com/cortex-tui/cortex-tui/strategy"
)

// PushbackKey is the trailer a server sets to push back on a client's retries (gRFC A6): the
// milliseconds to wait before the next attempt, or a negative number for "do not retry".
const PushbackKey = "grpc-retry-pushback-ms"

// classify is the outcome of an attempt that ended with this status code (the table in the
// package doc); retryAborted is Config.RetryAborted.
func classify(code codes.Code, retryAborted bool) strategy.Outcome {
	switch code {
	case codes.OK:
		return strategy.Success
	case codes.Unavailable:
		return strategy.FastFail
	case codes.ResourceExhausted:
		return strategy.Throttled
	case codes.DeadlineExceeded:
		return strategy.Timeout
	case codes.Aborted:
		if retryAborted {
			return strategy.ServerError
		}
	}
	return strategy.BadRequest
}

// pushback reads the server's pushback from a trailer, as grpc-go's own retries do: one value,
// a decimal number of milliseconds >= 0, is a delay (present); a negative value, one that is
// not a number, or several values say not to retry (stop); no value says nothing.
func pushback(md metadata.MD) (d time.Duration, present, stop bool) {
	v := md[PushbackKey]
	switch len(v) {
	case 0:
		return 0, false, false
	case 1:
		ms, err := strconv.Atoi(v[0])
		if err != nil || ms < 0 {
			return 0, false, true
		}
		if int64(ms) > int64(1<<63-1)/int64(time.Millisecond) {
			return time.Duration(1<<63 - 1), true, false // absurdly long: the cap applies
		}
		return time.Duration(ms) * time.Millisecond, true, false
	}
	return 0, false, true
}
