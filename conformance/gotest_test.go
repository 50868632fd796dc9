package conformance

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/battery"

	"github.com/storecheck/storecheck/adapters/memharness"
)

func TestGoTestOptions(t *testing.T) {
	if _, err := goTestOptions([]battery.Options{{}, {Strict: true}}); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "at most one Options, got 2") {
		t.Errorf("two Options: err = %v, want ErrOptions saying at most one", err)
	}
	// Variables override the test's Options; unset ones keep them.
	t.Setenv("STORECHECK_STRICT", "1")
	t.Setenv("STORECHECK_RULES", " L-GET-1, M-SWAP-2 ,")
	t.Setenv(battery.SeedEnv, "42")
	t.Setenv("STORECHECK_JSON", "r.json")
	t.Setenv("STORECHECK_JUNIT", "")
	o, err := goTestOptions([]battery.Options{{Seed: 7, JUnit: "keep.xml", SpecTimeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	if !o.Strict || o.Seed != 42 || o.JSON != "r.json" || o.JUnit != "keep.xml" || o.SpecTimeout != time.Minute ||
		strings.Join(o.Rules, ",") != "L-GET-1,M-SWAP-2" {
		t.Errorf("options from the environment = %+v", o)
	}
	t.Setenv("STORECHECK_STRICT", "very")
	if _, err := goTestOptions(nil); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "STORECHECK_STRICT") {
		t.Errorf("STORECHECK_STRICT=very: err = %v, want ErrOptions naming the variable", err)
	}
}

func TestPruneArtifactsKeepsTheNewest(t *testing.T) {
	base := t.TempDir()
	now := time.Now()
	for i := range 5 {
		dir := filepath.Join(base, "storecheck-x-"+string(rune('a'+i)))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(dir, now, now.Add(time.Duration(i)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(base, "not-ours"), 0o755); err != nil {
		t.Fatal(err)
	}
	battery.PruneArtifacts(base, 2)
	entries, _ := os.ReadDir(base)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "not-ours storecheck-x-d storecheck-x-e" {
		t.Errorf("after pruning to 2: %s; want the two newest and what is not ours", got)
	}
}

const artifactsChildEnv = "STORECHECK_TEST_ARTIFACTS_CHILD"

// TestArtifactsChild is the failing run of TestFailingRunsLeaveNoArtifacts, in a
// child process (one battery per process).
func TestArtifactsChild(t *testing.T) {
	if os.Getenv(artifactsChildEnv) == "" {
		t.Skip("a child of TestFailingRunsLeaveNoArtifacts")
	}
	Run(t, racyHarness{racyCASNoCompare}, battery.Options{Seed: 7919, Rules: []string{"M-SWAP-4"}})
}

// TestFailingRunsLeaveNoArtifacts: ten runs that fail a linearizability check leave
// nothing in the temporary directory; with STORECHECK_ARTIFACTS the evidence is kept.
func TestFailingRunsLeaveNoArtifacts(t *testing.T) {
	if os.Getenv(artifactsChildEnv) != "" {
		t.Skip("in the child")
	}
	tmp := t.TempDir()
	child := func(extra ...string) string {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestArtifactsChild$", "-test.v")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, battery.ArtifactsEnv+"=") && !strings.HasPrefix(kv, "TMPDIR=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, artifactsChildEnv+"=1", "TMPDIR="+tmp)
		cmd.Env = append(cmd.Env, extra...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "history.html") {
			t.Fatalf("the racy store's run should fail a linearizability check and name history.html: err %v\n%s", err, out)
		}
		return string(out)
	}
	for range 10 {
		if out := child(); !strings.Contains(out, "removed when the run ends") {
			t.Fatalf("the failure does not say the evidence is temporary and how to keep it:\n%s", out)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("ten failing runs left %d entries in the temporary directory, e.g. %s", len(left), left[0].Name())
	}
	keep := t.TempDir()
	child(battery.ArtifactsEnv + "=" + keep)
	kept, _ := filepath.Glob(filepath.Join(keep, "storecheck-*", "history.html"))
	if len(kept) != 1 {
		t.Errorf("with %s set, %d history.html kept, want 1", battery.ArtifactsEnv, len(kept))
	}
}

func TestPerTestReportPath(t *testing.T) {
	for _, c := range []struct {
		path, test string
		shared     bool
		want       string
	}{
		{"report.xml", "TestBattery", false, "report.xml"},
		{"report.xml", "TestConfigurations/shards=64", true, "report.TestConfigurations_shards=64.xml"},
		{"out/r.json", "TestX/a:b", true, "out/r.TestX_a_b.json"},
		{"report", "TestModern", true, "report.TestModern"},
		{"", "TestModern", true, ""},
	} {
		if got := perTestReportPath(c.path, c.test, c.shared); got != c.want {
			t.Errorf("perTestReportPath(%q, %q, %v) = %q, want %q", c.path, c.test, c.shared, got, c.want)
		}
	}
}

const reportFilesChildEnv = "STORECHECK_TEST_REPORT_FILES_CHILD"

// TestReportFilesChild is the test binary of TestEveryConfigurationKeepsItsReport: two
// configurations, the second re-executed.
func TestReportFilesChild(t *testing.T) {
	if os.Getenv(reportFilesChildEnv) == "" {
		t.Skip("a child of TestEveryConfigurationKeepsItsReport")
	}
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			Run(t, memharness.Harness(), battery.Options{Rules: []string{"L-GET-1"}})
		})
	}
}

// TestEveryConfigurationKeepsItsReport: with -storecheck.json and -storecheck.junit,
// each Run of a binary running several writes its own files, named after its subtest.
func TestEveryConfigurationKeepsItsReport(t *testing.T) {
	if os.Getenv(reportFilesChildEnv) != "" {
		t.Skip("in the child")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run", "^TestReportFilesChild$", "-test.v",
		"-storecheck.json", filepath.Join(dir, "report.json"), "-storecheck.junit="+filepath.Join(dir, "report.xml"))
	cmd.Env = append(os.Environ(), reportFilesChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("two configurations of the embedded store: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := "report.TestReportFilesChild_a.json report.TestReportFilesChild_a.xml report.TestReportFilesChild_b.json report.TestReportFilesChild_b.xml"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("report files: %s\nwant %s\n%s", got, want, out)
	}
}
