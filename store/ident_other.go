//go:build !linux && !darwin

package store

import "io/fs"

// identity is unknown where the change time is not at hand: every load
// then verifies the whole file.
func identity(fs.FileInfo) (string, bool) { return "", false }
