//go:build linux

package store

import "golang.org/x/sys/unix"

// exchange swaps two files' names atomically (renameat2 with
// RENAME_EXCHANGE): a reader finds the old file or the new one at either
// name. Replacing a file so, rather than renaming over it, skips ext4's
// writing out of the new file's data that a rename over an existing file
// starts (auto_da_alloc). `go test -run '^$' -bench WriteFile ./store/`
// times both: on the development machine (ext4, 300 replacements each) a
// rename over the file took 0.089 ms by the median and 0.18 by the 99th
// percentile (nosync-rename), the exchange and unlink 0.040 and 0.068
// (nosync).
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
