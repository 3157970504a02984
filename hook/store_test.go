package hook_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/store"
)

// UpdateSession holds the session's lock across read, change and write:
// concurrent updates of one session all land, none overwrites another.
func TestUpdateSession(t *testing.T) {
	s := &hook.Store{Dir: t.TempDir()}
	const n = 24
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			assert.NoError(t, s.UpdateSession(ctx, "s1", func(f *hook.SessionFile) error {
				f.Project = append(f.Project, fmt.Sprint("p", i))
				return nil
			}))
		}()
	}
	wg.Wait()
	f, err := s.SessionFile("s1")
	require.NoError(t, err)
	assert.Len(t, f.Project, n, "no update lost")

	// A change that fails writes nothing.
	boom := errors.New("boom")
	err = s.UpdateSession(context.Background(), "s1", func(f *hook.SessionFile) error {
		f.Project = nil
		return boom
	})
	require.ErrorIs(t, err, boom)
	f, _ = s.SessionFile("s1")
	assert.Len(t, f.Project, n)

	// The file is private and in the versioned header.
	path := filepath.Join(s.Dir, "sessions", "s1.json")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), info.Mode().Perm())
	data, _ := os.ReadFile(path)
	assert.True(t, strings.HasPrefix(string(data), `{"skillroute":"session","version":1,"data":`), string(data))
}

// Files written before the store's header existed are read as they are:
// upgrading loses no session and no workflow statistics.
func TestStoreReadsOlderFiles(t *testing.T) {
	s := &hook.Store{Dir: t.TempDir()}
	require.NoError(t, os.MkdirAll(filepath.Join(s.Dir, "sessions"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, "sessions", "old.json"),
		[]byte(`{"id":"old","recent":["tester-expert"],"updated":"2026-03-01T12:00:00Z","last":{"id":"d1","query":"写单测","skill":"tester-expert","confidence":0.8,"time":"2026-03-01T12:00:00Z"}}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, hook.WorkflowFile),
		[]byte(`{"bigrams":{"tester-expert":{"debugger-expert":3}}}`), 0o644))
	f, err := s.SessionFile("old")
	require.NoError(t, err)
	assert.Equal(t, []string{"tester-expert"}, f.Recent)
	require.NotNil(t, f.Last)
	assert.Equal(t, "写单测", f.Last.Query)
	wf, err := s.Workflow()
	require.NoError(t, err)
	assert.Equal(t, 3, wf.Bigrams["tester-expert"]["debugger-expert"])
	assert.Equal(t, "old", s.Latest())
	// A session started since, with no routed prompt yet, is not the one
	// a correction is about.
	require.NoError(t, s.ResetSession(context.Background(), "fresh"))
	assert.Equal(t, "old", s.Latest())

	// A session of a newer version is an error naming the file, and the
	// hook routes without it.
	newer := filepath.Join(s.Dir, "sessions", "new.json")
	require.NoError(t, os.WriteFile(newer, []byte(`{"skillroute":"session","version":9,"data":{}}`), 0o600))
	f, err = s.SessionFile("new")
	require.ErrorIs(t, err, store.ErrVersion)
	assert.Contains(t, err.Error(), newer)
	assert.Equal(t, "new", f.ID)
}

// The user's settings.json keeps its mode and its symlink, a read-only
// one is refused before anything is written, a file holding null is
// edited as an empty one, and backups do not pile up.
func TestInstallRespectsSettingsFile(t *testing.T) {
	t.Run("mode kept", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "settings.json")
		require.NoError(t, os.WriteFile(path, []byte(`{"model":"opus"}`), 0o644))
		require.NoError(t, os.Chmod(path, 0o644))
		_, err := hook.Install(path, "/bin/skillroute", false)
		require.NoError(t, err)
		info, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o644), info.Mode().Perm())
	})
	t.Run("symlink written through", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "dotfiles", "settings.json")
		require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
		require.NoError(t, os.WriteFile(target, []byte(`{"model":"opus"}`), 0o644))
		link := filepath.Join(dir, ".claude", "settings.json")
		require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
		require.NoError(t, os.Symlink(target, link))
		_, err := hook.Install(link, "/bin/skillroute", false)
		require.NoError(t, err)
		li, err := os.Lstat(link)
		require.NoError(t, err)
		assert.True(t, li.Mode()&fs.ModeSymlink != 0, "the link is still a link")
		data, _ := os.ReadFile(target)
		assert.Contains(t, string(data), hook.StatusMessage, "the target has the hooks")
		assert.Contains(t, string(data), `"model": "opus"`)
	})
	t.Run("read-only refused", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "settings.json")
		require.NoError(t, os.WriteFile(path, []byte(`{"model":"opus"}`), 0o444))
		require.NoError(t, os.Chmod(path, 0o444))
		_, err := hook.Install(path, "/bin/skillroute", false)
		require.ErrorIs(t, err, store.ErrReadOnly)
		assert.Contains(t, err.Error(), path)
		data, _ := os.ReadFile(path)
		assert.Equal(t, `{"model":"opus"}`, string(data))
		backups, _ := filepath.Glob(path + ".skillroute-backup-*")
		assert.Empty(t, backups, "no backup of an edit that did not happen")
	})
	t.Run("null", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "settings.json")
		require.NoError(t, os.WriteFile(path, []byte("null\n"), 0o644))
		changes, err := hook.Install(path, "/bin/skillroute", false)
		require.NoError(t, err)
		assert.Len(t, changes, len(hook.Registrations))
		events, _ := hook.Installed(path)
		assert.Len(t, events, len(hook.Registrations))
	})
	t.Run("backups capped", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "settings.json")
		require.NoError(t, os.WriteFile(path, []byte(`{}`), 0o644))
		for i := range 2 * hook.MaxBackups {
			_, err := hook.Install(path, fmt.Sprint("/bin/skillroute-", i), false)
			require.NoError(t, err)
		}
		backups, _ := filepath.Glob(path + "." + hook.BackupTag + "-*")
		assert.Len(t, backups, hook.MaxBackups)
		newest, err := os.ReadFile(fmt.Sprintf("%s.%s-%d", path, hook.BackupTag, 2*hook.MaxBackups))
		require.NoError(t, err)
		assert.Contains(t, string(newest), fmt.Sprint("/bin/skillroute-", 2*hook.MaxBackups-2), "the newest backup holds the last version replaced")
	})
}

// Decisions counts the routed prompts of every decisions file and, apart,
// the lines that are not one: a record a kill cut short stays a line of
// its own, and the decision written after it counts.
func TestDecisions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := &hook.Store{Dir: dir}
	now := time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "decisions-1.jsonl"),
		[]byte(`{"id":"old","skill":"git-expert","time":"2026-12-03T10:00:00Z"}`+"\n"), 0o600))
	require.NoError(t, st.RecordDecision(ctx, hook.Decision{ID: "a", Session: "s", Time: now}))
	path := filepath.Join(dir, hook.DecisionsFile)
	whole, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write(whole[:len(whole)/2]) // a writer killed mid-line
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, st.RecordDecision(ctx, hook.Decision{ID: "b", Session: "s", Time: now}))

	n, damaged, err := st.Decisions(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, n, "old, a and b")
	assert.Equal(t, 1, damaged, "the record cut short")

	n, damaged, err = (&hook.Store{Dir: t.TempDir()}).Decisions(ctx)
	require.NoError(t, err)
	assert.Zero(t, n+damaged, "no log yet")
}
