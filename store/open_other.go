//go:build !unix

package store

import (
	"io/fs"
	"os"
	"syscall"
)

// openFile is os.OpenFile where there is no poller to leave out.
func openFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}

// openNonblocking opens a file for reading that may be a FIFO or a
// device without blocking in the open.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
