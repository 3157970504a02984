// Package feedback keeps the log of what users corrected and confirmed:
// every correction ("that should have been performance-expert") and every
// confirmation (the session went on to use the routed skill) is one JSON
// line in feedback.jsonl, the record the learner (package learn) and the
// calibration tables (package calibrate) are computed from.
//
// The log is a store.Log: each Append is one write under the log's lock,
// so any number of hook processes may append at once without tearing each
// other's lines, and each starts on a fresh line even after a torn one.
// Past MaxLogBytes the file is rotated, under the same lock, to
// feedback-N.jsonl (N counting up); every rotated file is kept, and Read
// merges them all in order (files rotated by older versions,
// feedback-<UTC time>.jsonl, first). A line that does not parse (a crash in
// the middle of a write, a hand edit) is skipped with a warning naming its
// file and line: one bad line never costs the rest of the history.
package feedback

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/skillroute/skillroute/store"
	"github.com/skillroute/skillroute/tokenize"
)

// Kinds of feedback.
const (
	// KindExplicit is a correction the user stated (a command, a slash
	// command): full weight.
	KindExplicit = "explicit"
	// KindImplicit is inferred from what the session did next (it used a
	// different skill, or the routed one): the learner weighs it less.
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

// Validate rejects what the learner could not use: an unknown kind or no
// time.
func (r Record) Validate() error {
	if r.Kind != KindExplicit && r.Kind != KindImplicit {
		return fmt.Errorf("kind %q is neither %q nor %q", r.Kind, KindExplicit, KindImplicit)
	}
	if r.TS.IsZero() {
		return errors.New("no timestamp")
	}
	return nil
}

// LogFile is the log being appended to, inside Log.Dir; rotated files
// are feedback-N.jsonl beside it.
const LogFile = "feedback.jsonl"

// MaxLogBytes is the size past which the log is rotated on the next
// Append. A record is a few hundred bytes, so 4 MiB holds some ten
// thousand: months of feedback, and still read in milliseconds.
const MaxLogBytes = 4 << 20

// readLockWait bounds how long Read waits for appenders to let go of the
// log: appends take microseconds, so a longer wait means a stuck process.
const readLockWait = 10 * time.Second

// Log is the feedback log in Dir: Dir/feedback.jsonl and its rotated
// predecessors Dir/feedback-N.jsonl.
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

// store returns the log's file handling: rotated past maxBytes, every
// rotated file kept, each append synced (a correction reported recorded
// must survive a crash).
func (l *Log) store() *store.Log {
	// Files rotated by older versions, feedback-<UTC time>.jsonl, are
	// members of the same series whose "number" is not one: read first,
	// in name (time) order.
	return &store.Log{Path: l.Path(), MaxBytes: l.maxBytes(), Sync: true}
}

// Append writes r as one line. A zero TS is set to now; the query is cut
// to tokenize.MaxInput characters, all that routing ever reads. The line
// goes out in one write under the log's lock, after rotating the log if
// it has outgrown its limit, so concurrent processes never interleave or
// lose a line.
func (l *Log) Append(ctx context.Context, r Record) error {
	if r.TS.IsZero() {
		r.TS = time.Now()
	}
	r.TS = r.TS.UTC()
	r.Query = tokenize.Cap(r.Query)
	if err := r.Validate(); err != nil {
		return fmt.Errorf("feedback: %w", err)
	}
	line, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("feedback: %w", err)
	}
	return l.store().Append(ctx, line)
}

// Files returns the log's files in reading order: rotated ones oldest
// first, then the current one (if it exists).
func (l *Log) Files() ([]string, error) { return l.store().Files() }

// Read returns every record of the log, rotated files oldest first, then
// the current file. A line that does not parse or is not a valid record is
// skipped and reported in warnings as "FILE:LINE: reason"; err is kept for
// failures to read at all. A missing folder is an empty log. Files are
// read as they were when Read began (store.Log.Read), so a concurrent
// rotation or append never makes Read miss a file or see half a line.
func (l *Log) Read() (records []Record, warnings []error, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), readLockWait)
	defer cancel()
	err = l.store().Read(ctx, func(name string, r io.Reader) error {
		recs, warns, err := readFile(name, r)
		records = append(records, recs...)
		warnings = append(warnings, warns...)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
	if err != nil {
		return records, warnings, fmt.Errorf("feedback: %w", err)
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
	if err := rec.Validate(); err != nil {
		return rec, fmt.Errorf("not a feedback record, skipped: %w", err)
	}
	return rec, nil
}
