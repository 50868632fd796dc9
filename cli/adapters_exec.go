package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/storecheck/storecheck/adapters/wire"
	"github.com/storecheck/storecheck/conformance/harness"
)

// The exec adapter checks a store written in any language: it starts the --exec command
// as a child process and speaks the wire protocol (docs/wire.md) with it. One child serves
// the whole run; it is reset before each spec.
var (
	execCommand string
	execTimeout time.Duration
	execStderr  bool
)

func init() {
	addAdapter(adapter{
		name:    "exec",
		summary: `any store speaking the wire protocol (docs/wire.md) as a child process: --exec "CMD ARGS"`,
		flags: func(fs *flag.FlagSet) {
			fs.StringVar(&execCommand, "exec", "", "exec: the store process's command line, split like a shell splits words (quotes and\nbackslashes; no $VAR, globs or pipes: use sh -c '...' for those). Implies --adapter exec")
			fs.DurationVar(&execTimeout, "exec-timeout", wire.DefaultTimeout, "exec: how long a store process may stay silent while a request waits (no answer to any\nrequest, none unread): past it the process is considered hung, killed, and every later call\nfails (docs/wire.md, Timeouts)")
			fs.BoolVar(&execStderr, "exec-stderr", false, "exec: copy the store process's stderr to storecheck's stderr as it is written")
		},
		validate:    validateExec,
		open:        openExec,
		specTimeout: 5 * time.Minute,
	})
}

// validateExec checks the exec flags before any child is started.
func validateExec() error {
	_, err := execArgv()
	return err
}

func execArgv() ([]string, error) {
	if execCommand == "" {
		return nil, errors.New(`--adapter exec needs the store's command: --exec "CMD ARGS"`)
	}
	argv, err := wire.SplitCommand(execCommand)
	if err != nil {
		return nil, fmt.Errorf("--exec: %w", err)
	}
	if execTimeout <= 0 {
		return nil, errors.New("--exec-timeout must be positive")
	}
	return argv, nil
}

func openExec(ctx context.Context, _ string) (harness.Harness, func(), error) {
	argv, err := execArgv()
	if err != nil {
		return nil, nil, err
	}
	opts := wire.Options{Timeout: execTimeout}
	if execStderr {
		opts.Stderr = os.Stderr
	}
	h, err := wire.NewHarness(ctx, argv, opts)
	if err != nil {
		return nil, nil, err
	}
	return h, func() {
		// docs/wire.md: the store's stderr is shown when it misbehaved. Errors of calls
		// already carried the tail when the child died or hung; it is shown once more
		// here, after the summary, with why the session ended.
		closeErr := h.Close()
		sessionErr := h.Client().Err()
		switch {
		case sessionErr != nil && !errors.Is(sessionErr, wire.ErrClosed):
			fmt.Fprintf(os.Stderr, "storecheck: the wire session with %s ended early: %v\n", execCommand, sessionErr)
			if report := h.StderrReport(); report != "" && errors.Is(sessionErr, wire.ErrProtocol) && !execStderr {
				fmt.Fprintf(os.Stderr, "storecheck: %s\n", report)
			}
		case closeErr != nil:
			fmt.Fprintf(os.Stderr, "storecheck: %v\n", closeErr)
		case runFailed && !execStderr:
			// Only after a failed run: after a passing one the store's log reads like
			// a failure and explains nothing.
			if report := h.StderrReport(); report != "" {
				fmt.Fprintf(os.Stderr, "storecheck: %s\n", report)
			}
		}
	}, nil
}

// impliedAdapter makes --exec select the exec adapter when --adapter is not given, so
// that `storecheck run --exec "CMD ARGS"` needs nothing more; --exec with another
// explicit adapter is a usage error.
func impliedAdapter(fs *flag.FlagSet, spec string) (string, error) {
	if execCommand == "" {
		return spec, nil
	}
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "adapter" })
	switch {
	case !explicit:
		return "exec", nil
	case spec != "exec":
		return "", fmt.Errorf("--exec runs a store process (the exec adapter) and cannot be combined with --adapter %s", spec)
	}
	return spec, nil
}
