//go:build !unix

package main

// lowerPriority has nothing to do where there is no nice.
func lowerPriority() {}
