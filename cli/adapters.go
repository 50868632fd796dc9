package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
)

// adapter brings up one kind of store for the battery. The ones every binary has live in
// a file each, adapters_NAME.go, registering from init; the database adapters come from
// package cli/builtin through WithAdapters, and WithHarness and WithAdapter add others
// per invocation:
//
//	func init() {
//		addAdapter(adapter{
//			name:    "memstore",
//			summary: "the embedded sharded in-memory store",
//			open:    func(ctx context.Context, arg string) (harness.Harness, func(), error) { ... },
//		})
//	}
type adapter struct {
	name    string
	summary string // one line, for `storecheck help`
	// argName, when set, says the adapter takes an argument: --adapter NAME:ARG (e.g.
	// "mutant:NAME"). Without it an argument is a usage error.
	argName string
	// flags, when set, registers the adapter's own flags on a command's flag set
	// (run, and any command that opens a store). Every adapter's flags are registered,
	// so flag names are shared by all adapters: name them for the adapter (--dsn,
	// --redis-addr) and say which adapter they are for in the help text.
	flags func(fs *flag.FlagSet)
	// custom is true for an adapter given by an option (WithHarness, WithAdapter):
	// bench measures it through its harness rather than a benchmark target.
	custom bool
	// validate, when set, checks the adapter's flags before anything is started; its
	// error is a usage error.
	validate func() error
	// open brings the store up, after flags are parsed. cleanup (may be nil) releases
	// what open started (containers, child processes); it runs after the battery.
	open func(ctx context.Context, arg string) (h harness.Harness, cleanup func(), err error)
	// openFaults, when set, brings the store up for the fault checks (run --faults): on
	// a backend in containers storecheck starts, that it may pause, kill and restart;
	// the harness implements harness.FaultInjector.
	openFaults func(ctx context.Context, arg string) (h harness.Harness, cleanup func(), err error)
	// specTimeout, when set, replaces the battery's default bound on one spec (--timeout
	// still wins): a store behind a process boundary answers each call in a round trip,
	// so its race checks take far longer than an in-process store's.
	specTimeout time.Duration
	// parallel, when set, is how many `storecheck run` processes may check the store at
	// once with profit, each bringing it up as this one does (its own container or
	// in-process store, or namespaces of its own on a shared server): run then checks
	// its eras in up to that many processes. Nil or below 2: one process.
	parallel func() int
}

// Adapter is a store the command line brings up by name (--adapter NAME), with flags of
// its own: package cli/builtin gives its database adapters this way (WithAdapters).
type Adapter struct {
	Name    string
	Summary string // one line, for `storecheck help`
	// Flags, when set, registers the adapter's flags on a command's flag set. Every
	// adapter's flags are registered on every command that opens a store, so name them
	// for the adapter (--dsn, --redis-url) and say which adapter they are for.
	Flags func(fs *flag.FlagSet)
	// Validate, when set, checks the flags before anything is started; its error is a
	// usage error.
	Validate func() error
	// Open brings the store up after flags are parsed; cleanup (may be nil) releases
	// what it started, after the run.
	Open func(ctx context.Context) (h harness.Harness, cleanup func(), err error)
	// OpenFaults, when set, brings the store up for run --faults: on a backend in
	// containers storecheck starts, whose harness implements harness.FaultInjector.
	OpenFaults func(ctx context.Context) (h harness.Harness, cleanup func(), err error)
	// SpecTimeout, when set, replaces the battery's default bound on one spec.
	SpecTimeout time.Duration
	// Parallel, when set, is how many storecheck processes may check the store at once
	// with profit, each bringing it up with Open (its own container, or namespaces of
	// its own on a shared server); run then checks its eras in up to that many
	// processes. Leave it nil when a harness.Blocker holds a whole shared server (a
	// pause), which would hold the other processes' calls too.
	Parallel func() int
}

