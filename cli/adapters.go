package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
)

// adapter brings up one kind of store for the battery. Each built-in one lives in its own
// file, adapters_NAME.go, registering itself from init (WithHarness and WithAdapter add
// others per invocation):
//
//	func init() {
//		var dsn string
//		addAdapter(adapter{
//			name:    "postgres",
//			summary: "PostgreSQL (a container, or --dsn)",
//			flags:   func(fs *flag.FlagSet) { fs.StringVar(&dsn, "dsn", "", "postgres: connection string") },
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
