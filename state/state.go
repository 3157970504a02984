// Package state keeps skillroute's files: where they live, and how they are
// written so that several Claude Code sessions, each running hooks at once,
// never lose or tear each other's data.
//
// Whole files (a session, the workflow statistics) are written to a temp
// file and renamed over the old one, under an advisory lock on a sibling
// ".lock" file, so a reader sees the old version or the new, never half.
// Logs (decisions, feedback) are appended one line per write(2) on a file
// opened O_APPEND, under the same kind of lock. A lock that cannot be had
// before the caller's deadline is an error the caller may shrug off: the
// hook routes without its state rather than make the user wait.
package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// lockRetry is how often a busy lock is retried: short against the hook's
// 200 ms budget, long enough not to spin.
const lockRetry = 2 * time.Millisecond

// ErrBusy reports a lock not acquired before the deadline.
var ErrBusy = errors.New("state: file is locked by another process")

// DirFrom returns skillroute's state folder for an environment (getenv)
// and home folder: $CLAUDE_PLUGIN_DATA when running as a plugin, else
// $SKILLROUTE_HOME, else HOME/.claude/skillroute. The command resolves it
// once; nothing below reads the environment.
func DirFrom(getenv func(string) string, home string) string {
	for _, env := range []string{"CLAUDE_PLUGIN_DATA", "SKILLROUTE_HOME"} {
		if v := getenv(env); v != "" {
			return v
		}
	}
	if home == "" {
		return filepath.Join(os.TempDir(), "skillroute")
	}
	return filepath.Join(home, ".claude", "skillroute")
}

// Locked runs fn while holding the lock of path.
func Locked(ctx context.Context, path string, fn func() error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	lk := flock.New(path + ".lock")
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

// WriteAtomic replaces path's content with data via a temp file and rename.
// Callers that read-modify-write hold the lock (Locked) around both steps.
func WriteAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// AppendLine appends one line (a newline is added) to path under its lock,
// in a single write, so concurrent appenders never interleave.
func AppendLine(ctx context.Context, path string, line []byte) error {
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	return Locked(ctx, path, func() error {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(buf); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}