// WithAdapters adds adapters as built-in ones: listed by `storecheck help`, chosen with
// --adapter NAME, measured by bench through its own targets, and never the default.
func WithAdapters(as ...Adapter) Option {
	return func(c *app) {
		for _, a := range as {
			in := adapter{name: a.Name, summary: a.Summary, flags: a.Flags, validate: a.Validate, specTimeout: a.SpecTimeout,
				parallel: a.Parallel, open: func(ctx context.Context, _ string) (harness.Harness, func(), error) { return a.Open(ctx) }}
			if a.OpenFaults != nil {
				in.openFaults = func(ctx context.Context, _ string) (harness.Harness, func(), error) { return a.OpenFaults(ctx) }
			}
			if a.Name == "" || strings.Contains(a.Name, ":") || a.Open == nil {
				panic("storecheck: bad adapter: " + a.Name)
			}
			if old, ok := c.adapters[a.Name]; ok && old.custom {
				continue // an adapter given by WithHarness or WithAdapter wins, whatever the order
			}
			c.adapters[a.Name] = in
		}
	}
}

func (a adapter) usageName() string {
	if a.argName != "" {
		return a.name + ":" + a.argName
	}
	return a.name
}

var builtinAdapters = map[string]adapter{}

// addAdapter registers a built-in adapter; call it from an init function.
func addAdapter(a adapter) {
	if a.name == "" || strings.Contains(a.name, ":") || a.open == nil {
		panic("storecheck: bad adapter registration: " + a.name)
	}
	if _, dup := builtinAdapters[a.name]; dup {
		panic("storecheck: adapter registered twice: " + a.name)
	}
	builtinAdapters[a.name] = a
}

func (c *app) sortedAdapters() []adapter {
	out := make([]adapter, 0, len(c.adapters))
	for _, a := range c.adapters {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// addAdapterFlags registers every adapter's flags on fs.
func (c *app) addAdapterFlags(fs *flag.FlagSet) {
	for _, a := range c.sortedAdapters() {
		if a.flags != nil {
			a.flags(fs)
		}
	}
}

// errUnknownAdapter is a usage error: the message lists the adapters there are.
var errUnknownAdapter = errors.New("unknown adapter")

// lookupAdapter resolves --adapter NAME or NAME:ARG.
func (c *app) lookupAdapter(spec string) (adapter, string, error) {
	name, arg, hasArg := strings.Cut(spec, ":")
	a, ok := c.adapters[name]
	if !ok {
		var names []string
		for _, a := range c.sortedAdapters() {
			names = append(names, a.usageName())
		}
		return adapter{}, "", fmt.Errorf("%w %q (adapters: %s)", errUnknownAdapter, spec, strings.Join(names, ", "))
	}
	switch {
	case a.argName == "" && hasArg:
		return adapter{}, "", fmt.Errorf("adapter %s takes no argument (got %q)", name, spec)
	case a.argName != "" && arg == "":
		return adapter{}, "", fmt.Errorf("adapter %s needs an argument: --adapter %s", name, a.usageName())
	}
	return a, arg, nil
}

// bringUp opens an adapter (spec names it in the message) with arg for the command cmd
// ("storecheck run"). A failure is said on stderr and ok is false; cleanup is never nil,
// so that the caller defers it as it is.
func (c *app) bringUp(cmd, spec string, open func(ctx context.Context, arg string) (harness.Harness, func(), error), arg string) (h harness.Harness, cleanup func(), ok bool) {
	h, cleanup, err := open(c.ctx, arg)
	if err != nil {
		fmt.Fprintf(c.stderr, "%s: bring-up of adapter %s failed: %v\n", cmd, spec, err)
		return nil, func() {}, false
	}
	if cleanup == nil {
		cleanup = func() {}
	}
	return h, cleanup, true
}

// perProcessor is the parallel of an adapter whose processes share nothing and whose
// store runs inside them: one process per processor.
func perProcessor() int { return runtime.GOMAXPROCS(0) }
