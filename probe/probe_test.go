package probe_test

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/adapters/postgres/pgtest"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/internal/mutant"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/mcp/servermutants"
	"github.com/storecheck/storecheck/mcp/servermutants/mutanttest"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

// serve starts the reference server over memstore, with the defect of the catalogue's
// mutant ("" = none).
func serve(t *testing.T, mutant string) string {
	t.Helper()
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	return serveStores(t, st.Legacy(), st.Modern(), mutant)
}

// serveStores starts the reference server over these stores.
func serveStores(t *testing.T, l legacy.Store, m modern.Store, mutant string) string {
	t.Helper()
	return serveConfig(t, server.Config{Legacy: l, Modern: m}, mutant)
}

// testLimit is the task limit per principal the probe's tests serve with, so that
// V-LIMIT-1 meets one: far above what any other check keeps running at once.
const testLimit = 16

// serveConfig starts the reference server as cfg says, with alice's and bob's tokens
// (and testLimit when cfg sets no limit), with the defect of the catalogue's mutant ("" =
// none).
func serveConfig(t *testing.T, cfg server.Config, name string) string {
	t.Helper()
	cfg.Principals = map[string]string{"token-a": "alice", "token-b": "bob"}
	if cfg.MaxTasksPerPrincipal == 0 {
		cfg.MaxTasksPerPrincipal = testLimit
	}
	var m mutant.Mutant[servermutants.Build]
	if name != "" {
		var ok bool
		if m, ok = servermutants.ByName(name); !ok {
			t.Fatalf("no server mutant %q", name)
		}
	}
	return mutanttest.Start(t, cfg, m).URL + "/mcp"
}

// principals are the two callers serveConfig's server knows.
var principals = []probe.Principal{{Name: "alice", Token: "token-a"}, {Name: "bob", Token: "token-b"}}

// runConfig probes as cfg says, as principals, and wants rows rule rows when rows > 0.
func runConfig(t *testing.T, cfg probe.Config, rows int) *conformance.Report {
	t.Helper()
	cfg.Principals = principals
	r, err := probe.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rows > 0 && len(r.Rules) != rows {
		t.Fatalf("%d rows of %v in eras %v; want %d", len(r.Rules), cfg.Rules, cfg.Eras, rows)
	}
	return r
}

func run(t *testing.T, url string) *conformance.Report {
	t.Helper()
	return runConfig(t, probe.Config{URL: url, Strict: true}, 0)
}

// failed lists the rules a report did not pass, as "ID era outcome". V-TTL-1 of the
// extension, where the client asks no ttl, is not exercised on a server that gives its
// tasks none (TestReferenceServerTTLModern gives them one). A row aborted because the
// server died during another check is left out: that check's failed row tells it.
func failed(r *conformance.Report) []string {
	var out []string
	for _, rr := range r.Rules {
		if rr.ID == "V-TTL-1" && rr.Era == conformance.EraModern && rr.Outcome == conformance.NotExercised {
			continue
		}
		if undeclared(rr) || oneEndpoint(rr) {
			continue
		}
		if _, ok := probe.DeathOf(rr); ok {
			continue // the row of the check the server died during tells it
		}
		if rr.Outcome != conformance.Passed {
			out = append(out, rr.ID+" "+string(rr.Era)+" "+string(rr.Outcome))
		}
	}
	sort.Strings(out)
	return out
}

// checkKilled: a mutant's report fails each of its rules (in some era) and no other rule
// reads anything but passed, except the rules in also.
func checkKilled(t *testing.T, name string, rules, got []string, also map[string]bool) {
	t.Helper()
	for _, rule := range rules {
		killed := false
		for _, f := range got {
			killed = killed || strings.HasPrefix(f, rule+" ") && strings.HasSuffix(f, " failed")
		}
		if !killed {
			t.Errorf("server mutant %s survived %s, which it breaks: %v", name, rule, got)
		}
	}
	for _, f := range got {
		id, _, _ := strings.Cut(f, " ")
		if !slices.Contains(rules, id) && !also[id] {
			t.Errorf("server mutant %s (breaks %v) failed another rule: %s", name, rules, f)
		}
	}
}

// checkPasses: the report r of the server called subject has no failed rule and at least
// nine passed; else each rule's reasons are logged.
func checkPasses(t *testing.T, subject string, r *conformance.Report) {
	t.Helper()
	if !r.OK() || len(failed(r)) > 0 || r.Totals.Passed < 9 {
		t.Errorf("%s: %v (%d passed)", subject, failed(r), r.Totals.Passed)
		for _, rr := range r.Rules {
			for _, why := range rr.Reasons {
				t.Logf("%s %s: %s", rr.ID, rr.Era, why)
			}
		}
	}
}

// oneEndpoint reports whether a row is a deployment's rule not exercised on one
// endpoint: there is no other instance to spread its calls across.
func oneEndpoint(rr conformance.RuleResult) bool {
	return rr.Outcome == conformance.NotExercised && strings.Contains(strings.Join(rr.Reasons, "\n"), "no other instance to spread calls across")
}

