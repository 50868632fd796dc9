package servermutants

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/reference"
)

// busy is how many requests in flight at once wake a load-only defect: the probe's
// sequential checks never keep that many, storecheck load's clients always do.
const busy = 4

// loadMutants are the defects only many clients at once reveal: the probe passes each
// (Build.LoadOnly), storecheck load fails each on the rule it names.
var loadMutants = []mutant.Mutant[Build]{
	{Name: "load-principal-race", Breaks: []string{"V-DENY-1"},
		Defect: "under load the caller is looked up through one variable shared by every request: a request is served as whoever wrote it last",
		Build:  Build{LoadOnly: true, Wrap: principalRace}},
	{Name: "load-queue-drop", Breaks: []string{"V-RUN-1"},
		Defect: "past a queue bound a task-augmented tools/call is acknowledged with a task id whose work was dropped, without an error",
		Build:  Build{LoadOnly: true, Wrap: queueDrop}},
	{Name: "load-notify-crossed", Breaks: []string{"V-NOTIFY-1"},
		Defect: "a 2025-11-25 session opened while the server is busy shares its notification stream with the session opened before it: one hears the other's task status",
		Build:  Build{LoadOnly: true, Setup: notifyCrossed}},
	{Name: "load-listen-crossed", Breaks: []string{"V-NOTIFY-1"},
		Defect: "a 2026-07-28 subscriptions/listen opened while many are open writes to the stream of the listen opened before it too: that caller hears of the other's tasks",
		Build:  Build{LoadOnly: true, Wrap: listenCrossed}},
}

// inflight counts the requests under way through the handler it wraps.
type inflight struct{ n atomic.Int32 }

func (f *inflight) enter() (crowded bool, leave func()) {
	n := f.n.Add(1)
	return n >= busy, func() { f.n.Add(-1) }
}

func principalRace(next server.Handler, _ func()) server.Handler {
	var f inflight
	var mu sync.Mutex
	var shared reference.Caller // the defect: one caller for every request in flight
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		crowded, leave := f.enter()
		defer leave()
		if crowded {
			mu.Lock()
			shared = r.Caller()
			mu.Unlock()
			time.Sleep(time.Millisecond) // the lookup's own work, during which another request writes
			mu.Lock()
			r.SetCaller(shared)
			mu.Unlock()
		}
		return next(ctx, r)
	}
}

// queueDrop answers a task-augmented tools/call made past the bound with a task id of
// its own: the work the server took is never found under it.
func queueDrop(next server.Handler, _ func()) server.Handler {
	var f inflight
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		crowded, leave := f.enter()
		defer leave()
		res, e := next(ctx, r)
		m, _ := res.(map[string]any)
		if !crowded || e != nil || m == nil || r.Method() != "tools/call" {
			return res, e
		}
		t := m
		if inner, ok := m["task"].(map[string]any); ok {
			t = inner
		}
		if _, ok := t["taskId"].(string); ok {
			b := make([]byte, 16)
			_, _ = rand.Read(b)
			t["taskId"] = hex.EncodeToString(b)
		}
		return res, e
	}
}

// notifyCrossed keeps the 2025-11-25 session opened last in one variable and, while
// the server is busy, pairs a session opened then with it: every status notification
// of a session's task goes to its partner's streams too.
func notifyCrossed(cfg server.Config, _ func()) server.Config {
	var f inflight
	var mu sync.Mutex
	var last *server.Request // the session opened last
	partner := map[string]*server.Request{}
	around(&cfg, func(next server.Handler) server.Handler {
		return func(ctx context.Context, r *server.Request) (any, *server.Error) {
			crowded, leave := f.enter()
			defer leave()
			if r.Method() != "initialize" || r.SessionID() == "" {
				return next(ctx, r)
			}
			me := server.NewRequest(r, "ping", nil) // a copy nobody changes after
			mu.Lock()
			if crowded && last != nil {
				partner[me.SessionID()], partner[last.SessionID()] = last, me
			}
			last = me
			mu.Unlock()
			return next(ctx, r)
		}
	})
	alsoNotify(&cfg, func(_, sessionID string, note any) {
		mu.Lock()
		p := partner[sessionID]
		mu.Unlock()
		if p != nil {
			p.Standalone(note)
		}
	})
	return cfg
}

// alsoNotify has the server tell also of every 2025-11-25 status notification it sends,
// after any Notified cfg has.
func alsoNotify(cfg *server.Config, also func(owner, sessionID string, note any)) {
	told := cfg.Notified
	cfg.Notified = func(owner, sessionID string, note any) {
		if told != nil {
			told(owner, sessionID, note)
		}
		also(owner, sessionID, note)
	}
}

// listener is an open subscriptions/listen's stream, written by its own handler and by
// a crossed one: writes are serialised, and none goes out once the listen has ended.
type listener struct {
	mu     sync.Mutex
	send   func(v any) error
	closed bool
}

func (l *listener) write(v any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return context.Canceled
	}
	return l.send(v)
}

func (l *listener) close() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
}

// crowdListens is how many subscriptions/listen open at once wake the crossing: the
// probe opens one a caller, a handful at once; many clients listening at once keep
// dozens open.
const crowdListens = 8

// listenCrossed keeps the listen opened last in one variable and, while many listens
// are open, has a listen opened then write to it too.
func listenCrossed(next server.Handler, _ func()) server.Handler {
	var open atomic.Int32
	var mu sync.Mutex
	var last *listener // the listen opened last, while it is open
	return func(ctx context.Context, r *server.Request) (any, *server.Error) {
		if r.Method() != "subscriptions/listen" || r.Stream() == nil {
			return next(ctx, r)
		}
		crowded := open.Add(1) >= crowdListens
		defer open.Add(-1)
		me := &listener{send: r.Stream()}
		mu.Lock()
		partner := last
		if !crowded {
			partner = nil
		}
		last = me
		mu.Unlock()
		defer func() {
			me.close()
			mu.Lock()
			if last == me {
				last = nil
			}
			mu.Unlock()
		}()
		r.SetStream(func(v any) error {
			err := me.write(v)
			if partner != nil {
				_ = partner.write(v)
			}
			return err
		})
		return next(ctx, r)
	}
}
