//go:build unix

package store

import (
	"io"
	"os"
	"syscall"
)

// mapFile maps an open file of the given size into memory read-only, for
// the index and rules caches that the hook loads on every prompt: it then
// touches only the pages a prompt needs, instead of reading and copying the
// whole file (each page of a fresh buffer is a page fault, and faults were
// half the hook's system time). The mapping is never unmapped: what is
// loaded from it lives as long as its process, and strings handed out point
// into it. Caches are replaced by rename (Write), never rewritten in place,
// so the mapped bytes never change under the reader.
func mapFile(f *os.File, size int64) (data []byte, mapped bool, err error) {
	if size == 0 || size != int64(int(size)) {
		data, err = io.ReadAll(f)
		return data, false, err
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		data, err = io.ReadAll(f) // some filesystems cannot map
		return data, false, err
	}
	return data, true, nil
}

// unmapFile releases a mapping that was never handed out (a file that
// failed its checks): each mapping is a kernel object, and a process may
// hold only so many (vm.max_map_count).
func unmapFile(data []byte, mapped bool) {
	if mapped {
		_ = syscall.Munmap(data)
	}
}
