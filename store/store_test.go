package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/internal/damage"
	"github.com/skillroute/skillroute/store"
)

func TestDefaultDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		home string
		want string
	}{
		{"plugin data first", map[string]string{"CLAUDE_PLUGIN_DATA": "/plugin/data", "SKILLROUTE_HOME": "/sr"}, "/u", "/plugin/data"},
		{"then SKILLROUTE_HOME", map[string]string{"SKILLROUTE_HOME": "/sr"}, "/u", "/sr"},
		{"SKILLROUTE_HOME with a tilde", map[string]string{"SKILLROUTE_HOME": "~/.sr"}, "/u", filepath.Join("/u", ".sr")},
		{"SKILLROUTE_HOME a tilde alone", map[string]string{"SKILLROUTE_HOME": "~"}, "/u", "/u"},
		{"a relative SKILLROUTE_HOME is in the home folder, not the project's", map[string]string{"SKILLROUTE_HOME": "state/sr"}, "/u", filepath.Join("/u", "state", "sr")},
		{"a relative one without a home stays as given", map[string]string{"SKILLROUTE_HOME": "sr"}, "", "sr"},
		{"~user is a name, not the home", map[string]string{"SKILLROUTE_HOME": "~bob/sr"}, "/u", filepath.Join("/u", "~bob", "sr")},
		{"then the home folder", nil, "/u", filepath.Join("/u", ".claude", "skillroute")},
		{"no home: TMPDIR", map[string]string{"TMPDIR": "/var/tmp"}, "", filepath.Join("/var/tmp", "skillroute")},
		{"no home, no TMPDIR", nil, "", filepath.Join("/tmp", "skillroute")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, store.DefaultDir(func(k string) string { return tt.env[k] }, tt.home))
		})
	}
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	info, err := os.Stat(path)
	require.NoError(t, err)
	return info.Mode().Perm()
}

// State files are private: a new file is 0600 and the folders made for
// it 0700, since the logs hold prompt text.
func TestWriteFilePrivate(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "state", "sessions", "a.json")
	require.NoError(t, store.WriteFile(path, []byte("one")))
	require.NoError(t, store.WriteFile(path, []byte("two")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "two", string(data))
	assert.Equal(t, fs.FileMode(0o600), mode(t, path))
	assert.Equal(t, fs.FileMode(0o700), mode(t, filepath.Join(root, "state")))
	assert.Equal(t, fs.FileMode(0o700), mode(t, filepath.Join(root, "state", "sessions")))
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temp file left behind")

	log := &store.Log{Path: filepath.Join(root, "logs", "decisions.jsonl")}
	require.NoError(t, log.Append(context.Background(), []byte(`{"a":1}`)))
	assert.Equal(t, fs.FileMode(0o600), mode(t, log.Path))
	assert.Equal(t, fs.FileMode(0o700), mode(t, filepath.Dir(log.Path)))
}

// An unsynced replace (Codec.NoSync: the hook's session and workflow
// files) swaps the new file in (store's exchange) instead of renaming
// over the old one: the file holds the new content, keeps its mode, a
// hard link to the old file keeps the old content (as after a rename),
// and no temp file is left but the file's spare (written under its
// lock).
func TestWriteNoSyncReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sessions", "s.json")
	c := store.Codec{Kind: "session", Version: 1, NoSync: true}
	require.NoError(t, c.Write(path, map[string]int{"n": 1}), "a new file")
	require.NoError(t, os.Chmod(path, 0o640))
	old := filepath.Join(dir, "old.json")
	require.NoError(t, os.Link(path, old))
	for n := 2; n <= 3; n++ {
		require.NoError(t, store.Lock(context.Background(), path, func() error { return c.Write(path, map[string]int{"n": n}) }))
		var got map[string]int
		require.NoError(t, c.Read(path, &got))
		assert.Equal(t, n, got["n"])
		assert.Equal(t, fs.FileMode(0o640), mode(t, path))
	}
	data, err := os.ReadFile(old)
	require.NoError(t, err)
	assert.Equal(t, `{"skillroute":"session","version":1,"data":{"n":1}}`, string(data))
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"s.json", "s.json.lock"}
	if runtime.GOOS == "linux" {
		want = []string{".s.json.spare.tmp", "s.json", "s.json.lock"}
	}
	assert.Equal(t, want, names, "no temp file left behind")
}

