package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/skillroute/skillroute/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ReadRegular reads only regular files within the bound, and says which
// kind of refusal it made.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok")
	require.NoError(t, os.WriteFile(ok, []byte("twelve bytes"), 0o600))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zero := filepath.Join(dir, "zero")
	require.NoError(t, os.Symlink("/dev/zero", zero))

	data, err := store.ReadRegular(ok, 12)
	require.NoError(t, err)
	assert.Equal(t, "twelve bytes", string(data))
	_, err = store.ReadRegular(ok, 11)
	assert.ErrorIs(t, err, store.ErrTooLarge)
	for _, path := range []string{fifo, zero, dir} {
		_, err = store.ReadRegular(path, 1<<20)
		assert.ErrorIs(t, err, store.ErrNotRegular, path)
		assert.ErrorContains(t, err, path)
	}
	_, err = store.ReadRegular(filepath.Join(dir, "missing"), 1)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// MapFile gives a file's bytes (an empty one too), and refuses what is
// not a regular file before mapping it.
func TestMapFile(t *testing.T) {
	dir := t.TempDir()
	large := strings.Repeat("a line of a log\n", 4096) // 64 KiB: mapped, not read
	for _, content := range []string{"line one\nline two\n", "", large} {
		path := filepath.Join(dir, "log")
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		data, release, err := store.MapFile(path)
		require.NoError(t, err)
		assert.Equal(t, content, string(data))
		release()
	}
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, path := range []string{fifo, dir} {
		_, _, err := store.MapFile(path)
		assert.ErrorIs(t, err, store.ErrNotRegular, path)
	}
	_, _, err := store.MapFile(filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
