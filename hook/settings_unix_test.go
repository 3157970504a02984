//go:build unix

package hook_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/hook"
)

// TestSettingsNotARegularFile: a settings file that is a FIFO or a link
// to a device (a project's .claude/settings.json comes with a cloned
// repository) is refused by name, never waited on or read without end:
// install fails and leaves it, Installed finds no hooks in it.
func TestSettingsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zero := filepath.Join(dir, "zero.json")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	for _, path := range []string{fifo, zero} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			events, command := hook.Installed(path)
			assert.Empty(t, events, path)
			assert.Empty(t, command, path)
			_, err := hook.Install(path, "/bin/skillroute", false)
			require.Error(t, err, path)
			assert.Contains(t, err.Error(), path)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still reading after 5 s", path)
		}
	}
	info, err := os.Lstat(zero)
	require.NoError(t, err)
	assert.NotZero(t, info.Mode()&os.ModeSymlink, "the link is left as it was")
}
