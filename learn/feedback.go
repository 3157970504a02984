package learn

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillroute/skillroute/state"
	"github.com/skillroute/skillroute/tokenize"
)

// Kinds of feedback.
const (
	// KindExplicit is a correction the user stated (a command, a slash
	// command): full weight.
	KindExplicit = "explicit"
	// KindImplicit is inferred from what the session did next (it used a
	// different skill, or the routed one): ImplicitFactor of the weight.
	KindImplicit = "implicit"
)

// Record is one line of the feedback log: a routed prompt and the skill
// that turned out to be right. A correction has Corrected != Routed; a
// confirmation (the session used the routed skill) is Kind "implicit" with
// Corrected == Routed. An empty Routed means the router abstained; an empty
// Corrected means no skill should have been injected.
type Record struct {
	TS         time.Time `json:"ts"`
	Session    string    `json:"session"`
	Decision   string    `json:"decision"` // id of the logged decision the feedback is about
	Query      string    `json:"query"`
	Routed     string    `json:"routed"`
	Corrected  string    `json:"corrected"`
	Kind       string    `json:"kind"` // KindExplicit or KindImplicit
	Confidence float64   `json:"confidence"`
	Cost       int       `json:"cost,omitempty"` // tokens injected, for calibration
}

// IsCorrection reports whether the record says the routed skill was wrong.
func (r Record) IsCorrection() bool { return r.Corrected != r.Routed }

// validate rejects what Learn could not use: an unknown kind or no time.
func (r Record) validate() error {
	if r.Kind != KindExplicit && r.Kind != KindImplicit {
		return fmt.Errorf("kind %q is neither %q nor %q", r.Kind, KindExplicit, KindImplicit)
	}
	if r.TS.IsZero() {
		return errors.New("no timestamp")
	}
	return nil
}

// Log file names inside Log.Dir.
const (
	// LogFile is the log being appended to.
	LogFile = "feedback.jsonl"
	// rotatedPrefix and rotatedSuffix frame a rotated log's name,
	// feedback-<UTC time>.jsonl.
	rotatedPrefix = "feedback-"
	rotatedSuffix = ".jsonl"
)

// MaxLogBytes is the size past which the log is rotated on the next
// Append. A record is a few hundred bytes, so 4 MiB holds some ten
// thousand: months of feedback, and still read in milliseconds.
const MaxLogBytes = 4 << 20

// rotatedTime is the timestamp layout of rotated files: fixed width, UTC,
// nanoseconds, so that name order is time order.
const rotatedTime = "20060102T150405.000000000Z"

// readLockWait bounds how long Read waits for appenders to let go of the
// log: appends take microseconds, so a longer wait means a stuck process.
const readLockWait = 10 * time.Second

// Log is the feedback log in Dir: Dir/feedback.jsonl and its rotated
// predecessors Dir/feedback-<UTC time>.jsonl.
type Log struct {
	Dir string
	// MaxBytes overrides MaxLogBytes when positive (for tests, or a
	// caller that wants smaller files).
	MaxBytes int64
}

// Path returns the file being appended to.
func (l *Log) Path() string { return filepath.Join(l.Dir, LogFile) }

func (l *Log) maxBytes() int64 {
	if l.MaxBytes > 0 {
		return l.MaxBytes
	}
	return MaxLogBytes
}

// Append writes r as one line. A zero TS is set to now; the query is cut
// to tokenize.MaxInput characters, all that routing ever reads. The line
// goes out in one write under the log's lock (state.AppendLine), so
// concurrent processes never interleave. If the log has outgrown its
// limit it is rotated first.
func (l *Log) Append(ctx context.Context, r Record) error {
	if r.TS.IsZero() {
		r.TS = time.Now()
	}
	r.TS = r.TS.UTC()
	r.Query = tokenize.Cap(r.Query)
	if err := r.validate(); err != nil {
		return fmt.Errorf("feedback: %w", err)
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("feedback: %w", err)
	}
	path := l.Path()
	// A cheap unlocked look first: rotation is rare, and the lock is
	// taken (and the size checked again) only when it seems due.
	if info, err := os.Stat(path); err == nil && info.Size() >= l.maxBytes() {
		if err := state.Locked(ctx, path, l.rotate); err != nil {
			return fmt.Errorf("feedback: rotate: %w", err)
		}
	}
	return state.AppendLine(ctx, path, line)
}

