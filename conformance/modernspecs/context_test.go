package modernspecs_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance"
	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/reference"
	"github.com/storecheck/storecheck/reference/legacy"
	"github.com/storecheck/storecheck/reference/memstore"
	"github.com/storecheck/storecheck/reference/modern"
)

// cutOff says what cutOffStore does with every third Swap whose deadline is under a
// millisecond away.
type cutOff int

const (
	// landsLate answers the context's error and makes the write, whole, right after
	// the next Get has read: a command still on its way to the backend while the caller
	// reads. S-CTX-1 allows it.
	landsLate cutOff = iota
	// acksUnwritten answers success and writes nothing.
	acksUnwritten
	// writesPart answers the context's error having written the new status message
	// but not the new result.
	writesPart
)

type cutOffStore struct {
	modern.Store
	what cutOff

	mu       sync.Mutex
	n        int
	inFlight func()
}

func (s *cutOffStore) Swap(ctx context.Context, caller reference.Caller, expected int64, next modern.Task) (modern.Task, error) {
	dl, ok := ctx.Deadline()
	if !ok || time.Until(dl) > time.Millisecond {
		return s.Store.Swap(ctx, caller, expected, next)
	}
	s.mu.Lock()
	s.n++
	picked := s.n%3 == 0
	s.mu.Unlock()
	if !picked {
		return s.Store.Swap(ctx, caller, expected, next)
	}
	switch s.what {
	case acksUnwritten:
		t, err := next.Normalize()
		t.Version = expected + 1
		return t, err
	case writesPart:
		if cur, err := s.Store.Get(context.Background(), next.TaskID, caller); err == nil && cur.Version == expected {
			part := next.Clone()
			part.Result = cur.Result
			_, _ = s.Store.Swap(context.Background(), caller, expected, part)
		}
	default:
		s.mu.Lock()
		s.inFlight = func() { _, _ = s.Store.Swap(context.Background(), caller, expected, next) }
		s.mu.Unlock()
	}
	<-ctx.Done()
	return modern.Task{}, ctx.Err()
}

func (s *cutOffStore) Get(ctx context.Context, id string, caller reference.Caller) (modern.Task, error) {
	t, err := s.Store.Get(ctx, id, caller)
	s.mu.Lock()
	land := s.inFlight
	s.inFlight = nil
	s.mu.Unlock()
	if land != nil {
		land()
	}
	return t, err
}

// runCutOff runs the spec of Swaps cut off by their deadlines on memstore behind
// cutOffStore.
func runCutOff(t *testing.T, what cutOff) (conformance.Outcome, string) {
	t.Helper()
	h := harness.InProcess("cut-off", harness.Capabilities{Legacy: true, Modern: true, Clock: true, SelfContained: true},
		func(clock reference.Clock) (legacy.Store, modern.Store) {
			s := memstore.New(memstore.WithClock(clock))
			return s.Legacy(), &cutOffStore{Store: s.Modern(), what: what}
		})
	rep, err := conformance.Execute(h, conformance.ExecConfig{
		Eras:         []conformance.Era{conformance.EraModern},
		Rules:        []string{"S-CTX-1"},
		FocusStrings: []string{"cut off by its deadline"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := rep.Rule("S-CTX-1", conformance.EraModern)
	if !ok {
		t.Fatal("S-CTX-1: not in the report")
	}
	return r.Outcome, strings.Join(r.Reasons, "\n")
}

// The battery runs once per process: each case runs in a child of the test binary,
// which writes the outcome and the reasons to a file.
const (
	envCutOff    = "STORECHECK_TEST_CUT_OFF"
	envCutOffOut = "STORECHECK_TEST_CUT_OFF_OUT"
)

// TestCutOffChild is the child: it runs only under envCutOff.
func TestCutOffChild(t *testing.T) {
	what, err := strconv.Atoi(os.Getenv(envCutOff))
	if err != nil {
		t.Skip("runs as a child of the cut-off tests")
	}
	got, why := runCutOff(t, cutOff(what))
	if err := os.WriteFile(os.Getenv(envCutOffOut), []byte(string(got)+"\n"+why), 0o600); err != nil {
		t.Fatal(err)
	}
}

// inChild runs the spec for what in a child process.
func inChild(t *testing.T, what cutOff) (conformance.Outcome, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "outcome")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCutOffChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envCutOff+"="+strconv.Itoa(int(what)), envCutOffOut+"="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, why, _ := strings.Cut(string(b), "\n")
	return conformance.Outcome(got), why
}

// TestCutOffSwapLandingLatePasses: a cut-off Swap that lands after the read that
// followed it, whole and before any later write, keeps S-CTX-1.
func TestCutOffSwapLandingLatePasses(t *testing.T) {
	if got, why := inChild(t, landsLate); got != conformance.Passed {
		t.Errorf("S-CTX-1 %s for a store whose cut-off Swaps land late, whole: %s", got, why)
	}
}

// TestCutOffSwapFaultsNamed: an acknowledged Swap that is not there, and a cut-off one
// that left part of itself, fail S-CTX-1, each with a message that says which.
func TestCutOffSwapFaultsNamed(t *testing.T) {
	for _, c := range []struct {
		name string
		what cutOff
		says string
	}{
		{"acknowledged unwritten", acksUnwritten, "acknowledged but not visible: "},
		{"part written", writesPart, "neither old nor new: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, why := inChild(t, c.what)
			if got != conformance.Failed {
				t.Fatalf("S-CTX-1 %s, want failed", got)
			}
			if !strings.Contains(why, c.says) {
				t.Errorf("S-CTX-1 failed without saying %q:\n%s", c.says, why)
			}
		})
	}
}
