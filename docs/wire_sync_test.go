package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/storecheck/storecheck/docs"
)

// codeOps returns the values of the op constants of adapters/wire (op followed by an
// upper-case letter, string-valued: opHello, opLegacyCreate, ...), read from its source
// so that the constants stay unexported.
func codeOps(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "adapters", "wire", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					n := id.Name
					if len(n) < 3 || !strings.HasPrefix(n, "op") || !unicode.IsUpper(rune(n[2])) || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					ops = append(ops, v)
				}
			}
		}
	}
	if len(ops) < 40 {
		t.Fatalf("found only %d op constants in adapters/wire: %v", len(ops), ops)
	}
	return ops
}

// TestWireMatchesOps is the wire sync check: every op constant of adapters/wire is
// defined in docs/wire.md (an operation table, or a step of "Session"), and every op
// docs/wire.md defines is an op constant.
func TestWireMatchesOps(t *testing.T) {
	onlyCode, onlyDoc, err := docs.DiffOps(docs.Wire, codeOps(t))
	if err != nil {
		t.Fatal(err)
	}
	wantNoneApart(t, "ops", "adapters/wire", "docs/wire.md", onlyCode, onlyDoc)
}

// TestDiffOpsCatchesRemovals proves the wire sync check can fail: it removes one op from
// each side in turn (a table row and a session step) and wants DiffOps to name it.
func TestDiffOpsCatchesRemovals(t *testing.T) {
	ops := codeOps(t)
	for _, tc := range []struct{ victim, item string }{
		{"legacy.cancel", "\n| `legacy.cancel` |"},
		{"modern.tasks.require_input", "\n| `modern.tasks.require_input` |"},
		{"sdk.wait", "\n| `sdk.wait` |"},
		{"hello", "\n1. `hello` "},
		{"facade.configure", "\n5. `facade.configure` "},
	} {
		if !slices.Contains(ops, tc.victim) {
			t.Fatalf("%s is not an op constant of adapters/wire", tc.victim)
		}
		// Removed from the document: the row or step is gone, the code still has the op.
		i := strings.Index(docs.Wire, tc.item)
		if i < 0 {
			t.Fatalf("docs/wire.md has no item %q", tc.item)
		}
		mutated := docs.Wire[:i] + "\n" + docs.Wire[i+len(tc.item):]
		onlyCode, onlyDoc, err := docs.DiffOps(mutated, ops)
		if err != nil || !slices.Equal(onlyCode, []string{tc.victim}) || len(onlyDoc) != 0 {
			t.Errorf("%s removed from docs/wire.md: DiffOps = %v, %v, %v; want [%s], [], nil", tc.victim, onlyCode, onlyDoc, err, tc.victim)
		}
		// Removed from the code: the document still defines it.
		short := slices.DeleteFunc(slices.Clone(ops), func(op string) bool { return op == tc.victim })
		onlyCode, onlyDoc, err = docs.DiffOps(docs.Wire, short)
		if err != nil || len(onlyCode) != 0 || !slices.Equal(onlyDoc, []string{tc.victim}) {
			t.Errorf("%s removed from adapters/wire: DiffOps = %v, %v, %v; want [], [%s], nil", tc.victim, onlyCode, onlyDoc, err, tc.victim)
		}
	}
	// A duplicate row is refused rather than silently shadowed.
	dup := docs.Wire + "\n| `legacy.get` | `{}` | task |\n"
	if _, _, err := docs.DiffOps(dup, ops); err == nil {
		t.Error("DiffOps accepted a document defining legacy.get twice")
	}
}
