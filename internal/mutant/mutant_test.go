package mutant_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneMutantType: no package of the module declares a mutant type of its own (a type
// whose name ends in Mutant): every family of defects is a mutant.Mutant with its Build.
func TestOneMutantType(t *testing.T) {
	root := filepath.Join("..", "..")
	own := filepath.Join(root, "internal", "mutant")
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				name := s.(*ast.TypeSpec).Name.Name
				if strings.HasSuffix(strings.ToLower(name), "mutant") && filepath.Dir(path) != own {
					t.Errorf("%s declares type %s: a mutant of any family is a mutant.Mutant, its family's part a Build", path, name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("%d Go files under %s: the walk missed the module", files, root)
	}
}
