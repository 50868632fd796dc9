package sdkspecs

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/storecheck/storecheck/conformance/battery"
	"github.com/storecheck/storecheck/reference"
)

// idSamples is how many ids P-ID-1 draws: enough for every character of a 64-letter
// alphabet to show at every position (a letter is missed with odds e^-31).
const idSamples = 2000

// minIDBits is P-ID-1's floor: a UUID v4's 122 random bits.
const minIDBits = 122

// idEntropy estimates the bits of ids: after stripping the prefix and suffix all ids
// share, each character position contributes log2 of the number of distinct characters
// seen there (over positions every id has). A counter, a timestamp, a constant prefix
// contribute little; 16 random bytes in hex or base64url contribute 128.
func idEntropy(ids []string) float64 {
	if len(ids) < 2 {
		return 0
	}
	prefix, suffix := ids[0], ids[0]
	shortest := len(ids[0])
	for _, id := range ids[1:] {
		for !strings.HasPrefix(id, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
		for !strings.HasSuffix(id, suffix) {
			suffix = suffix[1:]
		}
		shortest = min(shortest, len(id))
	}
	width := shortest - len(prefix) - len(suffix)
	if width <= 0 {
		return 0
	}
	bits := 0.0
	for pos := range width {
		seen := map[byte]bool{}
		for _, id := range ids {
			seen[id[len(prefix)+pos]] = true
		}
		bits += math.Log2(float64(len(seen)))
	}
	return bits
}

func IDs(s *battery.Suite) {
	s.It("P-ID-1", "CreateTask generates valid, distinct ids with at least 122 bits of entropy", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "ids")
		ids := make([]string, 0, idSamples)
		seen := map[string]int{}
		for i := range idSamples {
			t := create(e, st, session, params(nil))
			in := fmt.Sprintf("CreateTask #%d (%s)", i+1, whoOf(session))
			if err := reference.ValidateID(t.TaskID); err != nil {
				e.Fatalf("%s returned the id %s: %v (want 1..512 bytes of UTF-8 without NUL)", in, battery.Literal(t.TaskID), err)
			}
			if j, dup := seen[t.TaskID]; dup {
				e.Fatalf("%s returned the id %s, which CreateTask #%d returned already", in, battery.Literal(t.TaskID), j)
			}
			seen[t.TaskID] = i + 1
			ids = append(ids, t.TaskID)
		}
		bits := idEntropy(ids)
		e.Check(bits >= minIDBits, fmt.Sprintf("%d CreateTask calls; ids estimated per character position", idSamples),
			fmt.Sprintf("at least %d bits (UUID v4's)", minIDBits),
			fmt.Sprintf("%.1f bits; first ids %q", bits, ids[:3]))
	})

	s.It("P-ID-2", "concurrent CreateTask calls never return the same id, and every task they created reads back", func(e *battery.Env) {
		st := e.SDK()
		session := newSession(e, "race")
		clients := max(e.RaceClients(), 2)
		rounds := e.RaceRounds()
		const per = 2
		m := e.Meter()
		defer m.Done()
		owner := map[string]string{}
		for r := range m.Rounds(rounds) {
			if e.Ctx.Err() != nil {
				return
			}
			var mu sync.Mutex
			var got []string
			var errs []string
			tl := battery.NewTimeline()
			battery.Together(clients, func(c int) {
				for k := range per {
					var id string
					var err error
					// One timeline "task" per round: overlapping creates are what races.
					tl.Do(c, fmt.Sprint("round-", r), func() {
						t, cerr := st.CreateTask(e.Ctx, session, params(nil))
						id, err = t.TaskID, cerr
					})
					mu.Lock()
					if err != nil {
						errs = append(errs, fmt.Sprintf("client %d create %d: %s", c, k, battery.DescribeErr(err)))
					} else {
						got = append(got, id)
						if prev, dup := owner[id]; dup {
							errs = append(errs, fmt.Sprintf("DUPLICATE id %s: client %d create %d and %s", battery.Literal(id), c, k, prev))
						} else {
							owner[id] = fmt.Sprintf("round %d client %d create %d", r, c, k)
						}
					}
					mu.Unlock()
				}
			})
			m.Add(tl.Take())
			in := fmt.Sprintf("round %d: %d clients released together, each making %d CreateTask(%s) calls", r, clients, per, whoOf(session))
			if len(errs) > 0 {
				sort.Strings(errs)
				e.Fatalf("%s: %s", in, strings.Join(errs, "; "))
			}
			for _, id := range got {
				if _, ok := stored(e, st, session, id); !ok {
					e.Fatalf("%s: the task %s it returned is not found afterwards (a concurrent create overwrote it)", in, battery.Literal(id))
				}
			}
		}
	})
}
