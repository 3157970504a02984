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
// block either way. Not for a path that may be a FIFO (openNonblocking).
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

// openNonblocking opens a file for reading that may be a FIFO or a
// device (ReadRegular, MapFile): non-blocking, so that the open cannot
// stall, then blocking again and left out of the poller as openFile does
// (os.OpenFile's offer of the file to epoll, and the poller's state it
// sets up on first use, were a fifth of the hook's read of its
// trajectory log; perf record). The caller checks that it is a regular
// file before reading.
func openNonblocking(path string) (*os.File, error) {
	f, err := openFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return f, nil
}