// undeclared reports whether a row is not exercised because the server did not declare
// what its check needs (tasks/list, tasks/cancel): what a server does not offer it need
// not serve, and such a row is no defect.
func undeclared(rr conformance.RuleResult) bool {
	return rr.Outcome == conformance.NotExercised && strings.Contains(strings.Join(rr.Reasons, "\n"), "the server declares no capabilities.tasks.")
}

// checkNoneExercised: a server with nothing to exercise (no tasks) leaves every row not
// exercised, each saying what the server did not declare; any row passed would let the
// run pass on nothing.
func checkNoneExercised(t *testing.T, subject string, r *conformance.Report) {
	t.Helper()
	if len(r.Rules) == 0 {
		t.Fatalf("%s: no rows", subject)
	}
	for _, rr := range r.Rules {
		if why := strings.Join(rr.Reasons, "; "); rr.Outcome != conformance.NotExercised || !strings.Contains(why, "declares no tasks") {
			t.Errorf("%s: %s %s %s (%s); want not exercised, naming the tasks the server does not declare", subject, rr.ID, rr.Era, rr.Outcome, why)
		}
	}
}

// TestReferenceServerPasses: the reference server passes every probe rule under strict,
// in both eras.
func TestReferenceServerPasses(t *testing.T) {
	checkPasses(t, "the reference server", run(t, serve(t, "")))
}

// TestReferenceServerPassesPostgres is TestReferenceServerPasses with the tasks in
// Postgres (a container; skipped without Docker, except under CI).
func TestReferenceServerPassesPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Postgres container (-short)")
	}
	l, m := pgtest.Stores(t)
	checkPasses(t, "the reference server over Postgres", run(t, serveStores(t, l, m, "")))
}

// hides are the rows a mutant leaves not exercised by hiding what their check needs:
// with no inputRequests shown, another principal has no key to answer.
var hides = map[string]string{"input-hidden": "V-INPUT-3 modern not exercised"}

// judgedElsewhere reports whether row ("ID era outcome") is not exercised because its
// check's own task showed a defect that one of breaks judges, as its reason says ("V-X
// judges that"): such a row says nothing of its rule, and the defect fails its own.
func judgedElsewhere(r *conformance.Report, row string, breaks []string) bool {
	for _, rr := range r.Rules {
		if rr.ID+" "+string(rr.Era)+" "+string(rr.Outcome) != row || rr.Outcome != conformance.NotExercised {
			continue
		}
		for _, b := range breaks {
			if strings.Contains(strings.Join(rr.Reasons, "\n"), b+" judges that") {
				return true
			}
		}
	}
	return false
}

// mutantFailures are the rows of mutant m's report that did not pass, less those that
// say nothing of their rule because of m's defect (hides, judgedElsewhere).
func mutantFailures(r *conformance.Report, m mutant.Mutant[servermutants.Build]) []string {
	return slices.DeleteFunc(failed(r), func(row string) bool { return row == hides[m.Name] || judgedElsewhere(r, row, m.Breaks) })
}

// TestServerMutantsAreKilled: each of the server's deliberate defects fails the rule it
// breaks, and only that rule.
func TestServerMutantsAreKilled(t *testing.T) {
	for _, m := range servermutants.Catalogue() {
		t.Run(m.Name, func(t *testing.T) {
			if m.Build.StdioOnly {
				t.Skip("a defect of stdio only: TestStdioMutantsAreKilled runs it")
			}
			r := run(t, serve(t, m.Name))
			got := mutantFailures(r, m)
			if m.Build.Honest || m.Build.LoadOnly {
				checkPasses(t, "the honest twin "+m.Name, r) // a load-only defect: storecheck load's tests kill it
				return
			}
			if m.Build.Empty {
				checkNoneExercised(t, m.Name, r)
				return
			}
			checkKilled(t, m.Name, m.Breaks, got, nil)
			if !testing.Verbose() {
				return
			}
			for _, rr := range r.Rules {
				if rr.Outcome == conformance.Failed {
					t.Logf("%s: %s %s: %s", m.Name, rr.ID, rr.Era, rr.Reasons[0])
				}
			}
		})
	}
}

// TestReferenceServerTTLModern: a server whose tasks get a ttl of their own (the
// extension's client asks none) honours it: V-TTL-1 passes in both eras; with tasks
// expiring at half their ttl (ttl-early) it fails in both.
func TestReferenceServerTTLModern(t *testing.T) {
	for _, mutant := range []string{"", "ttl-early"} {
		st := memstore.New(memstore.WithClock(reference.SystemClock{}))
		url := serveConfig(t, server.Config{Legacy: st.Legacy(), Modern: st.Modern(), DefaultTTL: 2 * time.Second}, mutant)
		r := runConfig(t, probe.Config{URL: url, Strict: true, Rules: []string{"V-TTL-1"}}, 0)
		want := conformance.Passed
		if mutant != "" {
			want = conformance.Failed
		}
		if len(r.Rules) != 2 {
			t.Fatalf("%d rows; want V-TTL-1 in both eras", len(r.Rules))
		}
		for _, rr := range r.Rules {
			if rr.Outcome != want {
				t.Errorf("mutant %q: V-TTL-1 %s: %s %q; want %s", mutant, rr.Era, rr.Outcome, rr.Reasons, want)
			}
		}
	}
}
