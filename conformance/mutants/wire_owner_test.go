package mutants_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/conformance/mutants"
	"github.com/storecheck/storecheck/conformance/rules"
	"github.com/storecheck/storecheck/internal/mutant"
)

// wireChildEnv names the wire mutant TestWireMutantChild serves ("honest": no filter).
const wireChildEnv = "STORECHECK_WIRE_MUTANT_CHILD"

// TestWireMutantChild is the child of TestWireMutantsFailExactlyTheirRules: with
// $STORECHECK_WIRE_MUTANT_CHILD set it serves that wire mutant on its standard input
// and output, then exits before the testing package writes to standard output.
func TestWireMutantChild(t *testing.T) {
	name := os.Getenv(wireChildEnv)
	if name == "" {
		t.Skip("the child of TestWireMutantsFailExactlyTheirRules; runs only as such")
	}
	m := mutant.Mutant[mutants.WireBuild]{Build: mutants.WireBuild{Input: func(r io.Reader) io.Reader { return r }}}
	if name != mutants.HonestName {
		i := slices.IndexFunc(mutants.WireMutants(), func(w mutant.Mutant[mutants.WireBuild]) bool { return w.Name == name })
		if i < 0 {
			fmt.Fprintf(os.Stderr, "no wire mutant %q\n", name)
			os.Exit(2)
		}
		m = mutants.WireMutants()[i]
	}
	if err := wire.Serve(context.Background(), m.Build.Input(os.Stdin), os.Stdout, mutants.WireHarness(), wire.ServeOptions{Log: os.Stderr}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// TestWireMutantsFailExactlyTheirRules runs the facade rules and S-OWN-* (--strict, both
// eras) over the wire against the honest Go child and each wire mutant (this test
// binary as the child), and against the Python example and its variant with the same
// defect as wire-owner-null-as-principal: the honest children pass them all, and each
// mutant, which mishandles a facade create's owner null while "" stays no owner, fails
// exactly the rules it declares. Only the walks that send "no owner" as null can tell
// them from the honest children, so this also shows those walks run over the wire.
func TestWireMutantsFailExactlyTheirRules(t *testing.T) {
	if testing.Short() {
		t.Skip("builds storecheck and runs the facade rules over the wire per mutant; skipped with -short")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rules.All() {
		if strings.HasPrefix(r.ID, "L-F-") || strings.HasPrefix(r.ID, "M-F-") || strings.HasPrefix(r.ID, "S-OWN-") {
			ids = append(ids, r.ID)
		}
	}
	type child struct {
		name, exec string
		breaks     []string
	}
	goChild := func(name string) string {
		return "env " + wireChildEnv + "=" + name + " " + strconv.Quote(self) + " -test.run=^TestWireMutantChild$"
	}
	children := []child{{"honest Go child", goChild(mutants.HonestName), nil}}
	for _, m := range mutants.WireMutants() {
		children = append(children, child{"Go child " + m.Name, goChild(m.Name), m.Breaks})
	}
	if py, err := exec.LookPath("python3"); err == nil {
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			t.Fatal(err)
		}
		const variant = "wire-owner-null-as-principal"
		i := slices.IndexFunc(mutants.WireMutants(), func(w mutant.Mutant[mutants.WireBuild]) bool { return w.Name == variant })
		children = append(children,
			child{"the Python example", strconv.Quote(py) + " " + strconv.Quote(filepath.Join(root, "examples", "python-store", "store.py")), nil},
			child{"the Python example with " + variant, strconv.Quote(py) + " " + strconv.Quote(filepath.Join(root, "adapters", "wire", "selftest", "python", "testdata", "variants.py")) + " " + variant,
				mutants.WireMutants()[i].Breaks})
	} else {
		t.Log("python3 is not on PATH: the Python example is not run")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, c := range children {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := runReport(bin, filepath.Join(dir, strconv.Itoa(i)+".json"), "--exec", c.exec, "--strict", "--rules", strings.Join(ids, ","))
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
				return
			}
			want := slices.Sorted(slices.Values(c.breaks))
			if got := failedIDs(r.rules); !slices.Equal(got, want) {
				t.Errorf("%s over the wire: failed %v, want exactly %v\n%s", c.name, got, want, lastLinesOf(r.out, 40))
			}
			if c.breaks == nil && r.err != nil {
				t.Errorf("%s over the wire: exit %v, want a strict pass\n%s", c.name, r.err, lastLinesOf(r.out, 40))
			}
		})
	}
	wg.Wait()
}