// A file that exists keeps its mode: the user's 0644 settings.json stays
// 0644, and so does a log an older version created 0644.
func TestWriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []fs.FileMode{0o644, 0o640, 0o600} {
		path := filepath.Join(dir, fmt.Sprintf("settings-%o.json", m))
		require.NoError(t, os.WriteFile(path, []byte("{}"), m))
		require.NoError(t, os.Chmod(path, m))
		require.NoError(t, store.Write(path, []byte(`{"a":1}`), store.Settings))
		assert.Equal(t, m, mode(t, path))
	}
	log := &store.Log{Path: filepath.Join(dir, "feedback.jsonl")}
	require.NoError(t, os.WriteFile(log.Path, nil, 0o644))
	require.NoError(t, os.Chmod(log.Path, 0o644))
	require.NoError(t, log.Append(context.Background(), []byte("x")))
	assert.Equal(t, fs.FileMode(0o644), mode(t, log.Path))

	// A new settings file is private, its folder made as Claude Code does.
	path := filepath.Join(dir, "new", ".claude", "settings.json")
	require.NoError(t, store.Write(path, []byte("{}"), store.Settings))
	assert.Equal(t, fs.FileMode(0o600), mode(t, path))
	assert.Equal(t, fs.FileMode(0o755), mode(t, filepath.Dir(path)))
}

// A symlinked settings.json (a dotfiles repository) is written through to
// its target; the link stays a link.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "claude-settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
	require.NoError(t, os.WriteFile(target, []byte("{}"), 0o644))
	require.NoError(t, os.Chmod(target, 0o644))
	link := filepath.Join(dir, ".claude", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
	require.NoError(t, os.Symlink("../dotfiles/claude-settings.json", link))

	require.NoError(t, store.Write(link, []byte(`{"hooks":{}}`), store.Settings))
	li, err := os.Lstat(link)
	require.NoError(t, err)
	assert.True(t, li.Mode()&fs.ModeSymlink != 0, "still a symlink")
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, `{"hooks":{}}`, string(data))
	assert.Equal(t, fs.FileMode(0o644), mode(t, target))
	entries, _ := os.ReadDir(filepath.Dir(link))
	assert.Len(t, entries, 1, "nothing but the link in the link's folder")

	// A link to nothing is refused, not replaced by a file.
	dangling := filepath.Join(dir, "dangling.json")
	require.NoError(t, os.Symlink(filepath.Join(dir, "missing", "x.json"), dangling))
	err = store.Write(dangling, []byte("{}"), store.Settings)
	require.Error(t, err)
	assert.Contains(t, err.Error(), dangling)
	li, err = os.Lstat(dangling)
	require.NoError(t, err)
	assert.True(t, li.Mode()&fs.ModeSymlink != 0)
}

// A read-only file is the user's decision: refused with an error naming
// it, content untouched (even for root, who could write it).
func TestWriteRefusesReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(path, []byte("{}"), 0o444))
	require.NoError(t, os.Chmod(path, 0o444))
	err := store.Write(path, []byte(`{"a":1}`), store.Settings)
	require.ErrorIs(t, err, store.ErrReadOnly)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "read-only")
	assert.ErrorIs(t, store.Writable(path), store.ErrReadOnly)
	data, _ := os.ReadFile(path)
	assert.Equal(t, "{}", string(data))
	assert.NoError(t, store.Writable(filepath.Join(t.TempDir(), "missing.json")))
}

