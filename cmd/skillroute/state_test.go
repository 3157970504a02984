package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runSafe runs the command in-process, turning a panic (exit 2 as a
// process) into a test failure that names the command.
func runSafe(t *testing.T, a *app, args ...string) (code int, stdout string) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("%v panicked: %v\n%s", args, p, debug.Stack())
		}
	}()
	var out, errb bytes.Buffer
	code = run(a, args, &out, &errb)
	return code, out.String()
}

// A truncated or damaged index or rules cache never panics a command, and
// never changes what it answers: every command that opens the router
// rebuilds the cache instead (before, a cache cut to 25 bytes made route,
// doctor, correct, learn and calibrate exit 2).
func TestDamagedCachesAreRebuilt(t *testing.T) {
	a := isolate(t)
	home := a.places.Home
	cache := a.cacheDir()
	code, out := runSafe(t, a, "skills", "install", "--dir", filepath.Join(home, ".claude", "skills"))
	require.Equal(t, 0, code, out)

	commands := [][]string{
		{"route", "--json", "--catalog", "builtin", "React 页面加载慢，首屏要 4 秒"},
		{"doctor"},
		{"correct", "performance-expert", "--query", "React 页面加载慢"},
		{"learn", "--json", "--dry-run"},
		{"calibrate", "--preset", "balanced", "-o", filepath.Join(home, "table.json")},
	}
	healthy := map[string]int{}
	for _, args := range commands {
		healthy[args[0]], _ = runSafe(t, a, args...)
	}
	caches, err := filepath.Glob(filepath.Join(cache, "*.bin"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(caches), 4, "index and rules caches of two catalogs")

	damages := []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"cut to 25 bytes", func(b []byte) []byte { return b[:25] }},
		{"a payload byte flipped", func(b []byte) []byte { b[len(b)*2/3] ^= 0x5a; return b }},
		{"the checksum flipped", func(b []byte) []byte { b[21] ^= 1; return b }},
	}
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			for _, args := range commands {
				damageAll(t, cache, d.damage)
				code, out := runSafe(t, a, args...)
				assert.Equal(t, healthy[args[0]], code, "%v", args)
				switch args[0] {
				case "route", "learn", "calibrate": // the same answer as with the rebuilt cache
					_, again := runSafe(t, a, args...)
					assert.Equal(t, again, out, "%v", args)
				}
			}
		})
	}
}

// damageAll rewrites every cache file with damage applied, as a new file
// (a damaged disk block or a killed writer of an older version).
func damageAll(t *testing.T, dir string, damage func([]byte) []byte) {
	t.Helper()
	caches, err := filepath.Glob(filepath.Join(dir, "*.bin"))
	require.NoError(t, err)
	for i, c := range caches {
		data, err := os.ReadFile(c)
		require.NoError(t, err)
		tmp := fmt.Sprintf("%s.damaged-%d", c, i)
		require.NoError(t, os.WriteFile(tmp, damage(data), 0o600))
		require.NoError(t, os.Rename(tmp, c))
	}
}

// doctor says when the state folder cannot hold state, and when an older
// version left it readable by other users.
func TestDoctorStateFolder(t *testing.T) {
	a := isolate(t)
	dir := a.stateDir
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	_, out := runSafe(t, a, "doctor")
	assert.Contains(t, out, "ok   state folder")
	assert.Contains(t, out, "readable by other users (mode 0755)")

	require.NoError(t, os.RemoveAll(dir))
	require.NoError(t, os.WriteFile(dir, []byte("not a folder"), 0o600))
	code, out := runSafe(t, a, "doctor")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL state folder")
}

// doctor fails when the index cannot be cached (a full disk, a cache
// folder that is not one): the hook would then compile the catalog on
// every prompt and, past its deadline, stay silent, while doctor, which
// waits for the compile, found routing fine.
func TestDoctorIndexNotCached(t *testing.T) {
	for _, tc := range []struct {
		name   string
		breaks bool
	}{
		{"cache folder", false},
		{"cache a file", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := isolate(t)
			code, _, errOut := runApp(t, a, "skills", "install")
			require.Equal(t, 0, code, errOut)
			require.NoError(t, os.MkdirAll(a.stateDir, 0o700))
			if tc.breaks {
				require.NoError(t, os.RemoveAll(a.cacheDir()))
				require.NoError(t, os.WriteFile(a.cacheDir(), []byte("not a folder"), 0o600))
			}
			_, out, _ := runApp(t, a, "doctor")
			assert.Contains(t, out, "ok   routing", "routing itself works")
			if tc.breaks {
				assert.Contains(t, out, "FAIL index cache")
			} else {
				assert.NotContains(t, out, "index cache")
			}
		})
	}
}
