//go:build unix

package main

import "syscall"

// lowerPriority runs a background compile at nice 10, so that it never
// competes with the user's own work.
func lowerPriority() { _ = syscall.Setpriority(syscall.PRIO_PROCESS, 0, 10) }
