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
