//go:build linux

package store

import "syscall"

// evict drops a file mapping's pages from the process's resident memory;
// touched again, they are read from the file (or the page cache) again.
func evict(data []byte) { _ = syscall.Madvise(data, syscall.MADV_DONTNEED) }
