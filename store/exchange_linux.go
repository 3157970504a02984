//go:build linux

package store

import "golang.org/x/sys/unix"

// exchange swaps two files' names atomically (renameat2 with
// RENAME_EXCHANGE): a reader finds the old file or the new one at either
// name. Replacing a file so, rather than renaming over it, skips ext4's
// writing out of the new file's data that a rename over an existing file
// starts (auto_da_alloc): replacing a 757-byte session took 0.23 to 0.71
// ms by rename and 0.02 to 0.05 ms by exchange and unlink on the
// development machine (ext4, 200 replacements each, by turns).
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
