package state_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillroute/skillroute/state"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDir(t *testing.T) {
	env := map[string]string{"CLAUDE_PLUGIN_DATA": "/plugin/data", "SKILLROUTE_HOME": "/home/sr"}
	getenv := func(k string) string { return env[k] }
	assert.Equal(t, "/plugin/data", state.DirFrom(getenv, "/u"))
	env["CLAUDE_PLUGIN_DATA"] = ""
	assert.Equal(t, "/home/sr", state.DirFrom(getenv, "/u"))
	env["SKILLROUTE_HOME"] = ""
	assert.Equal(t, filepath.Join("/u", ".claude", "skillroute"), state.DirFrom(getenv, "/u"))
}

// Concurrent appenders never lose or interleave a line.
func TestAppendLineConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				line := fmt.Sprintf(`{"writer":%d,"i":%d,"pad":%q}`, w, i, strings.Repeat("x", 300))
				require.NoError(t, state.AppendLine(context.Background(), path, []byte(line)))
			}
		}(w)
	}
	wg.Wait()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	assert.Len(t, lines, 400)
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, `{"writer":`) && strings.HasSuffix(l, `"}`), l)
	}
}

func TestLockedGivesUpAtDeadline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.json")
	held := make(chan struct{})
	release := make(chan struct{})
	go state.Locked(context.Background(), path, func() error {
		close(held)
		<-release
		return nil
	})
	<-held
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := state.Locked(ctx, path, func() error { return nil })
	close(release)
	require.ErrorIs(t, err, state.ErrBusy, "a busy lock is an error the hook can shrug off")
}

func TestWriteAtomicReplaces(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b.json")
	require.NoError(t, state.WriteAtomic(path, []byte("one")))
	require.NoError(t, state.WriteAtomic(path, []byte("two")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "two", string(data))
	entries, _ := os.ReadDir(filepath.Dir(path))
	assert.Len(t, entries, 1, "no temp file left behind")
}
