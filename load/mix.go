package load

import (
	"fmt"
	"strconv"
	"strings"
)

// Mix weighs the rounds a client runs: each round makes one task and follows it to its
// end, then does what its kind adds.
type Mix struct {
	Quick  int // a quick task, nothing more
	Cancel int // a slow task, cancelled at once
	Input  int // a task that asks for input, answered
	List   int // a quick task, then tasks/list (2025-11-25; 2026-07-28 has no list: a Reach)
	Reach  int // a quick task, then a reach for another principal's task
}

// DefaultMix is the mix a run gets when none is given.
var DefaultMix = Mix{Quick: 50, Cancel: 15, Input: 10, List: 10, Reach: 15}

func (m Mix) total() int { return m.Quick + m.Cancel + m.Input + m.List + m.Reach }

// String is the mix as ParseMix reads it.
func (m Mix) String() string {
	return fmt.Sprintf("quick=%d,cancel=%d,input=%d,list=%d,reach=%d", m.Quick, m.Cancel, m.Input, m.List, m.Reach)
}

// ParseMix reads "quick=50,cancel=15,…": the kinds named get their weights, the others
// none. Unknown kinds, negative weights and an all-zero mix are errors (ErrConfig).
func ParseMix(s string) (Mix, error) {
	var m Mix
	fields := map[string]*int{"quick": &m.Quick, "cancel": &m.Cancel, "input": &m.Input, "list": &m.List, "reach": &m.Reach}
	for part := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		w, err := strconv.Atoi(v)
		f := fields[k]
		switch {
		case !ok || f == nil:
			return Mix{}, fmt.Errorf("%w: mix %q: %q is not KIND=WEIGHT with KIND one of quick, cancel, input, list, reach", ErrConfig, s, part)
		case err != nil || w < 0:
			return Mix{}, fmt.Errorf("%w: mix %q: the weight of %s is %q; want a whole number, 0 or more", ErrConfig, s, k, v)
		}
		*f = w
	}
	if m.total() == 0 {
		return Mix{}, fmt.Errorf("%w: mix %q weighs every kind 0", ErrConfig, s)
	}
	return m, nil
}
