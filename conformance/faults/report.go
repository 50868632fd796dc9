package faults

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
	"github.com/storecheck/storecheck/schema"
	"github.com/storecheck/storecheck/version"
)

// Outcome of a fault rule in one fault. The values are the battery's
// (conformance.Outcome) plus Declared.
type Outcome string

const (
	Passed Outcome = "passed"
	Failed Outcome = "failed"
	// Declared: acknowledged writes were lost and the harness declared that its backend
	// may lose them (harness.Durability): reported, not failed.
	Declared Outcome = "declared"
	// NotExercised: the fault did not put the rule to the test (no call met the outage).
	NotExercised Outcome = "not exercised"
)

// Rule IDs of docs/spec.md section "Faults".
const (
	RuleOutage  = "F-OUTAGE-1"
	RuleRecover = "F-RECOVER-1"
	RuleDurable = "F-DURABLE-1"
	RuleAtomic  = "F-ATOMIC-1"
	RuleDeclare = "F-DECLARE-1"
)

// Report is the fault checks of one store.
type Report struct {
	Store      string             `json:"store"`
	Durability harness.Durability `json:"durability"`
	Started    time.Time          `json:"started"`
	Duration   time.Duration      `json:"duration_ns"`
	Faults     []FaultResult      `json:"faults"`
}

// FaultResult is one fault: what was injected when, what the store's clients saw, and
// the verdict of every fault rule.
type FaultResult struct {
	Fault string `json:"fault"` // pause, kill, failover
	// InjectedAfter is how long clients had been writing when the fault began.
	InjectedAfter time.Duration `json:"injected_after_ns"`
	// Outage is how long the backend was away: from the fault to the backend answering
	// again (unpause done, restart ready, replica promoted).
	Outage time.Duration `json:"outage_ns"`
	// Node names the node killed (failover).
	Node string `json:"node,omitempty"`
	// InFlight is the number of calls in flight when the fault began.
	InFlight int `json:"in_flight"`
	Calls    int `json:"calls"`
	Acked    int `json:"acked"`
	Errors   int `json:"errors"`
	// MaxLate is the latest a call that met the outage returned past its deadline.
	MaxLate time.Duration `json:"max_late_ns"`
	// ErrorKinds are the commonest error messages, with counts.
	ErrorKinds []string `json:"error_kinds,omitempty"`
	// Recovery is, per era, the time from the backend answering again to the first
	// call of the store (the clients opened before the fault) that succeeded.
	Recovery map[string]time.Duration `json:"recovery_ns"`
	// Tasks written, acknowledged writes checked against the final state, and lost.
	Tasks        int `json:"tasks"`
	AckedChecked int `json:"acked_writes_checked"`
	AckedLost    int `json:"acked_writes_lost"`
	TasksLost    int `json:"tasks_with_lost_writes"`
	// Rules is the verdict of each fault rule.
	Rules []RuleVerdict `json:"rules"`
}

// RuleVerdict is one rule's outcome in one fault.
type RuleVerdict struct {
	ID      string   `json:"id"`
	Outcome Outcome  `json:"outcome"`
	Reasons []string `json:"reasons,omitempty"`
}

// OK reports whether no fault rule failed.
func (r *Report) OK() bool {
	for _, f := range r.Faults {
		for _, v := range f.Rules {
			if v.Outcome == Failed {
				return false
			}
		}
	}
	return true
}

// Verdict returns the outcome of rule in fault ("" when absent).
func (f FaultResult) Verdict(rule string) RuleVerdict {
	for _, v := range f.Rules {
		if v.ID == rule {
			return v
		}
	}
	return RuleVerdict{}
}

// Lines is the report in one line per fault, for logs: the store, the fault, the
// acknowledged writes lost of those checked, every rule's outcome.
//
//	faults: redis (default) kill: 212 acknowledged writes lost of 480 (in 40 of 52 tasks); F-OUTAGE-1 passed, …
func (r *Report) Lines() []string {
	var out []string
	for _, f := range r.Faults {
		var rules []string
		for _, v := range f.Rules {
			rules = append(rules, v.ID+" "+string(v.Outcome))
		}
		out = append(out, fmt.Sprintf("faults: %s %s: %d acknowledged writes lost of %d (in %d of %d tasks), recovery %s; %s",
			r.Store, f.Fault, f.AckedLost, f.AckedChecked, f.TasksLost, f.Tasks, f.recovery(), strings.Join(rules, ", ")))
	}
	return out
}

func (f FaultResult) recovery() string {
	var rec []string
	for _, era := range []string{"legacy", "modern"} {
		if d, ok := f.Recovery[era]; ok {
			if d < 0 {
				rec = append(rec, era+" never")
			} else {
				rec = append(rec, era+" "+d.Round(time.Millisecond).String())
			}
		}
	}
	return strings.Join(rec, ", ")
}

// JSON writes the report as indented JSON, after its schema (schema.Faults) and the
// storecheck that wrote it.
func (r *Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Schema     string       `json:"schema"`
		Storecheck version.Info `json:"storecheck"`
		*Report
	}{schema.Faults, version.Get(), r})
}

// Summary writes the report for people: one block per fault, then the failures.
func (r *Report) Summary(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "faults: %s (durability: %s", r.Store, r.Durability.Setting)
	if r.Durability.MayLoseOnCrash {
		b.WriteString("; acknowledged writes may be lost on crash: declared")
	}
	if r.Durability.MayLoseOnFailover {
		b.WriteString("; acknowledged writes may be lost on failover: declared")
	}
	b.WriteString(")\n")
	for _, f := range r.Faults {
		fmt.Fprintf(&b, "  %s", f.Fault)
		if f.Node != "" {
			fmt.Fprintf(&b, " of %s", f.Node)
		}
		fmt.Fprintf(&b, " after %s, backend away %s; %d calls in flight at the fault\n",
			f.InjectedAfter.Round(time.Millisecond), f.Outage.Round(time.Millisecond), f.InFlight)
		fmt.Fprintf(&b, "    calls %d, acknowledged %d, errors %d", f.Calls, f.Acked, f.Errors)
		fmt.Fprintf(&b, "; recovery %s; latest return past a deadline %s\n", f.recovery(), f.MaxLate.Round(time.Millisecond))
		fmt.Fprintf(&b, "    tasks %d, acknowledged writes checked %d, lost %d (in %d tasks)\n",
			f.Tasks, f.AckedChecked, f.AckedLost, f.TasksLost)
		for _, k := range f.ErrorKinds {
			fmt.Fprintf(&b, "    error: %s\n", k)
		}
		for _, v := range f.Rules {
			shown := string(v.Outcome)
			if v.Outcome == Failed {
				shown = "FAILED"
			}
			fmt.Fprintf(&b, "    %-12s %s\n", v.ID, shown)
			for i, reason := range v.Reasons {
				if i == 5 {
					fmt.Fprintf(&b, "        … %d more\n", len(v.Reasons)-5)
					break
				}
				fmt.Fprintf(&b, "        %s\n", reason)
			}
		}
	}
	status := "ok"
	if !r.OK() {
		status = "FAILED"
	}
	fmt.Fprintf(&b, "faults %s in %s\n", status, r.Duration.Round(time.Millisecond))
	_, err := io.WriteString(w, b.String())
	return err
}
