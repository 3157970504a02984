package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Series is a numbered set of files in Dir named Prefix N Suffix, N from 1
// up: rotated logs, weight snapshots, settings backups. The numbers, not
// the clock, order them, so that a clock set back never puts a new file
// before an old one. Members whose middle is not a number were named by
// an older version (by time, fixed width): they count as older than every
// numbered member, in name order.
type Series struct {
	Dir, Prefix, Suffix string
}

// member is one file of a series.
type member struct {
	name   string
	n      uint64
	legacy bool
}

// members returns the series' files, oldest first.
func (s Series) members() ([]member, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []member
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || len(name) <= len(s.Prefix)+len(s.Suffix) || !strings.HasPrefix(name, s.Prefix) || !strings.HasSuffix(name, s.Suffix) {
			continue
		}
		mid := name[len(s.Prefix) : len(name)-len(s.Suffix)]
		n, err := strconv.ParseUint(mid, 10, 64)
		out = append(out, member{name: name, n: n, legacy: err != nil || mid[0] == '0' || mid[0] == '+'})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.legacy != b.legacy {
			return a.legacy
		}
		if a.legacy || a.n == b.n {
			return a.name < b.name
		}
		return a.n < b.n
	})
	return out, nil
}

// List returns the paths of the series' files, oldest first.
func (s Series) List() ([]string, error) {
	ms, err := s.members()
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = filepath.Join(s.Dir, m.name)
	}
	return out, err
}

// Next returns the path for a new member: one past the highest number.
// Callers that must not collide create it with O_EXCL, or hold a lock.
func (s Series) Next() (string, error) {
	ms, err := s.members()
	if err != nil {
		return "", err
	}
	var n uint64
	for _, m := range ms {
		if !m.legacy {
			n = max(n, m.n)
		}
	}
	return filepath.Join(s.Dir, s.Prefix+strconv.FormatUint(n+1, 10)+s.Suffix), nil
}

// Prune deletes all but the newest keep members; keep 0 or less keeps
// them all.
func (s Series) Prune(keep int) error {
	if keep <= 0 {
		return nil
	}
	ms, err := s.members()
	if err != nil {
		return err
	}
	var errs []error
	for _, m := range ms[:max(0, len(ms)-keep)] {
		if err := os.Remove(filepath.Join(s.Dir, m.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
