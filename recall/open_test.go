package recall

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A compiled file is kept while the file, the format and the binary that
// embeds the synonyms and glossary are unchanged, and compiled afresh when
// any of them changes.
func TestFileKeyFollowsItsInputs(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	memPath := filepath.Join(dir, MemoriesFile)
	require.NoError(t, writeMemories(memPath, facts))
	_, _, err := OpenMemories(memPath, cache)
	require.NoError(t, err)
	key, err := fileKey(memPath)
	require.NoError(t, err)
	again, err := fileKey(memPath)
	require.NoError(t, err)
	require.Equal(t, key, again, "the same inputs, the same key")
	assert.True(t, FileCached(memPath, cache))

	stamp := builtinStamp
	t.Cleanup(func() { builtinStamp = stamp })
	builtinStamp = func() string { return stamp() + " rebuilt" }
	rebuilt, err := fileKey(memPath)
	require.NoError(t, err)
	assert.NotEqual(t, key, rebuilt, "a rebuilt binary may embed other synonyms")
	assert.False(t, FileCached(memPath, cache), "so its compiled file is not read")
	builtinStamp = stamp

	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(memPath, later, later))
	touched, err := fileKey(memPath)
	require.NoError(t, err)
	assert.NotEqual(t, key, touched, "an edited file is compiled afresh")
}

// The stamp names the running binary, whose path, size and time change
// with the data it embeds, rather than hashing that data on every prompt.
func TestBuiltinStampNamesTheBinary(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	info, err := os.Stat(exe)
	require.NoError(t, err)
	stamp := builtinStamp()
	assert.Contains(t, stamp, exe)
	assert.Contains(t, stamp, strconv.FormatInt(info.ModTime().UnixNano(), 10))
}

// BenchmarkFileKey is the cost a prompt pays per memories or tools file
// to find its compiled index.
func BenchmarkFileKey(b *testing.B) {
	memPath := filepath.Join(b.TempDir(), MemoriesFile)
	require.NoError(b, writeMemories(memPath, facts))
	for b.Loop() {
		if _, err := fileKey(memPath); err != nil {
			b.Fatal(err)
		}
	}
}
