//go:build unix

package store

import (
	"io/fs"
	"os"
	"syscall"
)

// openFile opens a file as os.OpenFile does, but leaves it out of Go's
// poller. os.OpenFile offers every file to epoll, which refuses regular
// files and folders: each open then costs five more system calls (fcntl
// to set non-blocking, the failed epoll_ctl, fcntl to set it back), 90 of
// a hook process's 550 (strace -c). Reads and writes of a regular file
// block either way. Not for a path that may be a FIFO (ReadRegular,
// MapFile open those non-blocking, through os.OpenFile).
func openFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == nil {
			return os.NewFile(uintptr(fd), path), nil
		}
		if err != syscall.EINTR {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
	}
}
