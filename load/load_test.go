package load_test

import (
	"testing"
	"time"

	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/load"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/mcp/servermutants"
	"github.com/storecheck/storecheck/mcp/servermutants/mutanttest"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// principals are the four callers serve's server knows; load adds anonymous ones.
var principals = []probe.Principal{{Name: "alice", Token: "ta"}, {Name: "bob", Token: "tb"},
	{Name: "carol", Token: "tc"}, {Name: "dave", Token: "td"}}

// serve starts the reference server over memstore with the defect of m (zero: none).
func serve(t *testing.T, m mutant.Mutant[servermutants.Build]) string {
	t.Helper()
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	cfg := server.Config{Legacy: st.Legacy(), Modern: st.Modern(), Principals: map[string]string{}}
	for _, p := range principals {
		cfg.Principals[p.Token] = p.Name
	}
	return mutanttest.Start(t, cfg, m).URL + "/mcp"
}

// short is a bounded run of both eras, at most 2000 tasks.
func short(t *testing.T, url string) *load.Result {
	return bounded(t, url, load.Config{Tasks: 2000})
}

// bounded runs cfg (its eras, mix and task bound) against url within the tests' bounds:
// 32 clients over the four principals and anonymous callers, for at most two seconds.
func bounded(t *testing.T, url string, cfg load.Config) *load.Result {
	t.Helper()
	cfg.URLs, cfg.Principals, cfg.Anonymous = []string{url}, principals, true
	cfg.Clients, cfg.Duration, cfg.Wait, cfg.Timeout = 32, 2*time.Second, 3*time.Second, 5*time.Second
	r, err := load.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestHonestServerHoldsLoad: the reference server answers every client as it may see,
// loses no task and cancels none nobody cancelled.
func TestHonestServerHoldsLoad(t *testing.T) {
	r := short(t, serve(t, mutant.Mutant[servermutants.Build]{}))
	for _, v := range r.Violations {
		t.Errorf("the honest server: %s", v)
	}
	if r.Tasks < 50 {
		t.Errorf("the honest server: %d tasks ended in %.1fs; want the run to exercise at least 50", r.Tasks, r.Seconds)
	}
	t.Logf("%d tasks, %.0f tasks/s, errors %v", r.Tasks, r.TasksPerSec, r.Errors)
	for _, op := range r.Ops {
		t.Logf("%+v", op)
	}
}

// TestLoadOnlyMutantsAreKilled: each defect only load reveals fails the run on the
// rule it breaks; the probe's passing them is TestServerMutantsAreKilled's. A defect
// that needs a crowd shows only when the server is crowded, which a runner busy with
// other tests may not let two seconds of clients make: a mutant gets up to four short
// runs, each against a fresh server, and must fail one of them on every rule it breaks.
func TestLoadOnlyMutantsAreKilled(t *testing.T) {
	const runs = 4
	for _, m := range servermutants.Catalogue() {
		if !m.Build.LoadOnly {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			rules := map[string]int{}
			var tasks int64
			for run := 1; run <= runs && !brokeAll(m.Breaks, rules); run++ {
				r := short(t, serve(t, m))
				tasks += r.Tasks
				for _, v := range r.Violations {
					rules[v.Rule]++
				}
				if len(r.Violations) > 0 {
					t.Logf("%s, run %d: %d violations, first: %s", m.Name, run, r.ViolationCount, r.Violations[0])
				}
			}
			for _, want := range m.Breaks {
				if rules[want] == 0 {
					t.Errorf("%s (%s): no %s violation in %d runs, %d tasks; violations by rule %v", m.Name, m.Defect, want, runs, tasks, rules)
				}
			}
		})
	}
}

// brokeAll reports whether every rule of breaks has a violation counted in rules.
func brokeAll(breaks []string, rules map[string]int) bool {
	for _, b := range breaks {
		if rules[b] == 0 {
			return false
		}
	}
	return true
}

// TestDeploymentHoldsLoad: clients spread over two instances of the reference server
// over one memstore, each client on one of them, see what they may and lose nothing.
func TestDeploymentHoldsLoad(t *testing.T) {
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	var urls []string
	for range 2 {
		cfg := server.Config{Legacy: st.Legacy(), Modern: st.Modern(), Principals: map[string]string{}}
		for _, p := range principals {
			cfg.Principals[p.Token] = p.Name
		}
		urls = append(urls, mutanttest.Start(t, cfg, mutant.Mutant[servermutants.Build]{}).URL+"/mcp")
	}
	r, err := load.Run(t.Context(), load.Config{URLs: urls, Principals: principals, Anonymous: true,
		Clients: 16, Duration: 2 * time.Second, Tasks: 1000, Wait: 3 * time.Second, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range r.Violations {
		t.Errorf("two instances: %s", v)
	}
	if !r.Passed() || r.Tasks < 50 {
		t.Errorf("two instances: %d tasks ended, passed %v; want at least 50 and a pass", r.Tasks, r.Passed())
	}
}
