//go:build !unix

package store

import (
	"io/fs"
	"os"
)

// openFile is os.OpenFile where there is no poller to leave out.
func openFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}
