package wire

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc/PID/stat's times: 100 on every
// Linux architecture Go supports (sysconf(_SC_CLK_TCK) is not in the standard library).
const clockTicks = 100

// groupCPU sums the processor time of every live process in process group pgid (the
// child is a group leader: a shell's grandchildren count too), from /proc.
func groupCPU(pgid int) (time.Duration, bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, false
	}
	var ticks int64
	found := false
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // ended since the glob
		}
		// The command name, field 2, is in parentheses and may hold spaces: fields
		// count from the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		// f[0] is field 3 (state): pgrp is field 5, utime 14, stime 15.
		if len(f) < 13 {
			continue
		}
		if g, err := strconv.Atoi(string(f[2])); err != nil || g != pgid {
			continue
		}
		u, err1 := strconv.ParseInt(string(f[11]), 10, 64)
		s, err2 := strconv.ParseInt(string(f[12]), 10, 64)
		if err1 == nil && err2 == nil {
			ticks += u + s
			found = true
		}
	}
	return time.Duration(ticks) * time.Second / clockTicks, found
}
