package probe_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/cli"
	"github.com/storecheck/storecheck/cli/builtin"
	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/mcp/server"
	"github.com/storecheck/storecheck/mcp/servermutants"
	"github.com/storecheck/storecheck/probe"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/memstore"
)

// The test binary acts as storecheck itself (asCLI=1), so that the probe can start
// `storecheck serve --mcp stdio` as its child; or as the reference server over stdio
// with one defect (asMutant=NAME).
const (
	asCLI    = "STORECHECK_PROBE_TEST_AS_CLI"
	asMutant = "STORECHECK_PROBE_TEST_AS_MUTANT"
)

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr, builtin.Adapters()))
	}
	if name := os.Getenv(asMutant); name != "" {
		os.Exit(serveMutantStdio(name))
	}
	if spec := os.Getenv(asScaled); spec != "" && len(os.Args) > 1 {
		os.Exit(serveScaled(spec, os.Args[1]))
	}
	os.Exit(m.Run())
}

// serveMutantStdio serves the reference server over stdio with the catalogue's mutant
// name; a defect that crashes the server exits the process, as an unhandled error would.
func serveMutantStdio(name string) int {
	m, ok := servermutants.ByName(name)
	if !ok {
		fmt.Fprintf(os.Stderr, "no server mutant %q\n", name)
		return 2
	}
	st := memstore.New(memstore.WithClock(reference.SystemClock{}))
	die := func() {
		fmt.Fprintln(os.Stderr, "server mutant "+name+": crashing on purpose")
		os.Exit(3)
	}
	srv, err := server.New(m.Build.Configure(server.Config{Legacy: st.Legacy(), Modern: st.Modern(), MaxTasksPerPrincipal: testLimit}, die))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer srv.Close()
	if err := srv.ServeStdio(context.Background(), m.Build.Stdin(os.Stdin), os.Stdout, ""); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestStdioReferenceServerPasses: `storecheck serve --adapter memstore --mcp stdio`, a
// child per principal, passes every rule stdio can carry; V-SESSION-1, V-ROUTE-1 and
// V-AUTH-1 (session ids, routing headers and bearer tokens are HTTP's) are not exercised,
// nor are the cross-instance rules (one process, no other instance), each saying so.
func TestStdioReferenceServerPasses(t *testing.T) {
	t.Setenv(asCLI, "1")
	r, err := probe.Run(t.Context(), probe.Config{Strict: true,
		Exec: []string{os.Args[0], "serve", "--adapter", "memstore", "--mcp", "stdio", "--max-tasks-per-principal", fmt.Sprint(testLimit)}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Store, "stdio: ") {
		t.Errorf("the report names the subject %q", r.Store)
	}
	var got []string
	for _, rr := range r.Rules {
		switch {
		case (rr.ID == "V-SESSION-1" || rr.ID == "V-ROUTE-1" || rr.ID == "V-AUTH-1" || rr.ID == "V-TTL-1" && rr.Era == conformance.EraModern) && rr.Outcome == conformance.NotExercised:
		case slices.Contains(crossRules, rr.ID) && rr.Outcome == conformance.NotExercised && strings.Contains(strings.Join(rr.Reasons, " "), "no other instance"):
		case rr.Outcome != conformance.Passed:
			got = append(got, fmt.Sprintf("%s %s: %s %q", rr.ID, rr.Era, rr.Outcome, rr.Reasons))
		}
	}
	if len(got) > 0 || r.Totals.Passed < 10 || !r.OK() {
		t.Errorf("over stdio (%d passed): %s", r.Totals.Passed, strings.Join(got, "\n"))
	}
}

// TestStdioMutantsAreKilled: over stdio too, server defects fail their rules. The checks
// are the same code on either transport, so a few mutants stand for all: those whose
// rules lean on timing or on a call held open (tasks/result, the race, ttl-free
// finality) and one that breaks both eras' answers; and the defects of stdio itself (a
// malformed line dropped) and of a server that dies (on its first tasks/cancel: the rows
// after it read aborted, pointing at it). Isolation defects cannot show here: every child
// keeps its own tasks, so another principal has nothing to see.
func TestStdioMutantsAreKilled(t *testing.T) {
	for _, name := range []string{"cancel-overwrites", "dates-epoch", "end-overwrites-cancel", "result-at-once", "stdio-drops-malformed", "stdio-late-parse-error", "dies-on-cancel"} {
		m, ok := servermutants.ByName(name)
		if !ok {
			t.Fatalf("no server mutant %s", name)
		}
		t.Setenv(asMutant, name)
		r, err := probe.Run(t.Context(), probe.Config{Strict: true, Exec: []string{os.Args[0]}})
		if err != nil {
			t.Fatal(err)
		}
		checkKilled(t, name, m.Breaks, mutantFailures(r, m), map[string]bool{"V-SESSION-1": true, "V-ROUTE-1": true, "V-AUTH-1": true})
	}
}

// TestStdioSilentServerAborts: a child that exits at once, hangs, or writes lines that
// are not JSON-RPC leaves every rule aborted with the cause named. A child that exits is
// a death, told once per era (each era starts children of its own) in the findings with
// its exit status; every row points at it.
func TestStdioSilentServerAborts(t *testing.T) {
	for _, tc := range []struct{ name, script, cause, finding string }{
		{"exits", "echo 'cannot start: no store' >&2; exit 3", `^the server died as the probe connected for the (legacy|modern) era: see the report's findings$`,
			`^the server died as the probe connected for the (legacy|modern) era: it exited: exit status 3; the last lines of its stderr: cannot start: no store; every check of the era is aborted$`},
		{"hangs", "exec sleep 30", `timeout \(no answer within 300ms\)`, ""},
		{"garbage", "while read line; do echo 'this is not {json'; done", "unparsable answer", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := probe.Run(t.Context(), probe.Config{Strict: true, Timeout: 300 * time.Millisecond, Exec: []string{"sh", "-c", tc.script}})
			if err != nil {
				t.Fatal(err)
			}
			if r.OK() || len(r.Rules) < 10 {
				t.Errorf("OK %v with %d rules; want a failed run over every rule", r.OK(), len(r.Rules))
			}
			for _, rr := range r.Rules {
				if rr.Outcome != conformance.Aborted || !regexp.MustCompile(tc.cause).MatchString(strings.Join(rr.Reasons, " ")) {
					t.Errorf("%s %s: %s %q; want aborted naming %q", rr.ID, rr.Era, rr.Outcome, rr.Reasons, tc.cause)
				}
			}
			deaths := 0
			if tc.finding != "" {
				deaths = len(r.Eras)
			}
			checkFindings(t, r, deaths, tc.finding)
		})
	}
}
