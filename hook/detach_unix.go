//go:build unix

package hook

import "syscall"

// detached makes a child process its own session leader, so that it is not
// ended with the hook's process group.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
