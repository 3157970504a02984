//go:build !linux

package store

// evict is a no-op where it is not known to be safe.
func evict([]byte) {}

// dropCached is a no-op: the page cache is the kernel's to manage.
func dropCached(string) {}
