//go:build darwin

package store

import (
	"io/fs"
	"strconv"
	"syscall"
)

// identity appends to buf a description of a file as it is now (see the
// Linux version).
func identity(buf []byte, fi fs.FileInfo) ([]byte, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return buf, false
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"dev ", int64(st.Dev)}, {" ino ", int64(st.Ino)}, {" size ", st.Size}, {" mtime ", st.Mtimespec.Nano()}, {" ctime ", st.Ctimespec.Nano()}} {
		buf = strconv.AppendInt(append(buf, f.name...), f.v, 10)
	}
	return buf, true
}