// Temp files of killed writers are cleaned when their folder is next
// written: any of ours in a private folder, only the file's own in a
// shared one; fresh ones (a live writer's) stay.
func TestWriteCleansTemps(t *testing.T) {
	old := time.Now().Add(-2 * time.Minute)
	make := func(dir string, names ...string) {
		for _, n := range names {
			p := filepath.Join(dir, n)
			require.NoError(t, os.WriteFile(p, []byte("partial"), 0o600))
			if !strings.Contains(n, "fresh") {
				require.NoError(t, os.Chtimes(p, old, old))
			}
		}
	}
	exists := func(dir, name string) bool {
		_, err := os.Lstat(filepath.Join(dir, name))
		return err == nil
	}

	private := t.TempDir()
	make(private, ".session.json.123.tmp", ".workflow.json.4242", ".other.json.99.tmp", ".fresh.json.1.tmp", ".doctor",
		".gone.bin.verified", "kept.bin", ".kept.bin.verified")
	require.NoError(t, store.WriteFile(filepath.Join(private, "session.json"), []byte("{}")))
	for name, want := range map[string]bool{
		".session.json.123.tmp": false, ".workflow.json.4242": false, ".other.json.99.tmp": false,
		".gone.bin.verified": false, // the sidecar of a cache that is gone
		".fresh.json.1.tmp":  true, ".doctor": true, "kept.bin": true, ".kept.bin.verified": true, "session.json": true,
	} {
		assert.Equal(t, want, exists(private, name), name)
	}

	shared := t.TempDir()
	make(shared, ".settings.json.123.tmp", ".settings.json.77", ".other.json.5.tmp", ".claude.json.12")
	require.NoError(t, store.Write(filepath.Join(shared, "settings.json"), []byte("{}"), store.Settings))
	for name, want := range map[string]bool{
		".settings.json.123.tmp": false, ".settings.json.77": false,
		".other.json.5.tmp": true, ".claude.json.12": true, // other programs' business
	} {
		assert.Equal(t, want, exists(shared, name), name)
	}
}

func TestLockGivesUpAtDeadline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.json")
	held := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- store.Lock(context.Background(), path, func() error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	ran := false
	err := store.Lock(ctx, path, func() error { ran = true; return nil })
	close(release)
	require.NoError(t, <-done)
	require.ErrorIs(t, err, store.ErrBusy, "a busy lock is an error the hook can shrug off")
	assert.False(t, ran)
}

// A codec that keeps temps (the hook's sessions) does not list its folder
// on every write; CleanTemps cleans it when the caller chooses.
func TestCodecKeepTemps(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".other.json.99.tmp")
	require.NoError(t, os.WriteFile(stale, []byte("partial"), 0o600))
	old := time.Now().Add(-2 * time.Minute)
	require.NoError(t, os.Chtimes(stale, old, old))
	c := store.Codec{Kind: "session", Version: 1, NoSync: true, KeepTemps: true}
	require.NoError(t, c.Write(filepath.Join(dir, "s.json"), map[string]int{"n": 1}))
	_, err := os.Stat(stale)
	require.NoError(t, err, "left for CleanTemps")
	store.CleanTemps(dir)
	_, err = os.Stat(stale)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = os.Stat(filepath.Join(dir, "s.json"))
	assert.NoError(t, err)
}

// A context done before the lock is tried gives up at once, as the
// hook's logging past its deadline must; the lock file stays free.
func TestLockContextDone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	err := store.Lock(ctx, path, func() error { ran = true; return nil })
	require.ErrorIs(t, err, store.ErrBusy)
	assert.False(t, ran)
	require.NoError(t, store.Lock(context.Background(), path, func() error { ran = true; return nil }))
	assert.True(t, ran)
}

// Environment of the helper process of TestLogAppendAcrossRotation.
const (
	helperLogEnv = "STORE_HELPER_LOG"
	helperIDEnv  = "STORE_HELPER_ID"
	helperCount  = 300
)

// logUnderTest is the log the concurrency tests share: a tiny limit, so
// that rotation happens dozens of times while they append.
func logUnderTest(path string) *store.Log {
	return &store.Log{Path: path, MaxBytes: 4 << 10}
}

// TestHelperAppend is not a test: run by TestLogAppendAcrossRotation as a
// child process, it appends helperCount lines to $STORE_HELPER_LOG.
func TestHelperAppend(t *testing.T) {
	path := os.Getenv(helperLogEnv)
	if path == "" {
		t.Skip("helper process for TestLogAppendAcrossRotation")
	}
	appendLines(t, logUnderTest(path), "proc-"+os.Getenv(helperIDEnv), helperCount)
}

