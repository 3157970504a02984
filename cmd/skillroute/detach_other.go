//go:build !unix

package main

import "syscall"

// detached has nothing to set where there are no Unix sessions.
func detached() *syscall.SysProcAttr { return nil }
