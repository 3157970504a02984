//go:build !linux && !darwin

package store

import "io/fs"

// identity is unknown where the change time is not at hand: every load
// then verifies the whole file.
func identity(buf []byte, _ fs.FileInfo) ([]byte, bool) { return buf, false }
