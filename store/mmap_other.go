//go:build !unix

package store

import (
	"io"
	"os"
)

// mapFile reads the file whole where mapping is not available.
func mapFile(f *os.File, _ int64) ([]byte, bool, error) {
	data, err := io.ReadAll(f)
	return data, false, err
}

func unmapFile([]byte, bool) {}
