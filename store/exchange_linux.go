//go:build linux

package store

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

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

// spareSuffix ends the name of a file's spare, ".BASE.spare.tmp": a temp
// file's name, so that CleanTemps takes it once idle.
const spareSuffix = ".spare.tmp"

// replaceSpare replaces target's content through its spare, a file
// kept beside it that holds the content before the last replacement: the
// spare is filled (fill, then cut to what it wrote) and exchanged with
// the target, and so becomes the spare of the next replacement. A file
// rewritten on every prompt then needs no new file each time: creating
// one in a folder of files deleted seconds before, ext4 steps over every
// inode deleted recently (recently_deleted), and the session's temp file
// was 5 % of a hook process's CPU samples at 50 skills (perf record of 200
// prompt events). The caller holds the target's lock (Lock), so one
// writer at a time fills a spare, and a spare a cleaner removed
// (CleanTemps) is not made again until the exchange failed for want of
// it; a reader (readFile) holds a shared
// lock on the file it reads, and a spare a reader still holds (it was
// the target when the reader opened it) is not filled, nor one linked
// elsewhere too: the caller then replaces through a new temp file. An
// error leaves the target as it was.
func replaceSpare(dir, base, target string, mode fs.FileMode, fill func(*os.File) error) error {
	spare := filepath.Join(dir, "."+base+spareSuffix)
	f, err := openFile(spare, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	defer f.Close() // and unlocks it, the exchange done
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if st, ok := info.Sys().(*syscall.Stat_t); !info.Mode().IsRegular() || !ok || st.Nlink != 1 {
		// Not a file of ours alone: a hard link to the old content (a
		// backup's) keeps it, as after a rename.
		return ErrNotRegular
	}
	if err := fill(f); err != nil {
		return err
	}
	end, err := f.Seek(0, io.SeekCurrent)
	if err == nil {
		err = f.Truncate(end)
	}
	if err == nil && info.Mode().Perm() != mode {
		err = f.Chmod(mode)
	}
	if err != nil {
		return err
	}
	return exchange(spare, target)
}

// shareLock takes a shared lock on a file open for reading, so that no
// writer fills it as a spare (replaceSpare) while it is read; a writer
// filling it now is waited for, microseconds. Where the system refuses
// (a network file system), the read goes on unlocked: no spare is filled
// there either, since filling takes the lock too.
func shareLock(f *os.File) {
	for syscall.Flock(int(f.Fd()), syscall.LOCK_SH) == syscall.EINTR {
	}
}
