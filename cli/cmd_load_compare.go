package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/storecheck/storecheck/load"
	"github.com/storecheck/storecheck/probe"
)

// subjectList collects --subject NAME=URL[,URL...].
type subjectList []load.Subject

func (s *subjectList) String() string {
	var names []string
	for _, sub := range *s {
		names = append(names, sub.Name)
	}
	return strings.Join(names, " ")
}

func (s *subjectList) Set(v string) error {
	sub, err := load.ParseSubject(v)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), load.ErrConfig.Error()+": "))
	}
	*s = append(*s, sub)
	return nil
}

// compareFlags are the ways to name the subjects of a comparison.
type compareFlags struct {
	subjects subjectList
	file     string
	vs       urlList
}

func (f *compareFlags) add(fs *flag.FlagSet) {
	fs.Var(&f.subjects, "subject", "compare: a subject `NAME=URL[,URL...]` (a server, or a deployment's instances); repeat,\nthe first is the one the ratios are of")
	fs.StringVar(&f.file, "compare", "", "compare the subjects of a JSON `FILE`: [{\"name\", \"urls\": [...] | \"exec\": CMD (with {port}:\nstarted \"instances\" times for its run, default 1; without: stdio), \"shape\", \"eras\"}, ...]")
	fs.Var(&f.vs, "vs", "then run the same load against `URL` (repeat for a deployment) and print both side by side, as ratios")
}

// comparing reports whether the flags name a comparison.
func (f *compareFlags) comparing() bool {
	return len(f.subjects) > 0 || f.file != "" || len(f.vs) > 0
}

// list is the subjects named: --subject's, the file's, or the loaded server (A, its
// urls or stdio command, started already) and --vs's (B). Naming every server by
// --subject or --compare excludes naming one besides.
func (f *compareFlags) list(urls, command []string, instances bool) ([]load.Subject, error) {
	if len(f.vs) > 0 {
		if len(f.subjects) > 0 || f.file != "" {
			return nil, errors.New("--vs compares the loaded server with one other: name every subject by --subject or --compare instead")
		}
		return []load.Subject{{Name: "A", URLs: urls, Exec: command}, {Name: "B", URLs: f.vs}}, nil
	}
	switch {
	case len(f.subjects) > 0 && f.file != "":
		return nil, errors.New("--subject and --compare both name the subjects: give one")
	case len(urls) > 0 || len(command) > 0 || instances:
		return nil, errors.New("--subject and --compare name every server compared: give no URL, --exec or --instances besides")
	case f.file == "":
		return f.subjects, load.CheckSubjects(f.subjects)
	}
	data, err := os.ReadFile(f.file)
	if err != nil {
		return nil, fmt.Errorf("--compare: %w", err)
	}
	subs, err := load.DecodeSubjects(data)
	if err != nil {
		return nil, fmt.Errorf("--compare %s: %s", f.file, strings.TrimPrefix(err.Error(), load.ErrConfig.Error()+": "))
	}
	return subs, nil
}

// loaded is the server the load runs against besides the subjects named: the stub's
// (--ceiling), none (every subject named), or the URLs and command given, a deployment
// to start when they name one.
func (f *compareFlags) loaded(ceil bool, df *deployFlags, urls, command []string) (dep probe.Deployment, url, cmd []string, err error) {
	switch {
	case ceil && f.comparing():
		return dep, nil, nil, errors.New("--ceiling loads the stub alone: compare no subjects with it")
	case ceil || f.comparing() && len(f.vs) == 0:
		return dep, urls, command, nil
	}
	return df.deployment(urls, command)
}

// compare runs cfg against each subject named and writes each run's table as it ends,
// then the subjects side by side and the files named. Any subject not passed fails the
// run.
func (c *app) compare(fs *flag.FlagSet, cfg load.Config, f *compareFlags, urls, command []string, instances bool, jsonOut, svg string) int {
	subjects, err := f.list(urls, command, instances)
	if err != nil {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	comp, err := load.Compare(c.ctx, cfg, subjects, func(s load.Compared) {
		if s.Result != nil {
			_ = load.WriteTable(c.stdout, s.Result)
			return
		}
		fmt.Fprintf(c.stdout, "load: subject %s: %s: %s\n", s.Name, s.Verdict, s.Why)
	})
	if err != nil {
		return c.loadRefused(fs, err)
	}
	_ = load.WriteComparison(c.stdout, comp)
	names := make([]string, len(comp.Subjects))
	for i, s := range comp.Subjects {
		names[i] = s.Name
	}
	title := "storecheck load: " + strings.Join(names, " vs ")
	if code := writeOut(c, jsonOut, func(w io.Writer) error { return load.WriteComparisonJSON(w, comp) }); code != exitOK {
		return code
	}
	if code := writeOut(c, svg, func(w io.Writer) error { return load.WriteComparisonSVG(w, title, comp) }); code != exitOK {
		return code
	}
	if !comp.Passed() {
		return exitFailed
	}
	return exitOK
}

// loadRefused reports a load that could not run: a configuration error is a usage
// error; any other stops the command as well (exit 2).
func (c *app) loadRefused(fs *flag.FlagSet, err error) int {
	if errors.Is(err, load.ErrConfig) {
		code, _ := c.usageError(fs, err.Error())
		return code
	}
	fmt.Fprintf(c.stderr, "storecheck load: %v\n", err)
	return exitUsage
}

// writeOut writes a report file when a path is named.
func writeOut(c *app, path string, write func(io.Writer) error) int {
	if path == "" {
		return exitOK
	}
	var b bytes.Buffer
	_ = write(&b)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		fmt.Fprintf(c.stderr, "storecheck load: %v\n", err)
		return exitUsage
	}
	return exitOK
}
