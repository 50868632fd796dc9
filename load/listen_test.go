package load_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/load"
	"github.com/storecheck/storecheck/mcp/jsonrpc"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/mcp/servermutants"
)

// modern is a bounded 2026-07-28 run, with rounds that listen (input, cancel) heavier
// than by default.
func modern(t *testing.T, url string) *load.Result {
	return bounded(t, url, load.Config{Eras: []conformance.Era{conformance.EraModern},
		Mix: load.Mix{Quick: 20, Cancel: 40, Input: 40}, Tasks: 1500})
}

// TestListensJudged: 2026-07-28 clients listen on their own tasks (some naming another
// principal's task too) while the load runs; the honest server's streams bring nothing
// they may not hear, and a server whose listens cross (load-listen-crossed) fails
// V-NOTIFY-1 with the listen that heard it.
func TestListensJudged(t *testing.T) {
	r := modern(t, serve(t, mutant.Mutant[servermutants.Build]{}))
	for _, v := range r.Violations {
		t.Errorf("the honest server, 2026-07-28: %s", v)
	}
	if l := r.Listens; l.Opened < 20 || l.OpenedAnother == 0 || l.Heard == 0 || l.Refused != 0 {
		t.Errorf("the honest server, 2026-07-28: listens %+v; want at least 20 acknowledged, some naming another's task, notifications heard, none refused", l)
	}
	var crossed mutant.Mutant[servermutants.Build]
	for _, m := range servermutants.Catalogue() {
		if m.Name == "load-listen-crossed" {
			crossed = m
		}
	}
	r = modern(t, serve(t, crossed))
	found := false
	for _, v := range r.Violations {
		found = found || v.Rule == "V-NOTIFY-1" && strings.HasPrefix(v.Request, "subscriptions/listen naming [") && strings.Contains(v.Caller, "modern")
	}
	if !found {
		t.Errorf("load-listen-crossed, 2026-07-28: no V-NOTIFY-1 naming the listen that heard another's task in %d violations (%v); listens %+v",
			r.ViolationCount, r.Violations, r.Listens)
	}
}

// TestListensRefusedNotExercised: a server that refuses subscriptions/listen leaves the
// listen streams unjudged, and the report says so rather than counting it a pass.
func TestListensRefusedNotExercised(t *testing.T) {
	refuse := mutant.Mutant[servermutants.Build]{Name: "no-listen", Build: servermutants.Build{Wrap: func(next server.Handler, _ func()) server.Handler {
		return func(ctx context.Context, r *server.Request) (any, *server.Error) {
			if r.Method() == "subscriptions/listen" {
				return nil, &server.Error{Code: jsonrpc.CodeMethodNotFound, Message: "Method not found"}
			}
			return next(ctx, r)
		}
	}}}
	r := modern(t, serve(t, refuse))
	var out bytes.Buffer
	_ = load.WriteTable(&out, r)
	if r.Listens.Opened != 0 || r.Listens.Refused == 0 || r.ViolationCount != 0 ||
		!strings.Contains(out.String(), "V-NOTIFY-1 on subscriptions/listen streams not exercised") {
		t.Errorf("a server refusing subscriptions/listen: listens %+v, %d violations, table:\n%s\nwant every listen refused, none judged, and the table saying so",
			r.Listens, r.ViolationCount, out.String())
	}
}
