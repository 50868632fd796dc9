package release_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/release"
)

// TestReproducible builds this machine's release twice, into two directories: the
// binaries, the archives and SHA256SUMS must be the same bytes. (make dist builds every
// platform; this one target keeps make test short.)
func TestReproducible(t *testing.T) {
	t.Parallel()
	first := dist(t)
	tg := host(t)
	again, err := release.Dist(t.Context(), source(t), release.Options{Out: t.TempDir(), Targets: []release.Target{tg}})
	if err != nil {
		t.Fatal(err)
	}
	if again.Version != first.Version {
		t.Errorf("reproducible build: the version stamped, want %q both times, got %q", first.Version, again.Version)
	}
	same := func(what, a, b string) {
		x, errA := os.ReadFile(a)
		y, errB := os.ReadFile(b)
		if errA != nil || errB != nil {
			t.Fatalf("%s: %v, %v", what, errA, errB)
		}
		if !bytes.Equal(x, y) {
			t.Errorf("reproducible build: %s differs between two builds of one commit (%s, %s)", what, a, b)
		}
	}
	same("the binary", first.Binaries[tg], again.Binaries[tg])
	same("the archive", first.Archives[0], again.Archives[0])
	same(release.SumsFile, first.Sums, again.Sums)
	sums, err := os.ReadFile(again.Sums)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Base(again.Archives[0]); !strings.HasSuffix(strings.TrimSpace(string(sums)), "  "+want) {
		t.Errorf("%s: want the line of %s, got:\n%s", release.SumsFile, want, sums)
	}
}

// TestArchiveFixed: an archive's bytes are a function of its files and the epoch (the
// same twice, whatever the order given), and each entry carries the epoch, its mode and
// owner 0, in name order, in both formats.
func TestArchiveFixed(t *testing.T) {
	t.Parallel()
	epoch := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	files := []release.File{
		{Name: "storecheck", Mode: 0o755, Data: []byte("binary")},
		{Name: "README.md", Mode: 0o644, Data: []byte("# storecheck\n")},
	}
	reversed := []release.File{files[1], files[0]}
	for _, ext := range []string{".tar.gz", ".zip"} {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a"+ext), filepath.Join(dir, "b"+ext)
		if err := release.WriteArchive(a, files, epoch); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond) // a clock read by the writer would show
		if err := release.WriteArchive(b, reversed, epoch); err != nil {
			t.Fatal(err)
		}
		x, _ := os.ReadFile(a)
		y, _ := os.ReadFile(b)
		if !bytes.Equal(x, y) {
			t.Errorf("%s: the same files written twice (in two orders) differ", ext)
		}
		got := entries(t, a)
		want := "README.md -rw-r--r-- 0 2026-01-02T03:04:05Z\nstorecheck -rwxr-xr-x 0 2026-01-02T03:04:05Z\n"
		if got != want {
			t.Errorf("%s entries: want\n%sgot\n%s", ext, want, got)
		}
	}
}

// entries lists an archive's entries: name, mode, owner, time.
func entries(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	add := func(name string, mode os.FileMode, uid int, mtime time.Time) {
		fmt.Fprintf(&b, "%s %s %d %s\n", name, mode, uid, mtime.UTC().Format(time.RFC3339))
	}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			add(f.Name, f.Mode(), 0, f.Modified)
		}
		return b.String()
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		add(h.Name, h.FileInfo().Mode(), h.Uid, h.ModTime)
	}
	return b.String()
}
