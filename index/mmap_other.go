//go:build !unix

package index

import "os"

// readIndexFile reads the index file whole where mapping is not available.
func readIndexFile(path string) ([]byte, error) { return os.ReadFile(path) }