func appendLines(t *testing.T, l *store.Log, writer string, n int) {
	for i := range n {
		line := fmt.Sprintf(`{"writer":%q,"i":%d,"pad":%q}`, writer, i, strings.Repeat("x", 50+i%200))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := l.Append(ctx, []byte(line))
		cancel()
		if err != nil {
			t.Errorf("%s: %v", writer, err)
			return
		}
	}
}

// readAll returns every line of the log, in reading order.
func readAll(t *testing.T, l *store.Log) []string {
	t.Helper()
	var lines []string
	err := l.Read(context.Background(), func(name string, r io.Reader) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line != "" {
				lines = append(lines, line)
			}
		}
		return nil
	})
	require.NoError(t, err)
	return lines
}

// Processes and goroutines appending while the log rotates dozens of
// times lose no line and tear none, and each writer's lines stay in its
// order (before, rotation ran outside the lock and lost a whole rotated
// file in some rounds).
func TestLogAppendAcrossRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "decisions.jsonl")
	const procs, goroutines = 4, 4
	var wg sync.WaitGroup
	errs := make([]error, procs)
	outs := make([][]byte, procs)
	if !testing.Short() {
		for p := range procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppend$", "-test.count=1")
				cmd.Env = append(os.Environ(), helperLogEnv+"="+path, helperIDEnv+"="+strconv.Itoa(p))
				outs[p], errs[p] = cmd.CombinedOutput()
			}()
		}
	}
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			appendLines(t, logUnderTest(path), "goroutine-"+strconv.Itoa(g), helperCount)
		}()
	}
	wg.Wait()
	want := goroutines * helperCount
	if !testing.Short() {
		for p := range procs {
			require.NoError(t, errs[p], "process %d: %s", p, outs[p])
		}
		want += procs * helperCount
	}
	l := logUnderTest(path)
	files, err := l.Files()
	require.NoError(t, err)
	assert.Greater(t, len(files), 20, "rotated many times")
	lines := readAll(t, l)
	require.Len(t, lines, want, "no line lost")
	next := map[string]int{}
	for _, line := range lines {
		var rec struct {
			Writer string `json:"writer"`
			I      int    `json:"i"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "a whole line: %q", line)
		assert.Equal(t, next[rec.Writer], rec.I, "%s in order", rec.Writer)
		next[rec.Writer] = rec.I + 1
	}
}

// Rotation keeps Keep old files, numbered: the older ones go, oldest
// first, and so do files of an older naming.
func TestLogRotationKeep(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hook.log")
	require.NoError(t, os.WriteFile(path+".1", []byte("older version\n"), 0o600))
	l := &store.Log{Path: path, MaxBytes: 100, Keep: 2, Legacy: "hook.log.1"}
	ctx := context.Background()
	files, err := l.Files()
	require.NoError(t, err)
	assert.Equal(t, []string{path + ".1"}, files, "legacy first; no current file yet")
	for i := range 50 {
		require.NoError(t, l.Append(ctx, []byte(fmt.Sprintf("line %02d %s", i, strings.Repeat(".", 30)))))
	}
	files, err = l.Files()
	require.NoError(t, err)
	require.Len(t, files, 3)
	assert.Regexp(t, `hook-\d+\.log$`, files[0])
	assert.Regexp(t, `hook-\d+\.log$`, files[1])
	assert.Equal(t, path, files[2])
	n0, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(files[0]), "hook-"), ".log"))
	n1, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(files[1]), "hook-"), ".log"))
	assert.Equal(t, n0+1, n1, "numbered in order")
	lines := readAll(t, l)
	assert.Equal(t, "line 49 "+strings.Repeat(".", 30), lines[len(lines)-1])
}

// A torn last line (a writer killed mid-line, a full disk) never swallows
// the next record: the append starts on a fresh line.
func TestLogTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "feedback.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"whole":1}`+"\n"+`{"torn":`), 0o600))
	l := &store.Log{Path: path, Sync: true}
	require.NoError(t, l.Append(context.Background(), []byte(`{"next":2}`)))
	require.NoError(t, l.Append(context.Background(), []byte(`{"next":3}`)))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `{"whole":1}`+"\n"+`{"torn":`+"\n"+`{"next":2}`+"\n"+`{"next":3}`+"\n", string(data))
	lines := readAll(t, l)
	assert.Equal(t, []string{`{"whole":1}`, `{"torn":`, `{"next":2}`, `{"next":3}`}, lines)
}

