package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// playOwner makes the files at paths belong, for this package, to
// another user (uid 4242), as if created by them in a shared $TMPDIR.
// Tests run as whoever runs them, often root, and cannot chown.
func playOwner(t *testing.T, paths ...string) {
	t.Helper()
	foreign := map[uint64]bool{}
	for _, p := range paths {
		li, err := os.Lstat(p)
		require.NoError(t, err)
		foreign[li.Sys().(*syscall.Stat_t).Ino] = true
	}
	real := fileOwner
	fileOwner = func(fi fs.FileInfo) (uint32, bool) {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && foreign[st.Ino] {
			return 4242, true
		}
		return real(fi)
	}
	checked.Clear()
	sound.Clear()
	t.Cleanup(func() {
		fileOwner = real
		checked.Clear()
		sound.Clear()
	})
}

// A state folder that is not the user's is refused before anything is
// read or written in it: the folder itself, a symlink to such a folder,
// a symlink another user planted, or a folder inside one another user
// owns.
func TestStateFolderNotOwned(t *testing.T) {
	tmp := t.TempDir() // stands for a shared $TMPDIR

	theirs := filepath.Join(tmp, "theirs")
	require.NoError(t, os.Mkdir(theirs, 0o777))
	mine := filepath.Join(tmp, "mine")
	require.NoError(t, os.Mkdir(mine, 0o700))
	linkToTheirs := filepath.Join(tmp, "link-to-theirs")
	require.NoError(t, os.Symlink(theirs, linkToTheirs))
	plantedLink := filepath.Join(tmp, "planted-link")
	require.NoError(t, os.Symlink(mine, plantedLink))
	inside := filepath.Join(theirs, "skillroute") // made by us, inside theirs
	require.NoError(t, os.Mkdir(inside, 0o700))
	playOwner(t, theirs, plantedLink)

	for _, dir := range []string{theirs, linkToTheirs, plantedLink, inside, filepath.Join(inside, "sessions")} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if _, err := os.Stat(dir); err == nil {
				err := CheckDir(dir)
				require.ErrorIs(t, err, ErrNotOwned)
				assert.Contains(t, err.Error(), dir)
				assert.Contains(t, err.Error(), "uid 4242")
			}

			// Every way in is refused.
			assert.ErrorIs(t, WriteFile(filepath.Join(dir, "workflow.json"), []byte("{}")), ErrNotOwned)
			assert.ErrorIs(t, (&Log{Path: filepath.Join(dir, "decisions.jsonl")}).Append(context.Background(), []byte("x")), ErrNotOwned)
			assert.ErrorIs(t, Lock(context.Background(), filepath.Join(dir, "x.json"), func() error { return nil }), ErrNotOwned)
			assert.ErrorIs(t, WriteCache(filepath.Join(dir, "index.bin"), "index", 1, nil), ErrNotOwned)
			var v any
			assert.ErrorIs(t, Codec{Kind: "session", Version: 1}.Read(filepath.Join(dir, "s.json"), &v), ErrNotOwned)
			_, err := LoadCache(filepath.Join(dir, "index.bin"), "index", 1)
			assert.ErrorIs(t, err, ErrNotOwned)
		})
	}
	entries, err := os.ReadDir(theirs)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing written in their folder but what the test made")
	entries, err = os.ReadDir(inside)
	require.NoError(t, err)
	assert.Empty(t, entries, "no folder made inside their folder either")

	// Our own folder, and a link we made to it, are fine.
	require.NoError(t, CheckDir(mine))
	ours := filepath.Join(tmp, "our-link")
	require.NoError(t, os.Symlink(mine, ours))
	require.NoError(t, CheckDir(ours))
	require.NoError(t, WriteFile(filepath.Join(mine, "sessions", "a.json"), []byte("{}")))
}

// A folder inside one already accepted is accepted by its own owner
// alone, without walking up again; one another user owns, or a symlink,
// is still refused or checked whole.
func TestCheckDirBelowAccepted(t *testing.T) {
	tmp := t.TempDir()
	state := filepath.Join(tmp, "state")
	for _, d := range []string{"cache", "planted", "elsewhere"} {
		require.NoError(t, os.MkdirAll(filepath.Join(state, d), 0o700))
	}
	theirs := filepath.Join(tmp, "theirs")
	require.NoError(t, os.Mkdir(theirs, 0o777))
	require.NoError(t, os.Symlink(theirs, filepath.Join(state, "link")))
	playOwner(t, filepath.Join(state, "planted"), theirs)

	require.NoError(t, CheckDir(state))
	_, ok := sound.Load(filepath.Dir(state))
	assert.True(t, ok, "the folders above an accepted one are remembered")
	require.NoError(t, CheckDir(filepath.Join(state, "cache")))
	for _, d := range []string{"planted", "link"} {
		err := CheckDir(filepath.Join(state, d))
		require.ErrorIs(t, err, ErrNotOwned, d)
		assert.Contains(t, err.Error(), "uid 4242", d)
	}
	require.NoError(t, CheckDir(filepath.Join(state, "elsewhere")))
	require.NoError(t, WriteFile(filepath.Join(state, "sessions", "s.json"), []byte("{}")), "a folder made inside an accepted one")
}

