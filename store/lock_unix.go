//go:build unix

package store

import (
	"context"
	"os"
	"syscall"
)

// lockFile takes the exclusive flock of the lock file at path (created
// 0600), waiting as tryUntil does, and returns the function that releases
// it. The file is opened through openFile: gofrs/flock opens it with
// os.OpenFile, five system calls more for each of a prompt's three locks.
func lockFile(ctx context.Context, path string) (unlock func(), ok bool, err error) {
	f, err := openFile(path, os.O_RDONLY|os.O_CREATE, Private.File)
	if err != nil {
		return nil, false, err
	}
	fd := int(f.Fd())
	ok, err = tryUntil(ctx, func() (bool, error) {
		for {
			switch err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err {
			case nil:
				return true, nil
			case syscall.EWOULDBLOCK:
				return false, nil
			case syscall.EINTR:
				continue
			default:
				return false, err
			}
		}
	})
	if !ok {
		f.Close()
		return nil, false, err
	}
	return func() {
		_ = syscall.Flock(fd, syscall.LOCK_UN)
		f.Close()
	}, true, nil
}
