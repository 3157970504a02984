package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
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
	lk := flock.New(path+".lock", flock.SetPermissions(Private.File))
	ok, err := lk.TryLockContext(ctx, lockRetry)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return fmt.Errorf("%s: %w", path, ErrBusy)
	}
	defer lk.Unlock()
	return fn()
}
