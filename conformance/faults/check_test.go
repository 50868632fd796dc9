package faults

import (
	"testing"
	"time"
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
		v := judge(&history{era: "legacy", id: "t", ops: c.ops}, c.final, restart)
		if v.lost != c.lost || v.torn != c.torn || v.zombie != c.zombie || v.checked != c.checked {
			t.Errorf("%s: got lost %d torn %v zombie %v checked %d, want %d %v %v %d (%s)",
				c.name, v.lost, v.torn, v.zombie, v.checked, c.lost, c.torn, c.zombie, c.checked, v.detail)
		}
	}
}
