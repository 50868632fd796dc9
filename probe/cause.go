package probe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/storecheck/storecheck/probe/client"
)

// ErrNoAnswer wraps a call that got no usable answer from the server: it hung past the
// probe's timeout, answered something that is not JSON-RPC, refused or dropped the
// connection. A check that ends so says nothing about its rule: it is aborted, with the
// cause named, never passed or failed.
var ErrNoAnswer = errors.New("no usable answer from the server")

// noAnswer wraps err as ErrNoAnswer with its cause when it is a transport failure, and
// returns it unchanged otherwise.
func noAnswer(err error, what string, timeout time.Duration) error {
	c := cause(err)
	if c == "" {
		return err
	}
	if c == causeTimeout {
		c = fmt.Sprintf("%s (no answer within %s)", c, timeout)
	}
	return fmt.Errorf("%w: %s: %s: %w", ErrNoAnswer, c, what, err)
}

const causeTimeout = "timeout"

// cause names a transport failure, or "" when err is none (a JSON-RPC error, a verdict).
func cause(err error) string {
	var httpErr *client.HTTPError
	var opErr *net.OpError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, client.ErrDied): // before the broken stream it shows as
		return "the server died"
	case errors.Is(err, client.ErrMalformed): // before a timeout it may have caused
		return "unparsable answer"
	case errors.Is(err, context.DeadlineExceeded):
		return causeTimeout
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &httpErr):
		return fmt.Sprintf("HTTP %d without a JSON-RPC answer", httpErr.StatusCode)
	case errors.Is(err, client.ErrNoAnswer):
		return "the stream or the process ended before the answer"
	case errors.Is(err, client.ErrClosed):
		return "connection closed"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.As(err, &opErr):
		return "connection broken"
	}
	return ""
}