// Read sees each file as it was when it began: appends made while fn runs
// belong to the next read.
func TestLogReadSnapshot(t *testing.T) {
	l := &store.Log{Path: filepath.Join(t.TempDir(), "x", "f.jsonl")}
	assert.Empty(t, readAll(t, l), "no folder, no lines")
	ctx := context.Background()
	require.NoError(t, l.Append(ctx, []byte("a")))
	var got []byte
	require.NoError(t, l.Read(ctx, func(name string, r io.Reader) error {
		require.NoError(t, l.Append(ctx, []byte("b"))) // the lock is not held while fn runs
		var err error
		got, err = io.ReadAll(r)
		return err
	}))
	assert.Equal(t, "a\n", string(got))
	assert.Equal(t, []string{"a", "b"}, readAll(t, l))
}

func TestCodec(t *testing.T) {
	dir := t.TempDir()
	c := store.Codec{Kind: "weights", Version: 2}
	type payload struct {
		Skill map[string]float64 `json:"skill"`
	}
	path := filepath.Join(dir, "weights.json")
	in := payload{Skill: map[string]float64{"a": 0.25}}
	require.NoError(t, c.Write(path, in))
	raw, _ := os.ReadFile(path)
	assert.JSONEq(t, `{"skillroute":"weights","version":2,"data":{"skill":{"a":0.25}}}`, string(raw))
	var out payload
	require.NoError(t, c.Read(path, &out))
	assert.Equal(t, in, out)
	assert.Equal(t, fs.FileMode(0o600), mode(t, path))

	var missing payload
	assert.ErrorIs(t, c.Read(filepath.Join(dir, "none", "missing.json"), &missing), fs.ErrNotExist)

	tests := []struct {
		name, content string
		want          *payload // nil: an error
		is            error
		says          string
	}{
		{"legacy at the current version", `{"version":2,"skill":{"b":1}}`, &payload{Skill: map[string]float64{"b": 1}}, nil, ""},
		{"newer", `{"skillroute":"weights","version":3,"data":{}}`, nil, store.ErrVersion, "written by a newer skillroute"},
		{"older", `{"skillroute":"weights","version":1,"data":{}}`, nil, store.ErrVersion, "older than this skillroute's 2"},
		{"legacy without version is version 1", `{"skill":{}}`, nil, store.ErrVersion, "version 1"},
		{"another kind", `{"skillroute":"session","version":2,"data":{}}`, nil, store.ErrDamaged, `a "session" file, not a weights file`},
		{"torn", `{"skillroute":"weights","version":2,"da`, nil, store.ErrDamaged, "damaged weights file"},
		{"header without data", `{"skillroute":"weights","version":2}`, nil, store.ErrDamaged, "no version or data"},
		{"data of the wrong shape", `{"skillroute":"weights","version":2,"data":{"skill":[1]}}`, nil, store.ErrDamaged, "damaged weights file"},
		{"not an object", `[1,2]`, nil, store.ErrDamaged, "damaged"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".json")
			require.NoError(t, os.WriteFile(p, []byte(tt.content), 0o600))
			var got payload
			err := c.Read(p, &got)
			if tt.want != nil {
				require.NoError(t, err)
				assert.Equal(t, *tt.want, got)
				return
			}
			require.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.says)
			assert.Contains(t, err.Error(), p, "the error names the file")
		})
	}

	// The compact form for the hook's files, the indented one for people.
	compact, err := store.Codec{Kind: "session", Version: 1}.Marshal(map[string]int{"a": 1})
	require.NoError(t, err)
	assert.Equal(t, `{"skillroute":"session","version":1,"data":{"a":1}}`, string(compact))
	indented, err := store.Codec{Kind: "weights", Version: 1, Indent: true}.Marshal(map[string]int{"a": 1})
	require.NoError(t, err)
	assert.True(t, bytes.HasSuffix(indented, []byte("}\n")) && bytes.Contains(indented, []byte("\n  \"data\"")), string(indented))
}

