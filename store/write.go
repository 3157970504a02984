package store

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrReadOnly reports a file whose mode forbids writing: its owner made it
// so, and it is left as it is.
var ErrReadOnly = errors.New("read-only")

// Perm says how a file and the folders made for it are created. A file
// that already exists keeps its own mode.
type Perm struct {
	File fs.FileMode // mode of a new file
	Dir  fs.FileMode // mode of folders created for it
	// Private files live in a state folder: the folder must be the user's
	// own (CheckDir), and leftover temp files of any name are cleaned from
	// it.
	Private bool
	// KeepTemps leaves the folder's leftover temp files to CleanTemps
	// (Codec.KeepTemps).
	KeepTemps bool
	// spare replaces an existing file through its spare (replaceSpare)
	// when no fsync is asked for: Codec.NoSync's files written under their
	// lock (Lock), read by readFile alone (never mapped: a mapped file may
	// not be filled again).
	spare bool
}

var (
	// Private is for everything in the state folder, whose logs hold
	// prompt text: files 0600, folders 0700, owner checked.
	Private = Perm{File: 0o600, Dir: 0o700, Private: true}
	// Settings is for a Claude Code settings file: new files 0600 (they may
	// hold tokens in "env"), folders 0755 as Claude Code makes them.
	Settings = Perm{File: 0o600, Dir: 0o755}
	// Public is for files meant to be read by the user's tools, such as
	// installed skills: 0644 in folders 0755.
	Public = Perm{File: 0o644, Dir: 0o755}
)

// tempAge is the age past which a temp file is taken for a killed
// writer's: a write takes milliseconds (seconds for a 300 MB index), so a
// temp file a minute old is no live writer's.
const tempAge = time.Minute

// tempSuffix ends the name of every temp file Write creates.
const tempSuffix = ".tmp"

// WriteFile replaces a state file's content atomically (Write with
// Private).
func WriteFile(path string, data []byte) error { return Write(path, data, Private) }

// Write replaces path's content with data atomically: a temp file in the
// target's folder, written and fsynced, renamed over the target, and the
// folder fsynced, so that a crash at any point leaves the old content or
// the new. A symlink is written through to its target; an existing file
// keeps its mode; a read-only one is refused (ErrReadOnly). Callers that
// read, change and write hold the lock (Lock) around all three.
func Write(path string, data []byte, p Perm) error {
	return replace(path, p, true, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// replace is Write with the content written by fill; sync false skips the
// fsyncs, for files that a power cut may cost (Codec.NoSync, a cache's
// sidecar): such a file then replaces an existing one by exchanging the
// two (exchange) rather than renaming over it, which on ext4 writes the
// new file's data out first.
func replace(path string, p Perm, sync bool, fill func(*os.File) error) error {
	target, mode, exists, err := resolve(path, p)
	if err != nil {
		return err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	if err := ensureDir(dir, p); err != nil {
		return err
	}
	if !p.KeepTemps {
		cleanTemps(dir, base, p)
	}
	if p.spare && !sync && exists && replaceSpare(dir, base, target, mode, fill) == nil {
		return nil
	}
	f, err := createTemp(dir, base)
	if err != nil {
		return err
	}
	err = fill(f)
	if err == nil && mode != 0o600 {
		err = f.Chmod(mode)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	tmp := f.Name()
	if err := errors.Join(err, f.Close()); err != nil {
		os.Remove(tmp)
		return err
	}
	if !sync && exists && exchange(tmp, target) == nil {
		// The temp name now holds the old content. A writer killed
		// before removing it leaves a temp file like any other.
		os.Remove(tmp)
		return nil
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return err
	}
	if sync {
		syncDir(dir)
	}
	return nil
}

// createTemp creates a new temp file for base in dir, ".BASE.N.tmp" (as
// os.CreateTemp would name it, opened through openFile).
func createTemp(dir, base string) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(uint64(rand.Uint32()), 10)+tempSuffix)
		f, err := openFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		return f, err
	}
}

// resolve returns the file that replacing path must replace (the target
// of a symlink), the mode to give it (its own when it exists, else the
// permission's) and whether it exists.
func resolve(path string, p Perm) (string, fs.FileMode, bool, error) {
	target := path
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		t, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", 0, false, fmt.Errorf("%s: a symlink to nothing, left untouched: %w", path, err)
		}
		target = t
		fi, err = os.Stat(target)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, p.File, false, nil
	case err != nil:
		return "", 0, false, err
	case !fi.Mode().IsRegular():
		return "", 0, false, fmt.Errorf("%s: not a regular file, left untouched", path)
	case fi.Mode().Perm()&0o200 == 0:
		return "", 0, false, fmt.Errorf("%s is read-only (mode %04o), left untouched; make it writable to let skillroute change it: %w",
			path, fi.Mode().Perm(), ErrReadOnly)
	}
	return target, fi.Mode().Perm(), true, nil
}

