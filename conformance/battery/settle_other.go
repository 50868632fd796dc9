//go:build !linux

package battery

import "time"

// settle sleeps d (see settle_unix.go).
func settle(d time.Duration) { time.Sleep(d) }