func TestSeries(t *testing.T) {
	dir := t.TempDir()
	s := store.Series{Dir: dir, Prefix: "weights-", Suffix: ".json"}
	list, err := s.List()
	require.NoError(t, err)
	assert.Empty(t, list)
	for _, n := range []string{"weights-10.json", "weights-9.json", "weights-20260101T000000.000000000Z.json",
		"weights-20250101T000000.000000000Z.json", "weights-2.json", "other-1.json", "weights-.json", "weights-unreadable-1.bak"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o600))
	}
	list, err = s.List()
	require.NoError(t, err)
	var names []string
	for _, p := range list {
		names = append(names, filepath.Base(p))
	}
	assert.Equal(t, []string{"weights-20250101T000000.000000000Z.json", "weights-20260101T000000.000000000Z.json",
		"weights-2.json", "weights-9.json", "weights-10.json"}, names, "older naming first, then by number, not by name")
	next, err := s.Next()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "weights-11.json"), next)
	require.NoError(t, s.Prune(2))
	list, _ = s.List()
	assert.Equal(t, []string{filepath.Join(dir, "weights-9.json"), filepath.Join(dir, "weights-10.json")}, list)
	require.NoError(t, s.Prune(0), "0 keeps all")
	list, _ = s.List()
	assert.Len(t, list, 2)
}

// Settings backups are numbered and at most keep of them stay; older
// time-named backups count as older.
func TestBackup(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	legacy := path + ".skillroute-backup-20260101T000000.000000000"
	require.NoError(t, os.WriteFile(legacy, []byte("legacy"), 0o600))
	for i := 1; i <= 7; i++ {
		name, err := store.Backup(path, "skillroute-backup", []byte(fmt.Sprint("v", i)), 3)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("%s.skillroute-backup-%d", path, i), name)
		assert.Equal(t, fs.FileMode(0o600), mode(t, name))
	}
	backups, _ := filepath.Glob(path + ".skillroute-backup-*")
	assert.ElementsMatch(t, []string{path + ".skillroute-backup-5", path + ".skillroute-backup-6", path + ".skillroute-backup-7"}, backups)
	data, _ := os.ReadFile(path + ".skillroute-backup-7")
	assert.Equal(t, "v7", string(data))
}

func TestCacheRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "x.bin")
	payload := []byte("payload of the cache, any bytes \x00\x01\x02")
	require.NoError(t, store.WriteCache(path, "index", 6, payload))
	assert.Equal(t, fs.FileMode(0o600), mode(t, path))
	for range 2 { // verified, then remembered
		got, err := store.LoadCache(path, "index", 6)
		require.NoError(t, err)
		assert.Equal(t, payload, got)
	}
	_, err := os.Stat(filepath.Join(filepath.Dir(path), ".x.bin.verified"))
	assert.NoError(t, err, "the verification is remembered")

	_, err = store.LoadCache(path, "index", 7)
	assert.ErrorIs(t, err, store.ErrVersion)
	_, err = store.LoadCache(path, "rules", 6)
	assert.ErrorIs(t, err, store.ErrDamaged)
	assert.ErrorContains(t, err, `a "index" cache, not "rules"`)
	_, err = store.LoadCache(filepath.Join(t.TempDir(), "missing.bin"), "index", 6)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.Error(t, store.WriteCache(path, "much-too-long", 1, nil), "a kind fits in 8 bytes")

	empty := filepath.Join(t.TempDir(), "empty.bin")
	require.NoError(t, store.WriteCache(empty, "rules", 1, nil))
	got, err := store.LoadCache(empty, "rules", 1)
	require.NoError(t, err)
	assert.Empty(t, got)
}