// syncDir makes a rename in dir durable. Failures are ignored: some
// systems cannot sync a folder, and the rename itself has happened.
func syncDir(dir string) {
	if d, err := openFile(dir, os.O_RDONLY, 0); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// cleaned remembers the folders whose temp files this process has
// cleaned: once per process is enough, and the hook writes a folder twice.
var cleaned sync.Map

// CleanTemps removes the temp files older than tempAge that killed
// writers left in a private folder (see cleanTemps), for a folder whose
// files are written with Codec.KeepTemps.
func CleanTemps(dir string) {
	cleaned.Delete(dir)
	cleanTemps(dir, "", Private)
}

// cleanTemps removes temp files older than tempAge, left by writers that
// were killed between creating and renaming them. In a private folder
// every temp file goes (ours alone live there), and sidecars of caches
// that are gone; elsewhere (a settings folder other programs write too)
// only the temp files of base.
func cleanTemps(dir, base string, p Perm) {
	key := dir
	if !p.Private {
		key = filepath.Join(dir, base)
	}
	if _, done := cleaned.LoadOrStore(key, true); done {
		return
	}
	d, err := openFile(dir, os.O_RDONLY, 0)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	present := make(map[string]bool, len(names))
	for _, n := range names {
		present[n] = true
	}
	now := time.Now()
	for _, n := range names {
		var stale bool
		switch {
		case p.Private:
			stale = isTemp(n) || isSidecar(n) && !present[strings.TrimSuffix(n[1:], sidecarSuffix)]
		default:
			stale = isTemp(n) && strings.HasPrefix(n, "."+base+".")
		}
		if !stale {
			continue
		}
		if info, err := os.Lstat(filepath.Join(dir, n)); err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) > tempAge {
			os.Remove(filepath.Join(dir, n))
		}
	}
}

// isTemp reports whether a name is a temp file of Write (".NAME.*.tmp") or
// of the versions before it (".NAME.123456789").
func isTemp(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	if strings.HasSuffix(name, tempSuffix) && strings.Count(name, ".") >= 3 {
		return true
	}
	i := strings.LastIndexByte(name, '.')
	if i <= 1 || i == len(name)-1 {
		return false
	}
	for _, c := range name[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Backup saves data, the content of path about to be replaced, beside it
// as PATH.TAG-N (N one past the newest backup), and deletes all but the
// newest keep backups, so that repeated edits do not pile files up in the
// user's folder. Backups of older versions, named by time, count as older
// than every numbered one. It returns the backup's path.
func Backup(path, tag string, data []byte, keep int) (string, error) {
	s := Series{Dir: filepath.Dir(path), Prefix: filepath.Base(path) + "." + tag + "-"}
	for try := 0; try < 10; try++ { // another process may take the same number
		name, err := s.Next()
		if err != nil {
			return "", err
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(data)
		if werr == nil {
			werr = f.Sync()
		}
		if err := errors.Join(werr, f.Close()); err != nil {
			os.Remove(name)
			return "", err
		}
		syncDir(s.Dir)
		return name, s.Prune(keep)
	}
	return "", fmt.Errorf("%s: no free backup name", path)
}

// Writable reports whether Write may replace path: nil for a missing file
// or a writable regular one (or a symlink to one), else the error Write
// would return, such as one wrapping ErrReadOnly. Callers that must do
// something first (a backup) ask before doing it.
func Writable(path string) error {
	_, _, _, err := resolve(path, Perm{})
	return err
}
