//go:build unix

package main

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process runs (signal 0 reaches it, or
// reaches a process of another user's).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
