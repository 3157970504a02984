//go:build !unix

package store

import (
	"context"

	"github.com/gofrs/flock"
)

// lockFile takes the exclusive lock of the lock file at path (created
// 0600), waiting as tryUntil does, and returns the function that releases
// it.
func lockFile(ctx context.Context, path string) (unlock func(), ok bool, err error) {
	lk := flock.New(path, flock.SetPermissions(Private.File))
	if ok, err = tryUntil(ctx, lk.TryLock); !ok {
		lk.Close()
		return nil, false, err
	}
	return func() { lk.Unlock() }, true, nil
}
