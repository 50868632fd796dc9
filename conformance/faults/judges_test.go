package faults

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
)

// The judges on records made by hand: no backend, no workload, no clock.

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// at is t0 plus s seconds, to the millisecond.
func at(s float64) time.Time { return t0.Add(time.Duration(math.Round(s*1000)) * time.Millisecond) }

func okCall(era, what string, start, end float64) callRecord {
	return callRecord{era: era, what: what, start: at(start), end: at(end)}
}

func errCall(era, what string, start, end float64) callRecord {
	return callRecord{era: era, what: what, start: at(start), end: at(end), err: context.DeadlineExceeded}
}

// honestPause is a pause that every rule passes (F-DECLARE-1 is not exercised by a
// pause): both eras write before the fault at 10s, the backend is away from 10.1s to
// 16s and answers again at 16.2s; a legacy write meets the outage and fails by its
// deadline, not having taken effect, and both eras succeed again after the return.
func honestPause() *record {
	return &record{
		fault: Pause, durability: harness.Durability{Setting: "fsync=on"},
		eras:        []string{"legacy", "modern"},
		callTimeout: time.Second, grace: 3 * time.Second, recoveryTimeout: time.Minute,
		began: at(0), faultAt: at(10), downFrom: at(10.1), downTo: at(16), backAt: at(16.2),
		calls: []callRecord{
			okCall("legacy", "create l1", 1, 1.01),
			okCall("modern", "create m1", 1, 1.01),
			okCall("modern", "write m1", 2, 2.01),
			errCall("legacy", "write l1", 10.05, 11.05),
			okCall("legacy", "get l1", 16.3, 16.31),
			okCall("modern", "create m2", 16.25, 16.32),
		},
		tasks: []taskRecord{
			{&history{era: "legacy", id: "l1", ops: []op{
				{kind: opCreate, mark: 1, acked: true},
				{kind: opWrite, mark: 2, err: "deadline", end: at(11.05), seenApplied: -1, seenAt: at(16.3)},
			}}, observed{present: true, mark: 1}},
			{&history{era: "modern", id: "m1", ops: []op{
				{kind: opCreate, mark: 1, acked: true},
				{kind: opWrite, mark: 2, acked: true},
			}}, observed{present: true, mark: 2}},
		},
	}
}

// asKill makes r a kill whose restart began when the backend's outage ended.
func asKill(r *record) {
	r.fault, r.restart = Kill, r.downTo
}

var lossy = harness.Durability{MayLoseOnCrash: true, Setting: "appendonly no"}

// loseM1 loses the modern task's acknowledged second write.
func loseM1(r *record) { r.tasks[1].final = observed{present: true, mark: 1} }

// judgeCases edit the honest pause into one way each rule can pass, fail or go
// unexercised; the verdict must say so, in words.
var judgeCases = []struct {
	name   string
	rule   string
	edit   func(r *record)
	want   Outcome
	saying string
}{
	// F-OUTAGE-1
	{"honest pause", RuleOutage, nil, Passed, ""},
	{"a call past its deadline and grace", RuleOutage, func(r *record) { r.calls[3].end = at(15.5) }, Failed,
		"legacy write l1 returned 4.45s after its 1s deadline"},
	{"a call late within the grace", RuleOutage, func(r *record) { r.calls[3].end = at(13) }, Passed, ""},
	{"a call late long before the fault", RuleOutage, func(r *record) { r.calls = append(r.calls, errCall("modern", "get m1", 3, 8)) }, Passed, ""},
	{"a call late long after the return", RuleOutage, func(r *record) { r.calls = append(r.calls, errCall("modern", "get m1", 22, 27)) }, Passed, ""},
	{"a call late because the run ended", RuleOutage, func(r *record) { r.calls[3].end, r.calls[3].cancelled = at(15.5), true }, Passed, ""},
	{"a panic", RuleOutage, func(r *record) {
		r.calls[3].panicked, r.calls[3].err = "nil map", errors.New("panic: nil map")
	}, Failed, "legacy write l1 panicked: nil map"},
	{"a call that never returns", RuleOutage, func(r *record) { r.stuck = 1 }, Failed, "1 worker(s) still inside a call 13s after the run ended"},
	{"a success while the backend is away", RuleOutage, func(r *record) { r.calls = append(r.calls, okCall("modern", "get m1", 11, 11.5)) }, Failed,
		"modern get m1 succeeded at 1.5s into a pause while the backend could store nothing"},
	{"six successes while away", RuleOutage, func(r *record) {
		for range 6 {
			r.calls = append(r.calls, okCall("modern", "get m1", 11, 11.5))
		}
	}, Failed, "… 6 calls in all succeeded during the outage"}, // and five described: checked below
	{"a success begun before the outage", RuleOutage, func(r *record) { r.calls = append(r.calls, okCall("modern", "get m1", 10.05, 10.5)) }, Passed, ""},
	{"a success during a failover", RuleOutage, func(r *record) {
		r.fault, r.downFrom, r.downTo = Failover, time.Time{}, time.Time{}
		r.calls = append(r.calls, okCall("modern", "get m1", 11, 11.5))
	}, Passed, ""},
	{"no call failed", RuleOutage, func(r *record) { r.calls[3].err = nil; r.calls[3].start, r.calls[3].end = at(5), at(5.01) }, NotExercised,
		"no call failed"},

	// F-RECOVER-1
	{"honest pause", RuleRecover, nil, Passed, ""},
	{"an era never succeeds after the return", RuleRecover, func(r *record) { r.calls[5].err = context.DeadlineExceeded }, Failed,
		"the modern clients opened before the fault did not succeed once within 1m0s"},
	{"a success begun before the return", RuleRecover, func(r *record) { r.calls[5].start = at(16.1) }, Failed, "the modern clients"},

	// F-DURABLE-1
	{"honest pause", RuleDurable, nil, Passed, ""},
	{"an acknowledged write lost", RuleDurable, loseM1, Failed, "1 of 3 acknowledged writes lost"},
	{"an acknowledged create lost", RuleDurable, func(r *record) { r.tasks[1].final = observed{} }, Failed, "2 of 3 acknowledged writes lost"},
	{"a loss on a declared-lossy kill", RuleDurable, func(r *record) { asKill(r); r.durability = lossy; loseM1(r) }, Declared,
		"1 of 3 acknowledged writes lost; acknowledged writes may be lost on crash: declared (appendonly no)"},
	{"a loss on a pause, declared lossy on crash", RuleDurable, func(r *record) { r.durability = lossy; loseM1(r) }, Failed, "1 of 3 acknowledged writes lost"},
	{"a loss on a failover, declared lossy on crash only", RuleDurable, func(r *record) { r.fault = Failover; r.durability = lossy; loseM1(r) }, Failed, "1 of 3"},
	{"no write acknowledged", RuleDurable, func(r *record) { r.tasks = r.tasks[:1]; r.tasks[0].h.ops = r.tasks[0].h.ops[1:] }, NotExercised,
		"no write was acknowledged"},

	// F-ATOMIC-1
	{"honest pause", RuleAtomic, nil, Passed, ""},
	{"a failed write that took effect", RuleAtomic, func(r *record) { r.tasks[0].final.mark = 2 }, Passed, ""},
	{"a torn state", RuleAtomic, func(r *record) { r.tasks[1].final = observed{present: true, torn: true, raw: "seq=2 tag=w1"} }, Failed,
		"torn state seq=2 tag=w1, which no single write left"},
	{"a state no write left", RuleAtomic, func(r *record) { r.tasks[1].final.mark = 9 }, Failed, "mark 9, which no write of its history left"},
	{"a failed write applied after the restart", RuleAtomic, func(r *record) { asKill(r); r.tasks[0].final.mark = 2 }, Failed,
		"write 2 returned an error (deadline), had not taken effect when the store answered again, and took effect later"},
	{"no write failed", RuleAtomic, func(r *record) { r.tasks = r.tasks[1:] }, NotExercised, "no write failed"},

	// F-DECLARE-1, as judgeRun passes it the record's durability
	{"honest pause", RuleDeclare, nil, NotExercised, "a pause is not a crash"},
	{"honest kill", RuleDeclare, asKill, Passed, "declared durable on crash: no acknowledged write may be lost (fsync=on)"},
	{"no declaration", RuleDeclare, func(r *record) { asKill(r); r.durability = harness.Durability{} }, Failed, "declares no durability setting"},
}

