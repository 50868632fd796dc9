package faults

import (
	"strings"
	"testing"
	"time"

	"github.com/storecheck/storecheck/conformance/harness"
)

func TestJudge(t *testing.T) {
	ok := func(kind opKind, mark int64) op { return op{kind: kind, mark: mark, acked: true} }
	restart := time.Now()
	failed := func(kind opKind, mark int64, seen int) op {
		// Failed before the restart, read back after it.
		return op{kind: kind, mark: mark, err: "boom", seenApplied: seen,
			end: restart.Add(-time.Second), seenAt: restart.Add(time.Second)}
	}
	readBefore := failed(opWrite, 2, -1)
	readBefore.seenAt = restart.Add(-time.Millisecond)
	present := func(mark int64) observed { return observed{present: true, mark: mark} }
	absent := observed{}
	cases := []struct {
		name         string
		ops          []op
		final        observed
		lost         int
		torn, zombie bool
		checked      int
	}{
		{"last ack shown", []op{ok(opCreate, 1), ok(opWrite, 2)}, present(2), 0, false, false, 2},
		{"older state shown", []op{ok(opCreate, 1), ok(opWrite, 2), ok(opWrite, 3)}, present(1), 2, false, false, 3},
		{"created task gone", []op{ok(opCreate, 1), ok(opWrite, 2)}, absent, 2, false, false, 2},
		{"deleted task back", []op{ok(opCreate, 1), ok(opWrite, 2), ok(opDelete, 3)}, present(2), 1, false, false, 3},
		{"deleted task gone", []op{ok(opCreate, 1), ok(opDelete, 2)}, absent, 0, false, false, 2},
		{"failed write took effect", []op{ok(opCreate, 1), failed(opWrite, 2, 1)}, present(2), 0, false, false, 1},
		{"failed write did not", []op{ok(opCreate, 1), failed(opWrite, 2, -1)}, present(1), 0, false, false, 1},
		{"failed write late", []op{ok(opCreate, 1), failed(opWrite, 2, -1)}, present(2), 0, false, true, 1},
		{"failed write committed after an early read", []op{ok(opCreate, 1), readBefore}, present(2), 0, false, false, 1},
		{"failed create absent", []op{failed(opCreate, 1, -1)}, absent, 0, false, false, 0},
		{"failed delete kept", []op{ok(opCreate, 1), failed(opDelete, 2, 0)}, present(1), 0, false, false, 1},
		{"torn", []op{ok(opCreate, 1)}, observed{present: true, torn: true}, 0, true, false, 1},
		{"unknown mark", []op{ok(opCreate, 1)}, present(7), 0, true, false, 1},
	}
	for _, c := range cases {
		v := judgeTask(&history{era: "legacy", id: "t", ops: c.ops}, c.final, restart)
		if v.lost != c.lost || v.torn != c.torn || v.zombie != c.zombie || v.checked != c.checked {
			t.Errorf("%s: got lost %d torn %v zombie %v checked %d, want %d %v %v %d (%s)",
				c.name, v.lost, v.torn, v.zombie, v.checked, c.lost, c.torn, c.zombie, c.checked, v.detail)
		}
	}
}

// TestJudgeDeclare: F-DECLARE-1 judges the declaration: it fails without one, is not
// exercised by a pause, passes after a kill or failover, and names what was declared
// and how the losses were reported.
func TestJudgeDeclare(t *testing.T) {
	lossy := harness.Durability{MayLoseOnCrash: true, Setting: "appendonly no"}
	durable := harness.Durability{MayLoseOnFailover: true, Setting: "appendfsync always; replicas asynchronous"}
	declaredLoss := RuleVerdict{ID: RuleDurable, Outcome: Declared, Reasons: []string{"3 of 40 acknowledged writes lost"}}
	for _, c := range []struct {
		name   string
		fault  string
		d      harness.Durability
		dur    RuleVerdict
		want   Outcome
		saying string
	}{
		{"no declaration", Kill, harness.Durability{}, RuleVerdict{Outcome: Passed}, Failed, "declares no durability"},
		{"no declaration, pause", Pause, harness.Durability{MayLoseOnCrash: true}, RuleVerdict{Outcome: Passed}, Failed, "declares no durability"},
		{"pause", Pause, lossy, RuleVerdict{Outcome: Passed}, NotExercised, "not a crash"},
		{"lossy kill", Kill, lossy, declaredLoss, Passed, "losses reported as declared: 3 of 40"},
		{"lossy kill, nothing lost", Kill, lossy, RuleVerdict{Outcome: Passed}, Passed, "may be lost on crash (appendonly no)"},
		{"durable kill", Kill, durable, RuleVerdict{Outcome: Passed}, Passed, "declared durable on crash"},
		{"durable kill, losses", Kill, durable, RuleVerdict{Outcome: Failed, Reasons: []string{"1 of 9 acknowledged writes lost"}}, Passed, "fail F-DURABLE-1"},
		{"failover", Failover, durable, declaredLoss, Passed, "may be lost on failover"},
	} {
		v := judgeDeclare(c.fault, c.d, c.dur)
		if v.ID != RuleDeclare || v.Outcome != c.want || !strings.Contains(strings.Join(v.Reasons, "; "), c.saying) {
			t.Errorf("%s: %s %s %v; want %s saying %q", c.name, v.ID, v.Outcome, v.Reasons, c.want, c.saying)
		}
	}
}
