package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"
)

// lockRetry is how often a busy lock is retried: short against the hook's
// 200 ms budget, long enough not to spin.
const lockRetry = 2 * time.Millisecond

// ErrBusy reports a lock not acquired before the deadline.
var ErrBusy = errors.New("store: file is locked by another process")

// Lock runs fn while holding the advisory lock of path (on the sibling
// file PATH.lock, which is never deleted while in use). It waits for a
// busy lock until ctx is done, and then returns an error wrapping ErrBusy
// without running fn. The folder is created (0700) and checked as a
// private one.
func Lock(ctx context.Context, path string, fn func() error) error {
	if err := ensureDir(filepath.Dir(path), Private); err != nil {
		return err
	}
	unlock, ok, err := lockFile(ctx, path+".lock")
	if err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return fmt.Errorf("%s: %w", path, ErrBusy)
	}
	defer unlock()
	held.Store(path, true)
	defer held.Delete(path)
	return fn()
}

// held holds the paths whose locks this process holds (Lock): a file is
// replaced through its spare only under its lock (Codec.write), which
// makes its writers one at a time.
var held sync.Map

// tryUntil calls try until it takes the lock or fails, every lockRetry,
// and gives up (false, no error) once ctx is done; a ctx done already
// gives up before the first try.
func tryUntil(ctx context.Context, try func() (bool, error)) (bool, error) {
	var timer *time.Timer
	for ctx.Err() == nil {
		if ok, err := try(); ok || err != nil {
			return ok, err
		}
		if timer == nil {
			timer = time.NewTimer(lockRetry)
			defer timer.Stop()
		} else {
			timer.Reset(lockRetry)
		}
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
	}
	return false, nil
}
