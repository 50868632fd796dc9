package release_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// runner is the environment a GitHub Actions runner gives the action's step: its
// temporary directory, the files it reads outputs and the summary from, the platform.
type runner struct {
	env              []string
	output, summary  string
	outputs          map[string]string
	summaryMarkdown  string
	exitCode         int
	stdout, tempRoot string
}

func newRunner(t *testing.T, inputs ...string) *runner {
	t.Helper()
	root := t.TempDir()
	r := &runner{output: filepath.Join(root, "output"), summary: filepath.Join(root, "summary.md"), tempRoot: filepath.Join(root, "temp")}
	if err := os.Mkdir(r.tempRoot, 0o755); err != nil {
		t.Fatal(err)
	}
	arch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	r.env = append([]string{"GITHUB_ACTIONS=true", "CI=true", "RUNNER_OS=Linux", "RUNNER_ARCH=" + arch,
		"RUNNER_TEMP=" + r.tempRoot, "GITHUB_OUTPUT=" + r.output, "GITHUB_STEP_SUMMARY=" + r.summary,
		"GITHUB_ACTION_PATH=" + repoRoot(t), "GITHUB_WORKSPACE=" + root}, inputs...)
	return r
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// step runs release/action/storecheck.sh as action.yml's step does, and reads back the
// outputs and the summary it wrote.
func (r *runner) step(t *testing.T) {
	t.Helper()
	r.stdout, r.exitCode = run(t, "", r.env, "bash", filepath.Join(repoRoot(t), "release", "action", "storecheck.sh"))
	r.outputs = map[string]string{}
	data, _ := os.ReadFile(r.output)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			r.outputs[k] = v
		}
	}
	md, _ := os.ReadFile(r.summary)
	r.summaryMarkdown = string(md)
}

// TestActionProbe: the action downloads the latest release (served from the test's
// dist on loopback), checks its archive against SHA256SUMS, probes the reference server,
// names the JSON and JUnit reports in its outputs, and puts the report's Markdown (what
// `storecheck report --markdown` prints) in the job summary.
func TestActionProbe(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the test plays a Linux runner")
	}
	d := dist(t)
	bin := d.Binaries[host(t)]
	want := binaryProbe(t, bin)
	r := newRunner(t, "INPUT_COMMAND=probe", "INPUT_VERSION=latest",
		"INPUT_ARGS="+strings.Join(probeArgs(serve(t, bin)), " "),
		"STORECHECK_RELEASES="+releases(t, d.Version, filepath.Dir(d.Sums)))
	r.step(t)
	if r.exitCode != 0 || r.outputs["exit-code"] != "0" {
		t.Errorf("action probe of the reference server: want exit 0 and output exit-code=0, got exit %d and outputs %v", r.exitCode, r.outputs)
	}
	for _, k := range []string{"json", "junit"} {
		if fi, err := os.Stat(r.outputs[k]); err != nil || fi.Size() == 0 || !strings.HasPrefix(r.outputs[k], r.tempRoot) {
			t.Errorf("action output %s: want a report file under RUNNER_TEMP, got %q (%v)", k, r.outputs[k], err)
		}
	}
	sameVerdicts(t, "the action", want, verdicts(t, r.outputs["json"]))
	markdown, code := run(t, "", nil, bin, "report", r.outputs["json"], "--markdown")
	if code != 0 || markdown == "" || r.summaryMarkdown != markdown {
		t.Errorf("job summary: want storecheck report --markdown of the JSON report (exit %d):\n%s\ngot:\n%s", code, markdown, r.summaryMarkdown)
	}
}

// TestActionRun: a run whose rule fails exits 1 with its reports and summary written; a
// binary input is used as given; battery rules against a Postgres container by DSN give
// the binary's verdicts.
func TestActionRun(t *testing.T) {
	d := dist(t)
	r := newRunner(t, "INPUT_COMMAND=run", "INPUT_BINARY="+d.Binaries[host(t)],
		`INPUT_ARGS=--adapter "mutant:get-missing-empty" --rules 'L-GET-1'`)
	r.step(t)
	if r.exitCode != 1 || r.outputs["exit-code"] != "1" {
		t.Errorf("action run of a mutant failing L-GET-1: want exit 1 and output exit-code=1, got exit %d and outputs %v", r.exitCode, r.outputs)
	}
	if v := verdicts(t, r.outputs["json"]); v["L-GET-1 legacy"] != "failed" {
		t.Errorf("action run of a mutant failing L-GET-1: want L-GET-1 failed in the JSON report, got %v", v)
	}
	if !strings.Contains(r.summaryMarkdown, "L-GET-1") {
		t.Errorf("job summary of a run failing L-GET-1: want the rule named, got:\n%s", r.summaryMarkdown)
	}
	dsn, _, want := postgresBattery(t, d.Binaries[host(t)])
	r = newRunner(t, "INPUT_COMMAND=run", "INPUT_BINARY="+d.Binaries[host(t)],
		fmt.Sprintf("INPUT_ARGS=--adapter postgres --dsn '%s' --rules %s", dsn, pgRules))
	r.step(t)
	if r.exitCode != 0 || r.outputs["exit-code"] != "0" {
		t.Errorf("action run against Postgres: want exit 0 and output exit-code=0, got exit %d and outputs %v", r.exitCode, r.outputs)
	}
	sameVerdicts(t, "the action's battery on Postgres", want, verdicts(t, r.outputs["json"]))
}

// TestActionRefuses: an archive that does not match the release's SHA256SUMS is never
// run, and neither is an unknown command.
func TestActionRefuses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the test plays a Linux runner")
	}
	d := dist(t)
	tampered := t.TempDir()
	archive := filepath.Base(d.Archives[0])
	if err := os.WriteFile(filepath.Join(tampered, archive), []byte("not the archive"), 0o644); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(d.Sums)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tampered, "SHA256SUMS"), sums, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, inputs := range map[string][]string{
		"tampered archive": {"INPUT_COMMAND=run", "INPUT_VERSION=" + d.Version, "STORECHECK_RELEASES=" + releases(t, d.Version, tampered)},
		"unknown command":  {"INPUT_COMMAND=bench", "INPUT_BINARY=" + d.Binaries[host(t)]},
	} {
		r := newRunner(t, inputs...)
		r.step(t)
		if r.exitCode != 2 || r.outputs["json"] != "" {
			t.Errorf("action with a %s: want exit 2 before any run (no report output), got exit %d and outputs %v", name, r.exitCode, r.outputs)
		}
	}
}
