//go:build !unix

package state

import "os"

// ReadMapped reads the file whole where mapping is not available.
func ReadMapped(path string) ([]byte, error) { return os.ReadFile(path) }
