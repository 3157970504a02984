package store

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Log is an append-only file of lines, such as decisions.jsonl, rotated
// past MaxBytes into a numbered Series beside it (NAME-1.EXT, NAME-2.EXT,
// ...). Appends and rotation take the same lock, so that no line is ever
// appended to a file being renamed away, and no two processes rotate at
// once.
type Log struct {
	// Path is the file appended to.
	Path string
	// MaxBytes is the size at which the next append first rotates the
	// file; 0 never rotates.
	MaxBytes int64
	// Keep is how many rotated files are kept, the newest (legacy ones
	// count as the oldest); 0 keeps them all (the feedback log, whose
	// whole history is read back).
	Keep int
	// Sync makes each append durable (fsync) before it returns: for logs
	// whose every line matters (feedback), not for those the hook writes
	// on every prompt.
	Sync bool
	// Legacy is a glob, relative to the log's folder, of rotated files
	// of an older naming: read before the numbered ones, in name order.
	// (Files of the series whose number is not a number, NAME-<time>.EXT,
	// are such files already.)
	Legacy string
}

// Rotated returns the series the log rotates into: "decisions.jsonl"
// rotates to "decisions-N.jsonl".
func (l *Log) Rotated() Series {
	dir, base := filepath.Split(l.Path)
	ext := filepath.Ext(base)
	if ext == base { // ".log": no stem
		ext = ""
	}
	return Series{Dir: filepath.Clean(dir), Prefix: strings.TrimSuffix(base, ext) + "-", Suffix: ext}
}

// Append writes line and a newline to the log in one write, under the
// log's lock, rotating first when the log has reached MaxBytes. If the
// file does not end in a newline (a writer killed mid-line, a full disk),
// a newline goes first, so that the torn line stays a line of its own and
// this one is read whole.
func (l *Log) Append(ctx context.Context, line []byte) error {
	buf := make([]byte, 1, len(line)+2)
	buf[0] = '\n'
	buf = append(append(buf, line...), '\n')
	return Lock(ctx, l.Path, func() error {
		f, size, err := l.open()
		if err != nil {
			return err
		}
		if l.MaxBytes > 0 && size >= l.MaxBytes {
			f.Close()
			if err := l.rotate(); err != nil {
				return err
			}
			if f, size, err = l.open(); err != nil {
				return err
			}
		}
		out := buf[1:]
		if size > 0 {
			var last [1]byte
			if _, err := f.ReadAt(last[:], size-1); err == nil && last[0] != '\n' {
				out = buf
			}
		}
		_, err = f.Write(out)
		if err == nil && l.Sync {
			err = f.Sync()
		}
		return errors.Join(err, f.Close())
	})
}

// open opens the log for appending, creating it 0600, and returns its size.
func (l *Log) open() (*os.File, int64, error) {
	f, err := openFile(l.Path, os.O_RDWR|os.O_APPEND|os.O_CREATE, Private.File)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Size(), nil
}

// rotate renames the log to the next number of its series and deletes the
// rotated files beyond Keep. The caller holds the lock.
func (l *Log) rotate() error {
	s := l.Rotated()
	next, err := s.Next()
	if err != nil {
		return err
	}
	if err := os.Rename(l.Path, next); err != nil {
		return err
	}
	syncDir(s.Dir)
	if l.Keep <= 0 {
		return nil
	}
	old, err := l.rotatedFiles()
	if err != nil {
		return err
	}
	var errs []error
	for _, name := range old[:max(0, len(old)-l.Keep)] {
		if err := os.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// rotatedFiles returns the rotated files, legacy ones first, then the
// numbered ones, oldest first.
func (l *Log) rotatedFiles() ([]string, error) {
	rotated, err := l.Rotated().List()
	if err != nil || l.Legacy == "" {
		return rotated, err
	}
	legacy, err := filepath.Glob(filepath.Join(filepath.Dir(l.Path), l.Legacy))
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(legacy)+len(rotated))
	for _, name := range legacy { // Glob sorts by name
		if !slices.Contains(rotated, name) && name != l.Path {
			out = append(out, name)
		}
	}
	return append(out, rotated...), nil
}

// Files returns the log's files in reading order: legacy rotated files,
// numbered ones oldest first, then the current file (if it exists).
func (l *Log) Files() ([]string, error) {
	out, err := l.rotatedFiles()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(l.Path); err == nil {
		out = append(out, l.Path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return out, nil
}

// Read calls fn for each of the log's files in reading order, with the
// file's content as it was when Read began. The files are listed and
// opened under the log's lock, and each is read only up to the size it
// had then, so that a concurrent append or rotation never makes Read miss
// a file or see half a line; fn runs after the lock is released. A log
// whose folder does not exist has no files.
func (l *Log) Read(ctx context.Context, fn func(name string, r io.Reader) error) error {
	if _, err := os.Stat(filepath.Dir(l.Path)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	type snapshot struct {
		name string
		f    *os.File
		size int64
	}
	var files []snapshot
	defer func() {
		for _, s := range files {
			s.f.Close()
		}
	}()
	err := Lock(ctx, l.Path, func() error {
		names, err := l.Files()
		if err != nil {
			return err
		}
		for _, name := range names {
			f, err := openFile(name, os.O_RDONLY, 0)
			if err != nil {
				return err
			}
			info, err := f.Stat()
			if err != nil {
				f.Close()
				return err
			}
			files = append(files, snapshot{name, f, info.Size()})
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, s := range files {
		if err := fn(s.name, io.LimitReader(s.f, s.size)); err != nil {
			return err
		}
	}
	return nil
}