// The sidecar spares a verified cache its full checksum pass: a file
// whose identity matches the sidecar is trusted (shown by corrupting one
// and vouching for it), and any change of identity (a write, a touch, a
// replacement) forces the verification again.
func TestCacheSidecar(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.bin")
	require.NoError(t, WriteCache(path, "index", 1, []byte("the payload")))
	require.NoError(t, os.Remove(sidecarPath(path))) // as if written by someone else
	_, err := LoadCache(path, "index", 1)
	require.NoError(t, err)
	stamp, err := os.ReadFile(sidecarPath(path))
	require.NoError(t, err, "the first load records its verification")

	// Corrupt the payload in place, then vouch for the corrupted file as a
	// sidecar would: the load skips the pass and accepts it.
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	raw[HeaderSize] ^= 0xff
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	vouch := func() {
		info, err := os.Stat(path)
		require.NoError(t, err)
		id, ok := identity(nil, info)
		require.True(t, ok)
		crc := string(stamp[strings.Index(string(stamp), " crc "):])
		require.NoError(t, os.WriteFile(sidecarPath(path), []byte(string(id)+crc), 0o600))
	}
	vouch()
	got, err := LoadCache(path, "index", 1)
	require.NoError(t, err, "a remembered verification is not repeated")
	assert.Equal(t, byte('t'^0xff), got[0])

	// Touching the file changes its identity: verified again, caught.
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(path, later, later))
	_, err = LoadCache(path, "index", 1)
	assert.ErrorIs(t, err, ErrDamaged)

	// A rewrite (a new inode) is verified again too.
	vouch()
	require.NoError(t, os.WriteFile(path+".new", raw, 0o600))
	require.NoError(t, os.Rename(path+".new", path))
	_, err = LoadCache(path, "index", 1)
	assert.ErrorIs(t, err, ErrDamaged)

	// A rewrite by WriteCache is verified by the writer, reading back what
	// it wrote, and remembered with the file's new identity: the next
	// load (a hook's) is spared the pass.
	require.NoError(t, WriteCache(path, "index", 1, []byte("another payload")))
	info, err := os.Stat(path)
	require.NoError(t, err)
	id, _ := identity(nil, info)
	again, err := os.ReadFile(sidecarPath(path))
	require.NoError(t, err)
	assert.Contains(t, string(again), string(id))
	assert.NotEqual(t, string(stamp), string(again))
	got, err = LoadCache(path, "index", 1)
	require.NoError(t, err)
	assert.Equal(t, "another payload", string(got))

	// A damaged sidecar only costs a verification.
	require.NoError(t, os.WriteFile(sidecarPath(path), []byte("garbage"), 0o600))
	_, err = LoadCache(path, "index", 1)
	require.NoError(t, err)
	assert.False(t, errors.Is(err, ErrDamaged))
}

// A folder whose path has no symlink is checked in one walk up; a symlink
// anywhere above it still sends the check through the resolved path, so
// that a folder reached through a link into another user's folder is
// refused though every folder named on the path is the user's own.
func TestCheckDirSymlinkAbove(t *testing.T) {
	tmp := t.TempDir()
	theirs := filepath.Join(tmp, "theirs")
	mine := filepath.Join(tmp, "mine")
	for _, d := range []string{filepath.Join(theirs, "state"), filepath.Join(mine, "state")} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	toTheirs, toMine := filepath.Join(tmp, "to-theirs"), filepath.Join(tmp, "to-mine")
	require.NoError(t, os.Symlink(theirs, toTheirs))
	require.NoError(t, os.Symlink(mine, toMine))
	playOwner(t, theirs)

	err := CheckDir(filepath.Join(toTheirs, "state"))
	require.ErrorIs(t, err, ErrNotOwned)
	assert.Contains(t, err.Error(), "lies inside "+theirs)
	_, ok := sound.Load(toTheirs)
	assert.False(t, ok, "a symlink is never remembered as a sound folder")

	require.NoError(t, CheckDir(filepath.Join(toMine, "state")))
	_, ok = sound.Load(mine)
	assert.True(t, ok, "the resolved folders are remembered")

	plain := filepath.Join(theirs, "state")
	err = CheckDir(plain)
	require.ErrorIs(t, err, ErrNotOwned, "no symlink on the path: refused by the one walk")
	assert.Contains(t, err.Error(), "lies inside "+theirs)
	missing := filepath.Join(tmp, "gone", "state")
	assert.ErrorIs(t, CheckDir(missing), fs.ErrNotExist)
}

// Retime dates a cache without undoing its verification: the sidecar
// the write left vouches for the file under its new times, so the next
// load skips the checksum pass (shown, as above, by a corruption the
// pass would catch). A file no sidecar vouched for gets none.
func TestRetimeKeepsVerification(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "index.bin")
	require.NoError(t, WriteCache(path, "index", 1, []byte("the payload")))
	began := time.Now().Add(-time.Minute).Truncate(time.Second)
	require.NoError(t, Retime(path, began))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.True(t, info.ModTime().Equal(began), "dated as asked")
	id, ok := identity(nil, info)
	require.True(t, ok)
	stamp, err := os.ReadFile(sidecarPath(path))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(stamp), string(id)+" crc "), "the sidecar records the new identity: %s", stamp)
	_, err = LoadCache(path, "index", 1)
	require.NoError(t, err)

	// Unvouched: retimed, and still verified at the next load.
	require.NoError(t, os.Remove(sidecarPath(path)))
	require.NoError(t, Retime(path, began.Add(time.Second)))
	assert.NoFileExists(t, sidecarPath(path))

	// A corrupted file that no sidecar vouches for is caught.
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	raw[HeaderSize] ^= 0xff
	require.NoError(t, os.WriteFile(path, raw, 0o600))
	require.NoError(t, Retime(path, began))
	_, err = LoadCache(path, "index", 1)
	assert.ErrorIs(t, err, ErrDamaged)
}
