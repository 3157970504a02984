package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// ErrNotOwned reports a state folder that is not the user's own, or that
// lies inside a folder another user owns.
var ErrNotOwned = errors.New("not owned by you")

// DefaultDir returns skillroute's state folder: $CLAUDE_PLUGIN_DATA when
// running as a plugin, else $SKILLROUTE_HOME, else HOME/.claude/skillroute,
// and with no home at all $TMPDIR/skillroute (a shared folder, which is
// why a state folder is checked before use: see CheckDir). getenv is
// os.Getenv in the command and a map in tests.
//
// A SKILLROUTE_HOME of "~/…" is in the home folder, and so is a relative
// one: a settings file's env block passes "~/.sr" as written, and the
// hook runs in each project's folder, where a relative state folder would
// leave the prompts it logs inside every project (and its repository).
func DefaultDir(getenv func(string) string, home string) string {
	if v := getenv("CLAUDE_PLUGIN_DATA"); v != "" {
		return v
	}
	if v := getenv("SKILLROUTE_HOME"); v != "" {
		if home != "" && (v == "~" || strings.HasPrefix(v, "~/")) {
			return filepath.Join(home, strings.TrimPrefix(v, "~"))
		}
		if home != "" && !filepath.IsAbs(v) {
			return filepath.Join(home, v)
		}
		return v
	}
	if home != "" {
		return filepath.Join(home, ".claude", "skillroute")
	}
	tmp := getenv("TMPDIR") // os.TempDir's rule on Unix
	if tmp == "" {
		tmp = "/tmp"
	}
	return filepath.Join(tmp, "skillroute")
}

// checked remembers the folders CheckDir accepted in this process: the
// hook writes a handful of files in two or three folders. sound remembers
// the folders that belong to the user or the system, as do all the
// folders above them: each one CheckDir accepted, as given, and each
// resolved folder a walk passed. A check stops its walk up to the root at one,
// and a plain folder of the user's inside one is accepted by its own
// owner alone. The hook's three folders (the state folder, its cache and
// sessions) each walked up to / before: 30 stat calls of its 50 (strace).
var checked, sound sync.Map

// CheckDir reports whether dir is safe to keep private state in: a folder
// (or a symlink to one) that the current user owns, inside folders that
// the user or the system owns, reached through no symlink another user
// planted. Otherwise the error wraps ErrNotOwned and says which folder
// belongs to whom. On systems without owners (Windows) every folder is
// accepted.
func CheckDir(dir string) error {
	// Accepted as given: a key is a clean absolute path, which Abs returns
	// unchanged (it cleans even those: 15 calls, 17,000 instructions of a
	// hook process by callgrind).
	if _, ok := checked.Load(dir); ok {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if _, ok := checked.Load(abs); ok {
		return nil
	}
	if err := checkDir(abs); err != nil {
		return err
	}
	checked.Store(abs, true)
	sound.Store(abs, true)
	return nil
}

func checkDir(dir string) error {
	me := currentUser()
	li, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if _, ok := sound.Load(filepath.Dir(dir)); ok && li.IsDir() { // a folder, not a symlink
		if uid, ok := fileOwner(li); !ok || uid == me {
			return nil
		}
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		if uid, ok := fileOwner(li); ok && uid != me && uid != 0 {
			return fmt.Errorf("state folder %s is a symlink owned by uid %d, not by you (uid %d): refused, it could lead anywhere; remove it: %w", dir, uid, me, ErrNotOwned)
		}
	}
	if li.IsDir() {
		// The common case, a path with no symlink on it, in one walk.
		if above, ok, err := plainPath(dir); ok || err != nil {
			if err != nil {
				return err
			}
			if uid, ok := fileOwner(li); ok && uid != me {
				return fmt.Errorf("state folder %s is owned by uid %d, not by you (uid %d): refused, another user could read or plant its files; remove it or choose another with SKILLROUTE_HOME: %w", dir, uid, me, ErrNotOwned)
			}
			return checkOwners(dir, above)
		}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("state folder %s is not a folder", dir)
	}
	if uid, ok := fileOwner(fi); ok && uid != me {
		what := dir
		if real != dir {
			what = fmt.Sprintf("%s (a symlink to %s)", dir, real)
		}
		return fmt.Errorf("state folder %s is owned by uid %d, not by you (uid %d): refused, another user could read or plant its files; remove it or choose another with SKILLROUTE_HOME: %w", what, uid, me, ErrNotOwned)
	}
	return checkAncestors(dir, filepath.Dir(real))
}

// ancestor is a folder above a state folder, as plainPath found it.
type ancestor struct {
	path string
	info fs.FileInfo
}

// plainPath reports whether no folder above dir, up to the root or to a
// folder known sound (itself a resolved path), is a symlink, and returns
// them as found (by Lstat, which on a folder is what Stat says). Then dir,
// itself a folder, is its own resolved path, and these are the folders
// checkAncestors would stat: one walk instead of EvalSymlinks's Lstat of
// every folder and checkAncestors' Stat of each again. On a symlink it
// returns false, and the caller resolves the path.
func plainPath(dir string) ([]ancestor, bool, error) {
	var above []ancestor
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if _, ok := sound.Load(p); ok {
			break
		}
		pi, err := os.Lstat(p)
		if err != nil {
			return nil, false, err
		}
		if pi.Mode()&fs.ModeSymlink != 0 {
			return nil, false, nil
		}
		above = append(above, ancestor{p, pi})
		if filepath.Dir(p) == p {
			break
		}
	}
	return above, true, nil
}

