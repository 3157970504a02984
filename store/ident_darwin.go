//go:build darwin

package store

import (
	"fmt"
	"io/fs"
	"syscall"
)

// identity describes a file as it is now (see the Linux version).
func identity(fi fs.FileInfo) (string, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("dev %d ino %d size %d mtime %d ctime %d", st.Dev, st.Ino, st.Size,
		st.Mtimespec.Nano(), st.Ctimespec.Nano()), true
}
