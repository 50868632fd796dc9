// Command compat writes docs/compatibility.md and docs/compatibility.json, the
// compatibility table, from the pinned reports in docs/compatibility/reports (index.json
// names each report and the implementation it judged). Run from the repository's root:
//
//	go run ./scripts/compat            # the table from the pinned reports
//	go run ./scripts/compat -refresh   # run every report again first (make compat)
//	go run ./scripts/compat -refresh -only elixir-example,memstore
//
// -refresh builds storecheck from the checkout and runs the battery against each store
// and the probe against each server of its list, replacing the pinned report of each
// one that ran; a target that could not run keeps its report and is named at the end.
// Containers are started as storecheck run starts them (the variables of .ci/run apply).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

// The files, relative to the repository's root.
const (
	reportsDir = "docs/compatibility/reports"
	mdPath     = "docs/compatibility.md"
	jsonPath   = "docs/compatibility.json"
)

// errStale: a committed table differs from the one its reports give.
var errStale = errors.New("compat: the committed table differs from its reports")

func main() {
	refresh := flag.Bool("refresh", false, "run the reports again before writing the table")
	only := flag.String("only", "", "with -refresh: the comma-separated keys of the targets to run")
	check := flag.Bool("check", false, "write nothing; exit 1 when the committed table differs from its reports")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *refresh, *only, *check); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(ctx context.Context, refresh bool, only string, check bool) error {
	var failed error
	if refresh {
		failed = refreshReports(ctx, reportsDir, only)
	}
	files, err := generate(reportsDir)
	if err != nil {
		return err
	}
	if check {
		return compare(files)
	}
	for path, b := range files {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
	}
	return failed
}

// generate is the content of each generated file, by path.
func generate(dir string) (map[string][]byte, error) {
	t, err := loadTable(dir, dir)
	if err != nil {
		return nil, err
	}
	js, err := jsonForm(t)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{mdPath: markdown(t), jsonPath: js}, nil
}

// compare fails naming every committed file that differs from its generated content.
func compare(files map[string][]byte) error {
	var stale []string
	for path, want := range files {
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			stale = append(stale, path)
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("%w: %s (run go run ./scripts/compat and commit)", errStale, strings.Join(stale, ", "))
	}
	return nil
}
