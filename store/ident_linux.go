//go:build linux

package store

import (
	"fmt"
	"io/fs"
	"syscall"
)

// identity describes a file as it is now: device, inode, size, and the
// modification and change times in nanoseconds. Replacing the file (a new
// inode), writing to it (mtime, ctime) or even touching its metadata
// (ctime, which no one can set back) gives another identity.
func identity(fi fs.FileInfo) (string, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("dev %d ino %d size %d mtime %d ctime %d", st.Dev, st.Ino, st.Size,
		st.Mtim.Nano(), st.Ctim.Nano()), true
}
