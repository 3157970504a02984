//go:build !unix

package store

import (
	"io"
	"os"
)

// mapFile reads the file whole where mapping is not available.
func mapFile(f *os.File, _ int64) ([]byte, error) { return io.ReadAll(f) }
