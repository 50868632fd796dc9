package wire

import (
	"fmt"
	"time"
)

// spinEnv names the environment variable that sets how long the wire's readers spin
// before they block (Linux; see spinBudget).
const spinEnv = "STORECHECK_WIRE_SPIN"

// defaultSpin is the spin budget without spinEnv.
const defaultSpin = 50 * time.Microsecond

// spinSetting reads spinEnv's value: empty for the default, else a duration from 0
// (no spinning) to 1 ms. spinErr, for Start and Serve to refuse to run with, says what
// is wrong with any other value.
func spinSetting(v string) (time.Duration, error) {
	if v == "" {
		return defaultSpin, nil
	}
	d, err := time.ParseDuration(v)
	if v == "0" {
		d, err = 0, nil
	}
	if err != nil || d < 0 || d > time.Millisecond {
		return defaultSpin, fmt.Errorf("wire: $%s is %q: want a duration from 0 (no spinning) to 1ms, such as 50us", spinEnv, v)
	}
	return d, nil
}

// oneAtATime remembers whether the last events (calls made, request lines read) came one
// at a time: a reader spins only then (Client.solo, server.spinOK), so that the race
// checks' concurrent calls reach the store together. One event among others makes it
// false for the next quietMemory events.
type oneAtATime struct{ left int }

// quietMemory is how many lone events make oneAtATime forget that some came together.
const quietMemory = 256

// note counts an event, crowded when it came together with others.
func (q *oneAtATime) note(crowded bool) {
	switch {
	case crowded:
		q.left = quietMemory
	case q.left > 0:
		q.left--
	}
}

// quiet reports whether the last quietMemory events came one at a time.
func (q *oneAtATime) quiet() bool { return q.left == 0 }
