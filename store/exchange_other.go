//go:build !linux

package store

import (
	"errors"
	"io/fs"
	"os"
)

// exchange is not available: the caller renames.
func exchange(a, b string) error { return errors.ErrUnsupported }

// replaceSpare is not available without exchange: the caller replaces
// through a new temp file.
func replaceSpare(dir, base, target string, mode fs.FileMode, fill func(*os.File) error) error {
	return errors.ErrUnsupported
}

// shareLock is not needed where no spare is filled.
func shareLock(f *os.File) {}
