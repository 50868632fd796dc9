package conformance

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/storecheck/storecheck/conformance/battery"
)

// Settings of a `go test` run, each as a test flag and as an environment variable: a
// flag given on the command line wins over the variable, and either wins over the field
// of Options the test passed (the test's own choice is the default a CI job can
// override without editing code).
//
//	go test -v ./mystore -storecheck.strict -storecheck.rules L-LIST-2,M-SWAP-1 -storecheck.junit report.xml
//	STORECHECK_STRICT=1 STORECHECK_JSON=report.json go test ./...
//
// The flags are registered on the test binary's command line when this package is
// imported; a program that parses flag.CommandLine itself sees them too, as it sees
// Ginkgo's. The test binary of a package that does not import it has no such flags
// ("flag provided but not defined"), so give the flags with the path of the package
// running the battery, and use the variables with ./... .
var testFlags = struct {
	strict                        bool
	rules, json, junit, artifacts string
	seed                          int64
}{}

// goTestSettings names each setting's flag (after "storecheck.") and variable.
var goTestSettings = []struct{ flag, env, usage string }{
	{"strict", "STORECHECK_STRICT", "SHOULD faults fail their spec instead of being warnings; partly verified and inconclusive rules fail the run"},
	{"rules", "STORECHECK_RULES", "run only these rules: comma-separated IDs (storecheck list prints them)"},
	{"seed", battery.SeedEnv, "seed of every randomised check (0 picks one; the summary prints it)"},
	{"json", "STORECHECK_JSON", "write the report as JSON to `FILE`"},
	{"junit", "STORECHECK_JUNIT", "write the report as JUnit XML to `FILE`"},
	{"artifacts", battery.ArtifactsEnv, "keep the evidence of failing checks (porcupine's history.html) under `DIR`\n(default: a temporary directory removed when the run ends)"},
}

func init() {
	fs := flag.CommandLine
	if fs.Lookup("storecheck.strict") != nil {
		return
	}
	for _, s := range goTestSettings {
		name, usage := "storecheck."+s.flag, s.usage+" (or $"+s.env+")"
		switch s.flag {
		case "strict":
			fs.BoolVar(&testFlags.strict, name, false, usage)
		case "rules":
			fs.StringVar(&testFlags.rules, name, "", usage)
		case "seed":
			fs.Int64Var(&testFlags.seed, name, 0, usage)
		case "json":
			fs.StringVar(&testFlags.json, name, "", usage)
		case "junit":
			fs.StringVar(&testFlags.junit, name, "", usage)
		case "artifacts":
			fs.StringVar(&testFlags.artifacts, name, "", usage)
		}
	}
}

// ErrOptions is wrapped when Run gets more than one Options or a setting that cannot
// be read (a STORECHECK_* variable that is not a boolean or a number).
var ErrOptions = errors.New("conformance: bad options")

// goTestOptions is the Options of a Run call: the one the test passed (at most one),
// overridden by STORECHECK_* variables, overridden by -storecheck.* flags.
func goTestOptions(opts []battery.Options) (battery.Options, error) {
	o, _, err := goTestOptionsFrom(opts)
	return o, err
}

// goTestOptionsFrom is goTestOptions that also says which settings came from a flag or
// a variable (by their flag names): those are the whole test binary's, not the test's.
func goTestOptionsFrom(opts []battery.Options) (_ battery.Options, fromCommandLine map[string]bool, _ error) {
	fromCommandLine = map[string]bool{}
	if len(opts) > 1 {
		return battery.Options{}, nil, fmt.Errorf("%w: Run takes at most one Options, got %d (merge them into one; several configurations of one store are several t.Run subtests, see the README)", ErrOptions, len(opts))
	}
	var o battery.Options
	if len(opts) == 1 {
		o = opts[0]
	}
	set := map[string]bool{}
	if flag.Parsed() {
		flag.CommandLine.Visit(func(f *flag.Flag) { set[strings.TrimPrefix(f.Name, "storecheck.")] = true })
	}
	for _, s := range goTestSettings {
		v, fromEnv := os.LookupEnv(s.env)
		if !set[s.flag] && (!fromEnv || strings.TrimSpace(v) == "") {
			continue
		}
		if set[s.flag] {
			v = flag.CommandLine.Lookup("storecheck." + s.flag).Value.String()
		}
		fromCommandLine[s.flag] = true
		switch s.flag {
		case "strict":
			b, err := strconv.ParseBool(strings.TrimSpace(v))
			if err != nil {
				return o, nil, fmt.Errorf("%w: $%s=%q: want true or false (1 or 0)", ErrOptions, s.env, v)
			}
			o.Strict = b
		case "rules":
			o.Rules = splitRules(v)
		case "seed":
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return o, nil, fmt.Errorf("%w: $%s=%q: want an integer", ErrOptions, s.env, v)
			}
			o.Seed = n
		case "json":
			o.JSON = v
		case "junit":
			o.JUnit = v
		case "artifacts":
			o.Artifacts = v
		}
	}
	return o, fromCommandLine, nil
}

// perTestReportPath is where one Run writes a report file named by a flag or a
// STORECHECK_* variable when several Runs share the test binary: in a subtest, or
// re-executed after another Run, the test's name goes before the extension
// (report.xml -> report.TestConfigurations_shards=64.xml), so that every configuration
// keeps its own file. A single top-level Run writes the path as given.
func perTestReportPath(path, testName string, shared bool) string {
	if path == "" || !shared {
		return path
	}
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '=', r == '-', r == '_', r == '.', r == '+':
			return r
		}
		return '_'
	}, testName)
	dir, file := filepath.Split(path)
	ext := filepath.Ext(file)
	if ext == file { // ".xml" or no name: keep the dot file's name whole
		ext = ""
	}
	return filepath.Join(dir, strings.TrimSuffix(file, ext)+"."+name+ext)
}

// splitRules reads a comma-separated list of rule IDs.
func splitRules(s string) []string {
	var ids []string
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}
