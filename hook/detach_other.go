//go:build !unix

package hook

import "syscall"

// detached has nothing to set where there are no Unix sessions.
func detached() *syscall.SysProcAttr { return nil }
