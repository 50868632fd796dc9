// Command storecheck checks a task store against the specification: it runs the
// conformance battery against a store (the embedded memstore by default, or one of the
// adapters) and prints a per-rule report.
//
// Subcommands and adapters are registered from init functions, one file each
// (cmd_NAME.go, adapters_NAME.go), so that adding one touches no other file.
package main

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
)

// Exit statuses.
const (
	exitOK      = 0 // every MUST rule passed (and every SHOULD under --strict)
	exitFailed  = 1 // a rule failed
	exitUsage   = 2 // a usage error, or the store could not be brought up
	defaultVerb = "run"
)

// command is one subcommand of storecheck.
type command struct {
	name    string
	summary string // one line, for `storecheck help`
	// run runs the command with the arguments after its name and returns the exit
	// status.
	run func(c *cli, args []string) int
}

var commands = map[string]*command{}

// addCommand registers a subcommand; call it from an init function.
func addCommand(cmd *command) {
	if _, dup := commands[cmd.name]; dup {
		panic("storecheck: command registered twice: " + cmd.name)
	}
	commands[cmd.name] = cmd
}

// cli is what a command runs with.
type cli struct {
	ctx            context.Context
	stdout, stderr io.Writer
	// progress is true when stderr is a terminal: commands may then draw progress on it.
	progress bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := runCLI(ctx, os.Args[1:], os.Stdout, os.Stderr, isTerminal(os.Stderr))
	stop()
	os.Exit(code)
}

// runCLI runs storecheck with args (without the program name) and returns the exit
// status. With no command it runs `storecheck run`; flags without a command are run's.
func runCLI(ctx context.Context, args []string, stdout, stderr io.Writer, progress bool) int {
	c := &cli{ctx: ctx, stdout: stdout, stderr: stderr, progress: progress}
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
		fmt.Fprintf(stderr, "storecheck: unknown command %q\n\n", name)
		printUsage(stderr)
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
func (c *cli) parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
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
func (c *cli) usageError(fs *flag.FlagSet, msg string) (int, bool) {
	fmt.Fprintf(c.stderr, "%s: %s\nRun '%s --help' for usage.\n", fs.Name(), msg, fs.Name())
	return exitUsage, false
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `storecheck checks a task store against the task store specification (SPEC.md):
it runs the conformance battery, one or more specs per rule, and reports per rule.

Usage:
  storecheck                  run the battery against the embedded memstore, both eras
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
	for _, a := range sortedAdapters() {
		fmt.Fprintf(w, "  %-14s %s\n", a.usageName(), a.summary)
	}
	fmt.Fprint(w, `
Exit status:
  0  no rule failed (warnings, skips, inconclusive and not exercised rules do not
     fail a run; partly verified rules fail it only under --strict)
  1  a rule failed (a SHOULD rule only under --strict), was aborted (the transport
     or a namespace's bring-up failed), or had a setup call refused; under --strict,
     a rule was only partly verified
  2  usage error, or the store could not be brought up before the run

Run 'storecheck help COMMAND' or 'storecheck COMMAND --help' for a command's flags.
`)
}

// isTerminal reports whether f is a terminal (a character device), without a
// dependency: progress is drawn only there.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