// TestCacheHead protects reading a cache file's head alone (an index's
// stamp): the payload's first bytes, the frame's kind, version and
// length checked as LoadCache checks them, the checksum not.
func TestCacheHead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "x.bin")
	payload := []byte("head of the payload, then the rest of it")
	require.NoError(t, store.WriteCache(path, "index", 6, payload))
	for _, n := range []int{0, 4, len(payload), len(payload) + 100} {
		got, err := store.CacheHead(path, "index", 6, n)
		require.NoError(t, err)
		assert.Equal(t, payload[:min(n, len(payload))], got, "%d bytes", n)
	}
	_, err := store.CacheHead(path, "index", 7, 4)
	assert.ErrorIs(t, err, store.ErrVersion)
	_, err = store.CacheHead(path, "rules", 6, 4)
	assert.ErrorIs(t, err, store.ErrDamaged)
	_, err = store.CacheHead(filepath.Join(t.TempDir(), "missing.bin"), "index", 6, 4)
	assert.ErrorIs(t, err, fs.ErrNotExist)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data[:len(data)-1], 0o600))
	_, err = store.CacheHead(path, "index", 6, 4)
	assert.ErrorIs(t, err, store.ErrDamaged, "a truncated file")
	require.NoError(t, os.WriteFile(path, data[:10], 0o600))
	_, err = store.CacheHead(path, "index", 6, 4)
	assert.ErrorIs(t, err, store.ErrDamaged, "no whole frame")

	data[len(data)-1] ^= 0xff
	require.NoError(t, os.WriteFile(path, data, 0o600))
	got, err := store.CacheHead(path, "index", 6, 4)
	require.NoError(t, err, "the checksum is not read")
	assert.Equal(t, payload[:4], got)
}

// TestCacheStream protects streamed caches (the index, the cut cache): a
// payload written in pieces makes the file WriteCache makes of it whole,
// byte for byte, with or without the fsyncs; a fill that writes another
// length than it announced, or fails, leaves the old file in place.
func TestCacheStream(t *testing.T) {
	dir := t.TempDir()
	payload := bytes.Repeat([]byte("streamed payload \x00\xff "), 5000)
	whole := filepath.Join(dir, "whole.bin")
	require.NoError(t, store.WriteCache(whole, "index", 9, payload))
	want, err := os.ReadFile(whole)
	require.NoError(t, err)
	fill := func(data []byte) func(io.Writer) error {
		return func(w io.Writer) error {
			for len(data) > 0 {
				n := min(len(data), 777)
				if _, err := w.Write(data[:n]); err != nil {
					return err
				}
				data = data[n:]
			}
			return nil
		}
	}
	for _, sync := range []bool{true, false} {
		path := filepath.Join(dir, fmt.Sprintf("stream-%v.bin", sync))
		require.NoError(t, store.WriteCacheStream(path, "index", 9, int64(len(payload)), sync, fill(payload)))
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, want, got, "sync %v", sync)
		loaded, err := store.LoadCache(path, "index", 9)
		require.NoError(t, err)
		assert.Equal(t, payload, loaded)

		assert.Error(t, store.WriteCacheStream(path, "index", 9, int64(len(payload))+1, sync, fill(payload)), "one byte short")
		assert.Error(t, store.WriteCacheStream(path, "index", 9, int64(len(payload)), sync, func(io.Writer) error { return errors.New("disk full") }))
		got, err = os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, want, got, "sync %v: a failed write keeps the old file", sync)
	}
}

// TestCacheStreamKeepsMappedReader: a reader that mapped the file a
// streamed write replaces (a hook routing with the old index while a
// compile writes the new one, whose write first drops the old file's
// page cache) still reads the old payload, whole, during the write and
// after it.
func TestCacheStreamKeepsMappedReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.bin")
	old := bytes.Repeat([]byte("the old index "), 50000)
	require.NoError(t, store.WriteCacheNoSync(path, "index", 9, old))
	mapped, evict, err := store.MapCache(path, "index", 9)
	require.NoError(t, err)
	defer evict()
	next := bytes.Repeat([]byte("the new index "), 60000)
	require.NoError(t, store.WriteCacheStream(path, "index", 9, int64(len(next)), false, func(w io.Writer) error {
		assert.Equal(t, old, mapped, "during the write")
		_, err := w.Write(next)
		return err
	}))
	assert.Equal(t, old, mapped, "after the write")
	loaded, err := store.LoadCache(path, "index", 9)
	require.NoError(t, err)
	assert.Equal(t, next, loaded)
}

