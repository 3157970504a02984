package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// doctor tells a plugin build that is running from one that was killed,
// one that is stuck and one that failed, the last two as failed checks,
// so that a plugin silent for want of its router never goes unexplained.
func TestDoctorPluginBuild(t *testing.T) {
	dead := exec.Command("/bin/sh", "-c", "exit 0")
	require.NoError(t, dead.Run())
	old := time.Now().Add(-11 * time.Minute)
	cases := []struct {
		name   string
		lock   bool
		pid    int
		age    time.Time
		failed string // build.log content, with the failure mark
		fails  bool
		want   string
	}{
		{name: "running", lock: true, pid: os.Getpid(), age: time.Now(), want: "its router is being built (pid"},
		{name: "killed", lock: true, pid: dead.Process.Pid, age: time.Now(), want: fmt.Sprintf("its last build (pid %d) ended without finishing", dead.Process.Pid)},
		{name: "stuck", lock: true, pid: os.Getpid(), age: old, fails: true, want: "FAIL plugin"},
		{name: "failed", failed: "go: downloading github.com/go-ego/gse\nverifying module: checksum mismatch\n", fails: true,
			want: "building its router failed: see"},
		{name: "not built yet", want: "it builds its router with Go on its first event"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := isolate(t)
			a.places.PluginRoot = t.TempDir() // running as the plugin: no hook entries needed
			data := filepath.Join(a.places.Home, ".claude", "plugins", "data", "skillroute-local")
			require.NoError(t, os.MkdirAll(data, 0o700))
			if c.lock {
				lock := filepath.Join(data, "bin.lock")
				require.NoError(t, os.Mkdir(lock, 0o700))
				require.NoError(t, os.WriteFile(filepath.Join(lock, "pid"), []byte(fmt.Sprint(c.pid)), 0o600))
				require.NoError(t, os.Chtimes(lock, c.age, c.age))
			}
			if c.failed != "" {
				require.NoError(t, os.WriteFile(filepath.Join(data, "build.log"), []byte(c.failed), 0o600))
				require.NoError(t, os.WriteFile(filepath.Join(data, "build.failed"), []byte(a.places.PluginRoot), 0o600))
			}
			code, out, _ := runApp(t, a, "doctor")
			assert.Contains(t, out, c.want)
			if c.fails {
				assert.Equal(t, 1, code, out)
				assert.Contains(t, out, "FAIL plugin")
			} else {
				assert.Contains(t, out, "     plugin", "a note, not a failed check")
				assert.NotContains(t, out, "FAIL plugin")
			}
			if c.name == "stuck" {
				assert.Contains(t, out, "past the 10m0s a build may take")
			}
			if c.name == "failed" {
				assert.Contains(t, out, "(verifying module: checksum mismatch)", "the log's last line says why")
			}
		})
	}
}
