package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// write writes v as the hook does, under the file's lock.
func write(t *testing.T, c Codec, path string, v any) {
	t.Helper()
	require.NoError(t, Lock(context.Background(), path, func() error { return c.Write(path, v) }))
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	return fi.Sys().(*syscall.Stat_t).Ino
}

// A file the hook rewrites on every prompt (Codec.NoSync) is replaced
// through its spare: after the first replacement no new file is made,
// the two files trade places, and each read gives what was written last.
func TestSpareReused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	c := Codec{Kind: "session", Version: 1, NoSync: true, KeepTemps: true}
	seen := map[uint64]bool{}
	for n := range 6 {
		v := map[string]string{"n": strings.Repeat("x", 7*n%5)}
		write(t, c, path, v)
		var got map[string]string
		require.NoError(t, c.Read(path, &got))
		assert.Equal(t, v, got)
		if n > 0 { // the first write made the file, the second its spare
			seen[inode(t, path)] = true
		}
	}
	assert.Len(t, seen, 2, "the file and its spare, reused")

	// Without the lock, writers may be more than one: a new file each
	// time, as before.
	before := inode(t, path)
	require.NoError(t, c.Write(path, 1))
	assert.False(t, seen[inode(t, path)], "not the spare (inode %d before)", before)
}

// A reader holds the file it reads (readFile's shared lock): a writer
// does not fill it as a spare under it, however many replacements come,
// and the reader's bytes stay those of the file it opened.
func TestSpareHeldByReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	c := Codec{Kind: "session", Version: 1, NoSync: true, KeepTemps: true}
	for n := range 2 {
		write(t, c, path, n)
	}
	held, err := os.Open(path)
	require.NoError(t, err)
	defer held.Close()
	shareLock(held)
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	for n := 2; n < 6; n++ {
		write(t, c, path, n)
	}
	got := make([]byte, 100)
	k, _ := held.ReadAt(got, 0)
	assert.Equal(t, string(want), string(got[:k]), "the file read did not change under its reader")
	var now int
	require.NoError(t, c.Read(path, &now))
	assert.Equal(t, 5, now)
}

// A writer killed while filling the spare (here: its fill fails half
// way) leaves the file as it was, decodable; the next replacement cuts
// the spare to what it writes, so a longer content before leaves no tail.
func TestSpareKilledWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	c := Codec{Kind: "session", Version: 1, NoSync: true, KeepTemps: true}
	long := map[string]string{"s": strings.Repeat("long", 50)}
	for range 3 {
		write(t, c, path, long)
	}
	p := Private
	p.KeepTemps, p.spare = true, true
	err := replace(path, p, false, func(f *os.File) error {
		_, err := f.Write([]byte(`{"skillroute":"session","vers`))
		return errors.Join(err, errors.New("killed"))
	})
	require.Error(t, err)
	var got map[string]string
	require.NoError(t, c.Read(path, &got), "the file is whole")
	assert.Equal(t, long, got)
	write(t, c, path, map[string]string{"s": "short"})
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `{"skillroute":"session","version":1,"data":{"s":"short"}}`, string(data))
}

// Readers that take no lock on the session (the hook reads it before
// routing) read a whole file, the old or the new, while writers replace
// it through its spare, contents of every length among them.
func TestSpareConcurrentReaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	c := Codec{Kind: "session", Version: 1, NoSync: true, KeepTemps: true}
	value := func(n int) map[string]string {
		return map[string]string{"n": fmt.Sprint(n), "pad": strings.Repeat("p", n*37%300)}
	}
	require.NoError(t, c.Write(path, value(0)))
	const writes = 300
	var wg sync.WaitGroup
	done := make(chan struct{})
	errs := make(chan error, 8)
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				var got map[string]string
				if err := c.Read(path, &got); err != nil {
					errs <- err
					return
				}
				var n int
				fmt.Sscan(got["n"], &n)
				if got["pad"] != value(n)["pad"] {
					errs <- fmt.Errorf("torn read: %v", got)
					return
				}
			}
		})
	}
	for n := 1; n <= writes; n++ {
		require.NoError(t, Lock(context.Background(), path, func() error { return c.Write(path, value(n)) }))
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
