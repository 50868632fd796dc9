// Package cli is the storecheck command line as a library: Main runs it. The storecheck
// command is Main with the database adapters of package cli/builtin; a store author's
// own main gets the same CLI (run, list, mutants, bench, serve) for a Go store with one
// option, and links no database driver:
//
//	func main() { cli.Main(cli.WithHarness(mystore.Harness())) }
//
// Subcommands and the adapters every binary has (memstore, ets-like, exec, mutant) are
// registered from init functions, one file each (cmd_NAME.go, adapters_NAME.go), so that
// adding one touches no other file.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"

	"golang.org/x/term"

	"github.com/storecheck/storecheck/conformance/harness"
)

// Exit statuses.
const (
	exitOK      = 0 // every MUST rule passed (and every SHOULD under --strict)
	exitFailed  = 1 // a rule failed, was aborted or had its setup refused (Report.OK)
	exitUsage   = 2 // a usage error, or the store could not be brought up
	defaultVerb = "run"
)

// exitFor is the exit status of a report that was written: exitOK when it is OK
// (Report.OK), else exitFailed.
func exitFor(ok bool) int {
	if ok {
		return exitOK
	}
	return exitFailed
}

// command is one subcommand of storecheck.
type command struct {
	name    string
	summary string // one line, for `storecheck help`
	// run runs the command with the arguments after its name and returns the exit
	// status.
	run func(c *app, args []string) int
}

var commands = map[string]*command{}

// addCommand registers a subcommand; call it from an init function.
func addCommand(cmd *command) {
	if _, dup := commands[cmd.name]; dup {
		panic("storecheck: command registered twice: " + cmd.name)
	}
	commands[cmd.name] = cmd
}

// app is what a command runs with: the I/O of this invocation and its adapters.
type app struct {
	ctx            context.Context
	stdout, stderr io.Writer
	// progress is true when stderr is a terminal: commands may then draw progress on it.
	progress bool
	// adapters are the built-in ones and those given by options; defaultAdapter is what
	// run, serve and bench use without --adapter.
	adapters       map[string]adapter
	defaultAdapter string
	customDefault  bool // an option has set defaultAdapter
}

// Option configures Main and Run.
type Option func(*app)

// WithHarness adds the store of h as an adapter named h.Name() and makes it the default:
// `storecheck run` (and serve, and bench) then check it without --adapter. A built-in
// adapter of the same name is replaced. The first WithHarness sets the default.
func WithHarness(h harness.Harness) Option {
	return WithAdapter(h.Name(), "the store of this binary: "+h.Name(),
		func(context.Context) (harness.Harness, func(), error) { return h, nil, nil })
}

// WithAdapter adds a named store whose bring-up may fail or need releasing (a container,
// a connection): open runs after flags are parsed, and cleanup (may be nil) after the
// run. Use it to offer several configurations of one store (--adapter NAME picks one).
// The first adapter given by an option becomes the default.
func WithAdapter(name, summary string, open func(ctx context.Context) (h harness.Harness, cleanup func(), err error)) Option {
	return func(c *app) {
		name = strings.NewReplacer(":", "-", " ", "-").Replace(name)
		c.adapters[name] = adapter{name: name, summary: summary, custom: true,
			open: func(ctx context.Context, _ string) (harness.Harness, func(), error) { return open(ctx) }}
		if !c.customDefault {
			c.defaultAdapter, c.customDefault = name, true
		}
	}
}

// Main runs the storecheck command line with os.Args and exits with its status: 0 every
// MUST rule passed, 1 a rule failed, 2 a usage error or a store that could not be brought
// up. Interrupt (Ctrl-C) cancels the run.
func Main(opts ...Option) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := Run(ctx, os.Args[1:], os.Stdout, os.Stderr, opts...)
	stop()
	os.Exit(code)
}

// Run runs storecheck with args (without the program name) and returns the exit status.
// With no command it runs `storecheck run`; flags without a command are run's. Progress
// is drawn on stderr when it is a terminal.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, opts ...Option) int {
	return newApp(ctx, stdout, stderr, opts...).run(args)
}

func newApp(ctx context.Context, stdout, stderr io.Writer, opts ...Option) *app {
	progress := false
	if f, ok := stderr.(*os.File); ok {
		progress = isTerminal(f)
	}
	c := &app{ctx: ctx, stdout: stdout, stderr: stderr, progress: progress,
		adapters: make(map[string]adapter, len(builtinAdapters)), defaultAdapter: "memstore"}
	for name, a := range builtinAdapters {
		c.adapters[name] = a
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

func (c *app) run(args []string) int {
	name, rest := defaultVerb, args
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "-h" || a == "-help" || a == "--help":
			name, rest = "help", nil
		case !strings.HasPrefix(a, "-"):
			name, rest = a, args[1:]
		}
	}
	cmd, ok := commands[name]
	if !ok {
		fmt.Fprintf(c.stderr, "storecheck: unknown command %q\n\n", name)
		c.printUsage(c.stderr)
		return exitUsage
	}
	return cmd.run(c, rest)
}

// newFlagSet makes a command's flag set; parse reports errors and help itself.
func newFlagSet(name, usage string, describe func(w io.Writer)) *flag.FlagSet {
	fs := flag.NewFlagSet("storecheck "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: %s\n\n", usage)
		if describe != nil {
			describe(w)
		}
		fmt.Fprintf(w, "Flags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args into fs. It returns ok false and the exit status when the command
// should stop: 0 after --help (usage on stdout), 2 after a bad flag or a stray argument.
func (c *app) parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(c.stdout)
		fs.Usage()
		return exitOK, false
	case err != nil:
		return c.usageError(fs, err.Error())
	case fs.NArg() > 0:
		return c.usageError(fs, fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	return 0, true
}

// usageError reports a usage error for fs's command and returns exit status 2.
func (c *app) usageError(fs *flag.FlagSet, msg string) (int, bool) {
	fmt.Fprintf(c.stderr, "%s: %s\nRun '%s --help' for usage.\n", fs.Name(), msg, fs.Name())
	return exitUsage, false
}

func (c *app) printUsage(w io.Writer) {
	fmt.Fprint(w, `storecheck checks a task store against the task store specification (docs/spec.md):
it runs the conformance battery, one or more specs per rule, and reports per rule.

Usage:
  storecheck                  run the battery against the default store (`+c.defaultAdapter+`), every era
  storecheck COMMAND [flags]

Commands:
`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, "\nAdapters (storecheck run --adapter NAME):\n")
	for _, a := range c.sortedAdapters() {
		summary := a.summary
		if a.name == c.defaultAdapter {
			summary += " (the default)"
		}
		fmt.Fprintf(w, "  %-14s %s\n", a.usageName(), summary)
	}
	fmt.Fprint(w, `
Exit status:
  0  no rule failed (warnings, skips and not exercised rules do not fail a run;
     partly verified and inconclusive rules fail it only under --strict)
  1  a rule failed (a SHOULD rule only under --strict), was aborted (the transport
     or a namespace's bring-up failed), or had a setup call refused; under --strict,
     a rule was only partly verified or inconclusive
  2  usage error, or the store could not be brought up before the run

Run 'storecheck help COMMAND' or 'storecheck COMMAND --help' for a command's flags.
`)
}

// isTerminal reports whether f is a terminal: progress is drawn only there (or when
// asked, -v). A character device is not enough: /dev/null is one.
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}