func TestJudgesOnRecords(t *testing.T) {
	for _, c := range judgeCases {
		r := honestPause()
		if c.edit != nil {
			c.edit(r)
		}
		v := judgeRun(r).Verdict(c.rule)
		reasons := strings.Join(v.Reasons, "; ")
		if v.Outcome != c.want || !strings.Contains(reasons, c.saying) {
			t.Errorf("%s: %s %s (%s); want %s saying %q", c.name, c.rule, v.Outcome, reasons, c.want, c.saying)
		}
		if c.name == "six successes while away" && len(v.Reasons) != 6 {
			t.Errorf("%s: %d reasons, want the first five successes and the count: %q", c.name, len(v.Reasons), v.Reasons)
		}
	}
}

// TestJudgeRunFigures: the report's figures come from the record: calls, errors,
// recovery per era, the latest return past a deadline, the tasks and writes checked.
func TestJudgeRunFigures(t *testing.T) {
	r := honestPause()
	r.calls[3].end = at(12.5)                                          // 1.45s past its deadline
	r.calls = append(r.calls, okCall("legacy", "get l1", 16.21, 16.4)) // ends after 16.31's: not the first
	r.tasks[1].final = observed{present: true, mark: 1}
	f := judgeRun(r)
	got := []any{f.Fault, f.Calls, f.Acked, f.Errors, f.InjectedAfter, f.Outage, f.MaxLate,
		f.Recovery["legacy"], f.Recovery["modern"], f.Tasks, f.AckedChecked, f.AckedLost, f.TasksLost, len(f.Rules)}
	want := []any{Pause, 7, 6, 1, 10 * time.Second, 6200 * time.Millisecond, 1450 * time.Millisecond,
		110 * time.Millisecond, 120 * time.Millisecond, 2, 3, 1, 1, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("judgeRun figures (fault, calls, acked, errors, injected after, outage, max late, recovery legacy, modern, tasks, checked, lost, tasks lost, rules) = %v, want %v", got, want)
			break
		}
	}
	long := errCall("modern", "get m1", 20, 20.1)
	long.err = errors.New(strings.Repeat("x", 200))
	r.calls = append(r.calls, long, long)
	f = judgeRun(r)
	if want := []string{"2× " + strings.Repeat("x", 160) + "…", "1× context deadline exceeded"}; !slices.Equal(f.ErrorKinds, want) {
		t.Errorf("error kinds %q, want %q", f.ErrorKinds, want)
	}
	r.calls[5].err = context.DeadlineExceeded
	if d := judgeRun(r).Recovery["modern"]; d != -1 {
		t.Errorf("modern recovery with no success after the return = %s, want -1 (never)", d)
	}
}