// TestMapCacheEvict protects the strings a compile keeps from a mapped
// cache: after evict, the payload still reads as written.
func TestMapCacheEvict(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.bin")
	payload := bytes.Repeat([]byte("words\x00of a skill "), 100000)
	require.NoError(t, store.WriteCache(path, "cuts", 1, payload))
	got, evict, err := store.MapCache(path, "cuts", 1)
	require.NoError(t, err)
	kept := unsafe.String(unsafe.SliceData(got[64:]), 1000)
	evict()
	evict()
	assert.Equal(t, payload, got)
	assert.Equal(t, string(payload[64:1064]), kept)
	_, _, err = store.MapCache(path, "index", 1)
	assert.ErrorIs(t, err, store.ErrDamaged)
}

// Every single-byte corruption and every truncation of a cache file is
// detected (2,000 random corruptions), whichever byte it hits: header,
// checksum or payload.
func TestCacheDetectsDamage(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(8, 12))
	payload := make([]byte, 3000)
	for i := range payload {
		payload[i] = byte(rng.IntN(256))
	}
	good := filepath.Join(dir, "good.bin")
	require.NoError(t, store.WriteCache(good, "rules", 3, payload))
	raw, err := os.ReadFile(good)
	require.NoError(t, err)
	require.Len(t, raw, store.HeaderSize+len(payload))

	check := func(name, path string) {
		_, err := store.LoadCache(path, "rules", 3)
		if assert.Error(t, err, name) {
			assert.True(t, errors.Is(err, store.ErrDamaged) || errors.Is(err, store.ErrVersion), "%s: %v", name, err)
			assert.Contains(t, err.Error(), path)
		}
	}
	require.NoError(t, damage.Files(dir, raw, rng, 2000, 8, check))
	extended := filepath.Join(dir, "extended.bin")
	require.NoError(t, os.WriteFile(extended, append(bytes.Clone(raw), 0), 0o600))
	check("extended.bin", extended)
}

// PruneCaches keeps the newest caches of a pattern and removes the rest
// with their sidecars, leaving other files alone.
func TestPruneCaches(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i := range 5 {
		path := filepath.Join(dir, fmt.Sprintf("index-%d.bin", i))
		require.NoError(t, store.WriteCache(path, "index", 1, []byte("payload")))
		_, err := store.LoadCache(path, "index", 1) // writes the sidecar
		require.NoError(t, err)
		require.NoError(t, os.Chtimes(path, now, now.Add(time.Duration(i)*time.Minute)))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rules-0.bin"), []byte("x"), 0o600))
	store.PruneCaches(dir, "index-*.bin", 2)
	var names []string
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, gone := range []string{"index-0.bin", "index-1.bin", "index-2.bin", ".index-0.bin.verified"} {
		assert.NotContains(t, names, gone)
	}
	assert.Contains(t, names, "index-3.bin")
	assert.Contains(t, names, "index-4.bin")
	assert.Contains(t, names, ".index-4.bin.verified", "a kept cache keeps its sidecar")
	assert.Contains(t, names, "rules-0.bin")
}

// TestWriteJSONAsWrite: a value its caller encoded is written as Write
// writes the value, header and all, compact or indented, and reads back.
func TestWriteJSONAsWrite(t *testing.T) {
	dir := t.TempDir()
	v := map[string]any{"id": "s<1>", "n": 1.5, "list": []string{"a", "\u2028"}}
	data, err := json.Marshal(v)
	require.NoError(t, err)
	for _, c := range []store.Codec{{Kind: "session", Version: 1, NoSync: true}, {Kind: `we"ights`, Version: 12, Indent: true}} {
		viaWrite, viaJSON := filepath.Join(dir, "write.json"), filepath.Join(dir, "json.json")
		require.NoError(t, c.Write(viaWrite, v))
		require.NoError(t, c.WriteJSON(viaJSON, data))
		want, _ := os.ReadFile(viaWrite)
		got, _ := os.ReadFile(viaJSON)
		assert.Equal(t, string(want), string(got))
		var back map[string]any
		require.NoError(t, c.Read(viaJSON, &back))
		assert.Equal(t, "s<1>", back["id"])
	}
}
