//go:build unix

package store

import (
	"io/fs"
	"os"
	"syscall"
)

// fileOwner returns the uid owning a file; tests replace it to play
// another user.
var fileOwner = func(fi fs.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}

// currentUser returns the uid of this process.
var currentUser = func() uint32 { return uint32(os.Getuid()) }
