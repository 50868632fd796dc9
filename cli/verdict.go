package cli

import (
	"flag"
	"fmt"

	"github.com/storecheck/storecheck/conformance"
)

// verdictFlags are the flags run and probe share about their verdict and what they draw.
type verdictFlags struct {
	allowEmpty bool // a run that exercised no rule may pass
	verbose    bool // progress on stderr even when it is not a terminal
}

func (v *verdictFlags) add(fs *flag.FlagSet) {
	fs.BoolVar(&v.allowEmpty, "allow-empty", false, "let a run in which no rule was exercised pass (without it such a run exits 1:\nit checked nothing)")
	fs.BoolVar(&v.verbose, "v", false, "draw progress on stderr even when it is not a terminal")
}

// progress reports whether the command draws its progress.
func (v *verdictFlags) progress(c *app) bool { return c.progress || v.verbose }

// judge makes the report's verdict the flags': call it before the report is written.
func (v *verdictFlags) judge(r *conformance.Report) { r.AllowEmpty = v.allowEmpty }

// verdict is the exit status of a judged report: a run that exercised no rule fails
// unless --allow-empty, and stderr then says how to accept such a run.
func (v *verdictFlags) verdict(c *app, cmd string, r *conformance.Report) int {
	if _, none := r.NoneExercised(); none && !v.allowEmpty {
		// The cause is the summary's last lines; here, what to do about it.
		fmt.Fprintf(c.stderr, "storecheck %s: no rule was exercised: the run checked nothing, so it fails (--allow-empty accepts such a run)\n", cmd)
	}
	return exitFor(r.OK())
}
