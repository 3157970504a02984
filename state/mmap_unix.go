//go:build unix

package state

import (
	"os"
	"syscall"
)

// ReadMapped maps a file into memory read-only, for the index and rules
// caches that the hook loads on every prompt: it then touches only the
// pages a prompt needs, instead of reading and copying the whole file (each
// page of a fresh buffer is a page fault, and faults were half the hook's
// system time). The mapping is never unmapped: what is loaded from it lives
// as long as its process, and strings handed out point into it. The files
// are replaced by rename (WriteAtomic), never rewritten in place, so the
// mapped bytes never change under the reader.
func ReadMapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.Size() == 0 || info.Size() != int64(int(info.Size())) {
		return os.ReadFile(path)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return os.ReadFile(path) // some filesystems cannot map
	}
	return data, nil
}