// checkOwners is checkAncestors over folders already found (plainPath).
func checkOwners(dir string, above []ancestor) error {
	me := currentUser()
	for _, a := range above {
		if uid, ok := fileOwner(a.info); ok && uid != me && uid != 0 {
			return fmt.Errorf("state folder %s lies inside %s, which uid %d owns, not you (uid %d): refused, that user could swap it; choose another with SKILLROUTE_HOME: %w", dir, a.path, uid, me, ErrNotOwned)
		}
	}
	for _, a := range above {
		sound.Store(a.path, true)
	}
	return nil
}

// checkAncestors checks that folder p and every folder above it belong to
// the current user or to the system (root): no one else can swap what lies
// below them. dir is the state folder, for the message.
func checkAncestors(dir, p string) error {
	me := currentUser()
	var walked []string
	for ; ; p = filepath.Dir(p) {
		if _, ok := sound.Load(p); ok {
			break
		}
		pi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if uid, ok := fileOwner(pi); ok && uid != me && uid != 0 {
			return fmt.Errorf("state folder %s lies inside %s, which uid %d owns, not you (uid %d): refused, that user could swap it; choose another with SKILLROUTE_HOME: %w", dir, p, uid, me, ErrNotOwned)
		}
		walked = append(walked, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	for _, p := range walked { // each resolved already (p is a real path), and every folder above it checked
		sound.Store(p, true)
	}
	return nil
}

// ensureDir creates dir (and its parents) with the permission's folder
// mode, and checks a private one with CheckDir; a private folder yet to
// be made is not made inside a folder another user owns.
func ensureDir(dir string, p Perm) error {
	if p.Private {
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			if err := checkFuture(dir); err != nil {
				return err
			}
		}
	}
	if err := os.MkdirAll(dir, p.Dir); err != nil {
		return err
	}
	if p.Private {
		return CheckDir(dir)
	}
	return nil
}

// checkFuture checks the folders a missing dir would be made in: its
// nearest existing ancestor and those above it.
func checkFuture(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	p := abs
	for {
		parent := filepath.Dir(p)
		if parent == p {
			return nil
		}
		p = parent
		if _, err := os.Lstat(p); err == nil {
			break
		}
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	return checkAncestors(abs, real)
}

// checkParent checks the folder of a state file about to be read; of a
// folder that does not exist, the folders it would be made in.
func checkParent(path string) error {
	err := CheckDir(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return checkFuture(filepath.Dir(path))
	}
	return err
}