// rotate renames an oversized log to feedback-<UTC time>.jsonl; the caller
// holds the log's lock, so no append is in flight and no other process
// rotates the same file.
func (l *Log) rotate() error {
	path := l.Path()
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Size() < l.maxBytes() {
		return nil // another process rotated it meanwhile
	}
	// Two rotations in the same nanosecond (or a clock that stands
	// still) must not overwrite each other: step past taken names.
	for t := time.Now().UTC(); ; t = t.Add(time.Nanosecond) {
		dst := filepath.Join(l.Dir, rotatedPrefix+t.Format(rotatedTime)+rotatedSuffix)
		if _, err := os.Lstat(dst); errors.Is(err, fs.ErrNotExist) {
			return os.Rename(path, dst)
		}
	}
}

// Files returns the log's files in reading order: rotated ones oldest
// first, then the current one (if it exists).
func (l *Log) Files() ([]string, error) {
	entries, err := os.ReadDir(l.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rotated []string
	current := false
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir():
		case name == LogFile:
			current = true
		case strings.HasPrefix(name, rotatedPrefix) && strings.HasSuffix(name, rotatedSuffix):
			rotated = append(rotated, name)
		}
	}
	sort.Strings(rotated) // fixed-width UTC stamps: name order is time order
	out := make([]string, 0, len(rotated)+1)
	for _, name := range rotated {
		out = append(out, filepath.Join(l.Dir, name))
	}
	if current {
		out = append(out, l.Path())
	}
	return out, nil
}

// snapshotFile is one log file opened for reading, with the size it had
// when opened: lines appended later belong to the next read.
type snapshotFile struct {
	name string
	f    *os.File
	size int64
}

// Read returns every record of the log, rotated files oldest first, then
// the current file. A line that does not parse or is not a valid record is
// skipped and reported in warnings as "FILE:LINE: reason"; err is kept for
// failures to read at all. A missing folder is an empty log.
//
// The files are listed and opened under the log's lock and read up to the
// size they had then, so a concurrent rotation or append never makes Read
// miss a file or see half a line.
func (l *Log) Read() (records []Record, warnings []error, err error) {
	if _, err := os.Stat(l.Dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	var files []snapshotFile
	defer func() {
		for _, sf := range files {
			sf.f.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), readLockWait)
	defer cancel()
	err = state.Locked(ctx, l.Path(), func() error {
		names, err := l.Files()
		if err != nil {
			return err
		}
		for _, name := range names {
			f, err := os.Open(name)
			if err != nil {
				return err
			}
			info, err := f.Stat()
			if err != nil {
				f.Close()
				return err
			}
			files = append(files, snapshotFile{name, f, info.Size()})
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("feedback: %w", err)
	}
	for _, sf := range files {
		recs, warns, err := readFile(sf.name, io.LimitReader(sf.f, sf.size))
		records = append(records, recs...)
		warnings = append(warnings, warns...)
		if err != nil {
			return records, warnings, fmt.Errorf("feedback: %s: %w", sf.name, err)
		}
	}
	return records, warnings, nil
}

// readFile parses one log file; name is used in warnings.
func readFile(name string, r io.Reader) (records []Record, warnings []error, err error) {
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if rec, perr := parseLine(line, err == io.EOF); perr != nil {
				warnings = append(warnings, fmt.Errorf("%s:%d: %w", name, n, perr))
			} else {
				records = append(records, rec)
			}
		}
		if err == io.EOF {
			return records, warnings, nil
		}
		if err != nil {
			return records, warnings, err
		}
	}
}

// parseLine decodes one record; last says the line had no newline (a
// write that never finished, when it does not parse).
func parseLine(line []byte, last bool) (Record, error) {
	var rec Record
	if err := json.Unmarshal(line, &rec); err != nil {
		if last {
			return rec, fmt.Errorf("torn line skipped: %w", err)
		}
		return rec, fmt.Errorf("corrupt line skipped: %w", err)
	}
	if err := rec.validate(); err != nil {
		return rec, fmt.Errorf("not a feedback record, skipped: %w", err)
	}
	return rec, nil
}
