package load

import (
	"context"
	"errors"
	"fmt"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/probe/client"
)

// Listens are the 2026-07-28 subscriptions/listen streams clients held while their own
// tasks ran: those a server acknowledged, those it refused, and the notifications heard
// on them, each judged (V-NOTIFY-1). Some name a task of another principal besides the
// caller's own, which must bring nothing about it.
type Listens struct {
	Opened        int `json:"opened"`
	OpenedAnother int `json:"opened_naming_anothers_task"`
	Refused       int `json:"refused"`
	Heard         int `json:"notifications_heard"`
}

func (l *Listens) add(o Listens) {
	l.Opened += o.Opened
	l.OpenedAnother += o.OpenedAnother
	l.Refused += o.Refused
	l.Heard += o.Heard
}

// String says what the listens exercised: nothing judged when none was acknowledged.
func (l Listens) String() string {
	if l.Opened == 0 {
		return fmt.Sprintf("listen: V-NOTIFY-1 on subscriptions/listen streams not exercised: none acknowledged (%d refused)", l.Refused)
	}
	return fmt.Sprintf("listen: %d subscriptions/listen streams acknowledged (%d also naming another principal's task), %d refused; %d notifications/tasks heard on them, each judged",
		l.Opened, l.OpenedAnother, l.Refused, l.Heard)
}

const (
	ackMethod  = "notifications/subscriptions/acknowledged"
	modernNote = "notifications/tasks"
)

// listenOn listens while the client's task id runs; in a cancel round the listen names
// a recent task of another principal too, which must bring nothing about it (refused
// or silent: both are allowed).
func (s *session) listenOn(ctx context.Context, id string, reach bool) (stop func()) {
	ids := []string{id}
	if reach {
		if other := s.run.judge.recentForeign(s.principal.Name); other != "" {
			ids = append(ids, other)
		}
	}
	return s.listen(ctx, ids, len(ids) > 1)
}

// listenRequest names the listen a notification came on.
func (s *session) listenRequest() string {
	if len(s.listening) == 0 {
		return "a subscriptions/listen since ended"
	}
	return fmt.Sprintf("subscriptions/listen naming %v", s.listening)
}

// listens reports whether the client listens while its task runs: a 2026-07-28 client
// over HTTP (over stdio each client's child is a server of its own: nobody else's task
// to hear of).
func (s *session) listens() bool {
	return s.era == conformance.EraModern && len(s.run.cfg.Exec) == 0 && !s.run.cfg.Unjudged
}

// listen opens a subscriptions/listen naming ids, as a client that wants its tasks'
// notifications does, and waits for its acknowledgement (or its refusal) before the
// task goes on, so that the stream hears the task's changes. stop ends the stream and
// judges what it brought. The acknowledgement echoes the ids named: not judged.
func (s *session) listen(ctx context.Context, ids []string, another bool) (stop func()) {
	lctx, cancel := context.WithCancel(ctx)
	params, hdr := probe.WireRequest(s.era, "subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": ids}})
	var (
		res  *client.Response
		err  error
		done = make(chan struct{})
	)
	before := len(s.conn.Inbox())
	wctx, returned := context.WithTimeout(ctx, s.run.cfg.Timeout)
	go func() {
		defer close(done)
		defer returned()
		res, err = s.conn.Call(lctx, "subscriptions/listen", params, hdr)
	}()
	acked := s.conn.WaitInbox(wctx, func(in []client.Inbound) bool {
		for _, m := range in[min(before, len(in)):] {
			if m.Method == ackMethod {
				return true
			}
		}
		return false
	})
	returned()
	s.listening = ids
	return func() {
		cancel()
		<-done
		switch {
		case acked:
			s.meter.listens.Opened++
			if another {
				s.meter.listens.OpenedAnother++
			}
		case res != nil && res.Error != nil:
			s.meter.listens.Refused++
			s.count("subscriptions/listen", fmt.Sprint(res.Error.Code))
			if !allowedCode(res.Error.Code) {
				s.violate("V-BAD-1", "every error is a JSON-RPC error the spec allows", "subscriptions/listen", params, res)
			}
		default: // no acknowledgement within the timeout, or a broken stream
			s.meter.listens.Refused++
			key := "no acknowledgement"
			if err != nil && !errors.Is(err, context.Canceled) {
				key = errorKey(err)
			}
			s.count("subscriptions/listen", key)
		}
		s.hear()
		s.listening = nil
	}
}
