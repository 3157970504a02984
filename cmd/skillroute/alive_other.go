//go:build !unix

package main

// processAlive cannot tell here: a lock is then judged by its age alone.
func processAlive(pid int) bool { return true }
