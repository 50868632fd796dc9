package cli

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/storecheck/storecheck/conformance/faults"
)

// runFaults is `storecheck run --faults`: the fault checks instead of the battery, on a
// backend the adapter starts in containers.
func (c *app) runFaults(fs *flag.FlagSet, f runFlags, a adapter, arg, spec string) int {
	if a.openFaults == nil {
		code, _ := c.usageError(fs, fmt.Sprintf("--faults: adapter %s cannot take faults (postgres, redis and redis-cluster can, on containers storecheck starts)", spec))
		return code
	}
	if f.junit != "" {
		code, _ := c.usageError(fs, "--faults writes --json and the summary; --junit is for the battery")
		return code
	}
	cfg := faults.Config{}
	for _, name := range strings.Split(f.faultList, ",") {
		switch name = strings.TrimSpace(name); name {
		case "":
		case faults.Pause, faults.Kill, faults.Failover:
			cfg.Faults = append(cfg.Faults, name)
		default:
			code, _ := c.usageError(fs, fmt.Sprintf("--fault %q: want pause, kill or failover", name))
			return code
		}
	}
	var out *os.File
	if f.json != "" {
		var err error
		if out, err = os.Create(f.json); err != nil {
			fmt.Fprintf(c.stderr, "storecheck run: cannot write the report: %v\n", err)
			return exitUsage
		}
		defer out.Close()
	}
	h, cleanup, ok := c.bringUp("storecheck run", spec+" for faults", a.openFaults, arg)
	if !ok {
		return exitUsage
	}
	defer cleanup()
	if f.faultMutant != "" {
		var err error
		if h, err = faults.Mutate(h, f.faultMutant); err != nil {
			code, _ := c.usageError(fs, err.Error())
			return code
		}
	}
	if c.progress {
		cfg.Log = func(format string, args ...any) { fmt.Fprintf(c.stderr, format+"\n", args...) }
	}
	report, err := faults.Run(c.ctx, h, cfg)
	if err != nil {
		fmt.Fprintf(c.stderr, "storecheck run: %v\n", err)
		return exitUsage
	}
	if err := report.Summary(c.stdout); err != nil {
		fmt.Fprintf(c.stderr, "storecheck run: writing the summary: %v\n", err)
	}
	if out != nil {
		if err := report.JSON(out); err != nil {
			fmt.Fprintf(c.stderr, "storecheck run: %v\n", err)
			return exitUsage
		}
		// The close is where a full disk shows; the deferred one only covers early returns.
		if err := out.Close(); err != nil {
			fmt.Fprintf(c.stderr, "storecheck run: writing the report: %v\n", err)
			return exitUsage
		}
	}
	return exitFor(report.OK())
}
