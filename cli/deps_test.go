package cli

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEmbeddingLinksNoDriver: the main a store author writes (cli/internal/mystorecheck,
// the README's cmd/mystore-check) links no database driver or container library, which
// come only with cli/builtin; cmd/storecheck links them all.
func TestEmbeddingLinksNoDriver(t *testing.T) {
	drivers := []string{"github.com/jackc/pgx", "github.com/redis/go-redis", "github.com/riverqueue/river",
		"modernc.org/sqlite", "github.com/testcontainers/testcontainers-go"}
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Skipf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	linked := func(deps []string, prefix string) bool {
		for _, d := range deps {
			if d == prefix || strings.HasPrefix(d, prefix+"/") {
				return true
			}
		}
		return false
	}
	author := deps("github.com/storecheck/storecheck/cli/internal/mystorecheck")
	for _, d := range drivers {
		if linked(author, d) {
			t.Errorf("the embedding binary links %s", d)
		}
	}
	full := deps("github.com/storecheck/storecheck/cmd/storecheck")
	for _, d := range drivers {
		if !linked(full, d) {
			t.Errorf("cmd/storecheck does not link %s: the built-in adapters are missing", d)
		}
	}
}
