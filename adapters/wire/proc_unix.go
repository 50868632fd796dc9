//go:build unix

package wire

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the child in its own process group, so that killing it also
// kills what a wrapper script started (sh -c "python3 store.py").
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killProcess(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
