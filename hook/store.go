package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/store"
)

// SessionTTL is how long an idle session's state is kept: a week covers a
// resumed conversation; older files only slow down the folder.
const SessionTTL = 7 * 24 * time.Hour

// Store is the hook's state folder:
//
//	sessions/ID.json   one session: recent skills, project type, last decision
//	workflow.json      n-gram statistics of skill sequences
//	decisions.jsonl    every routed prompt, one JSON line each
//	hook.log           why the hook stayed silent, when it did
//	memory.bin         the prompt memory (package memory); memory.journal, its verdicts since
//
// Every file goes through package store: the JSON files in its versioned
// header (sessionCodec, workflowCodec), the logs as store.Logs.
type Store struct {
	Dir string
	// HashPrompts keeps only the hash of a prompt, never its text, in the
	// session files and the feedback log: the user's log_prompts: false
	// (package prefs), which the command reads and passes here.
	HashPrompts bool
}

// keep returns what of a prompt's text the files may hold.
func (s *Store) keep(text string) string {
	if s.HashPrompts {
		return ""
	}
	return text
}

// Codecs of the hook's JSON files. Version 1 is the layout these files had
// before they had a header, so older files read as they are. They are
// rewritten on every prompt and skill use, atomically but unsynced
// (store.Codec.NoSync): a power cut costs at most the latest context,
// where an fsync would cost every prompt.
var (
	sessionCodec  = store.Codec{Kind: "session", Version: 1, NoSync: true, KeepTemps: true} // cleaned by Expire
	workflowCodec = store.Codec{Kind: "workflow", Version: 1, NoSync: true}
)

// SessionFile is a session's persisted state.
type SessionFile struct {
	sctx.Session
	Last *LastDecision `json:"last,omitempty"`
}

// LastDecision is the session's most recent routed prompt, kept so that a
// later skill use or an explicit correction can be compared with it.
type LastDecision struct {
	ID         string    `json:"id"`
	Query      string    `json:"query"` // "" when only hashes are kept
	QueryHash  string    `json:"query_hash,omitempty"`
	Skill      string    `json:"skill"`
	Confidence float64   `json:"confidence"`
	Time       time.Time `json:"time"`
	Cost       int       `json:"cost,omitempty"`     // tokens injected
	Answered   bool      `json:"answered,omitempty"` // feedback already recorded for it, or none to take (a closing turn)
	// Terms is the prompt's vector (term hashes, no text), for the prompt
	// memory to remember a verdict on the route.
	Terms memory.Vector `json:"terms,omitempty"`
	// Words holds, when only hashes are kept, the hashes of the prompt's
	// words as sameRequest compares them (tokenize's Words): the text a
	// typed skill's arguments are compared with is not kept.
	Words []uint64 `json:"words,omitempty"`
}

// FeedbackWindow is how long after a routed prompt a skill use counts as
// the user's verdict on that route: the seed's five minutes, long enough
// for the model to pick a skill, short enough not to blame a later task.
const FeedbackWindow = 5 * time.Minute

// safeID reports whether an id is made of [A-Za-z0-9_.-] alone, and may
// name a file as it is.
func safeID(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// sessionPath maps a session id to its file; ids are not trusted as paths.
func (s *Store) sessionPath(id string) string {
	if id == "" {
		id = "default"
	}
	safe := id
	if !safeID(id) || len(id) > 100 || strings.HasPrefix(id, ".") {
		safe = "h-" + hash(id)
	}
	return filepath.Join(s.Dir, "sessions", safe+".json")
}

// Session reads a session's state; a missing file is an empty session.
func (s *Store) Session(id string) (*sctx.Session, error) {
	f, err := s.SessionFile(id)
	if f == nil {
		return &sctx.Session{ID: id}, err
	}
	return &f.Session, err
}

// SessionFile reads a session's whole file. A missing file gives a new
// session; a corrupt one (or one of a newer version) gives a new session
// and the error, which names the file.
func (s *Store) SessionFile(id string) (*SessionFile, error) {
	f, _, err := s.sessionBytes(id)
	return f, err
}

// sessionBytes is SessionFile, with the file's bytes (nil when missing or
// unreadable).
func (s *Store) sessionBytes(id string) (*SessionFile, []byte, error) {
	path := s.sessionPath(id)
	data, err := sessionCodec.Bytes(path)
	f, err := decodeSession(id, path, data, err)
	return f, data, err
}

// decodeSession decodes a session's file as read (data, err): a missing
// file is a new session; a corrupt one a new session and the error.
func decodeSession(id, path string, data []byte, err error) (*SessionFile, error) {
	f := &SessionFile{Session: sctx.Session{ID: id}}
	if err == nil {
		err = sessionCodec.Unmarshal(path, data, f)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return &SessionFile{Session: sctx.Session{ID: id}}, err
	}
	return f, nil
}

// UpdateSession reads a session's file, lets change modify it and writes
// it back, holding the session's lock across all three, so that another
// hook of the same session waits instead of losing this change or having
// its own lost. A missing or corrupt file starts as a new session (a
// corrupt one is replaced, not fatal). An error from change aborts the
// update: nothing is written, and the error is returned.
func (s *Store) UpdateSession(ctx context.Context, id string, change func(*SessionFile) error) error {
	return s.updateRead(ctx, id, nil, nil, change)
}

// updateRead is UpdateSession for a caller that read the session's file
// before (sessionBytes: read, its bytes snap): while the file holds the
// bytes read, read is changed and written back, not decoded again. A
// file that changed since, or was missing or damaged then, or no snapshot
// at all, is decoded under the lock. The bytes are compared, not the
// file's identity (inode, size, times): the session is replaced through
// a spare (store.Codec.NoSync), so an inode comes back, and with times
// of a coarse clock a stat cannot tell it from the one read.
func (s *Store) updateRead(ctx context.Context, id string, read *SessionFile, snap []byte, change func(*SessionFile) error) error {
	path := s.sessionPath(id)
	return store.Lock(ctx, path, func() error {
		f := read
		now, err := sessionCodec.Bytes(path)
		if err != nil || snap == nil || !bytes.Equal(now, snap) {
			f, _ = decodeSession(id, path, now, err) // a corrupt file is replaced
		}
		if err := change(f); err != nil {
			return err
		}
		data, err := marshalSession(f)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return sessionCodec.WriteJSON(path, data)
	})
}

// update is UpdateSession with a change that cannot fail.
func (s *Store) update(ctx context.Context, id string, change func(*SessionFile)) error {
	return s.UpdateSession(ctx, id, func(f *SessionFile) error {
		change(f)
		return nil
	})
}

// Log names inside the state folder.
const (
	// DecisionsFile logs every routed prompt.
	DecisionsFile = "decisions.jsonl"
	// LogFile logs why the hook stayed silent.
	LogFile = "hook.log"
)

// log returns one of the hook's logs: rotated past maxLog, one old file
// kept (those of versions before the numbered scheme, NAME.1, count as it).
func (s *Store) log(name string) *store.Log {
	return &store.Log{Path: filepath.Join(s.Dir, name), MaxBytes: maxLog, Keep: 1, Legacy: name + ".1"}
}

// RecordDecision appends a routed prompt to decisions.jsonl.
func (s *Store) RecordDecision(ctx context.Context, d Decision) error {
	line, err := marshalDecision(d)
	if err != nil {
		return err
	}
	return s.log(DecisionsFile).Append(ctx, line)
}

// Decisions counts the routed prompts of decisions.jsonl and the files it
// rotated into, and the lines that are not a decision: a record a crash
// cut short (the next append starts a line of its own, so it costs only
// itself), or damage.
func (s *Store) Decisions(ctx context.Context) (n, damaged int, err error) {
	damaged, err = s.eachDecision(ctx, func(time.Time) { n++ })
	return n, damaged, err
}

// eachDecision calls f with the time of each decision of decisions.jsonl
// and the files it rotated into, oldest first, and returns how many
// non-empty lines were no decision.
func (s *Store) eachDecision(ctx context.Context, f func(time.Time)) (damaged int, err error) {
	err = readLines(ctx, s.log(DecisionsFile), func(line []byte) {
		var rec struct {
			Time time.Time `json:"time"`
		}
		switch {
		case len(bytes.TrimSpace(line)) == 0:
		case json.Unmarshal(line, &rec) != nil || rec.Time.IsZero():
			damaged++
		default:
			f(rec.Time)
		}
	})
	return damaged, err
}

// RecordUse notes that the session used a skill, in its window and in the
// workflow statistics. When a routed prompt came less than FeedbackWindow
// before, the use is also the user's verdict on that route: a
// confirmation when it is the routed skill, an implicit correction
// (feedback.KindImplicit, which the learner weighs less) when it is
// another; same names compare through same (the catalog's spelling of
// "plugin:name"). about, when not nil, says whether the use is about the
// routed prompt's request (the last decision: its query, or with only
// hashes kept, its words' hashes); a use for another task closes the
// route without a verdict.
func (s *Store) RecordUse(ctx context.Context, session, skill string, now time.Time, same func(a, b string) bool, about func(last *LastDecision) bool) error {
	var prev []string
	var verdict *feedback.Record
	var terms memory.Vector
	err := s.update(ctx, session, func(f *SessionFile) {
		prev = append(prev, f.Recent...)
		f.Use(skill, now)
		if l := f.Last; l != nil && !l.Answered && now.Sub(l.Time) >= 0 && now.Sub(l.Time) <= FeedbackWindow {
			l.Answered = true
			if about != nil && !about(l) {
				return
			}
			corrected := skill
			if l.Skill != "" && same(l.Skill, skill) {
				corrected = l.Skill
			}
			verdict = &feedback.Record{TS: now, Session: session, Decision: l.ID, Query: s.keep(l.Query), QueryHash: l.QueryHash, Routed: l.Skill,
				Corrected: corrected, Kind: feedback.KindImplicit, Confidence: l.Confidence, Cost: l.Cost}
			terms = l.Terms
		}
	})
	if err != nil {
		return err
	}
	var memErr error
	if verdict != nil {
		if err := (&feedback.Log{Dir: s.Dir}).Append(ctx, *verdict); err != nil {
			return err
		}
		// Remembered at once, so that the next prompt like it already
		// goes where the session went (only with the prompt's terms,
		// which session files of older versions lack). A memory that
		// cannot take it costs nothing else: `skillroute learn` rebuilds
		// it from the feedback log.
		memErr = memory.Append(ctx, s.Dir, terms, memory.EventOf(*verdict), now)
	}
	path := filepath.Join(s.Dir, WorkflowFile)
	return errors.Join(memErr, store.Lock(ctx, path, func() error {
		wf, _ := s.Workflow() // a corrupt file is replaced
		wf.Observe(prev, skill)
		return workflowCodec.Write(path, wf)
	}))
}

// closeRoute ends the wait for a verdict on the session's routed prompt
// without recording one: the user has moved on to another request (a
// typed command that is not a skill use). The caller has read the
// session's file (f, err) already.
func (s *Store) closeRoute(ctx context.Context, session string, f *SessionFile, err error) error {
	if err != nil || f.Last == nil || f.Last.Answered {
		return err // nothing waits: no write
	}
	return s.update(ctx, session, func(f *SessionFile) {
		if f.Last != nil {
			f.Last.Answered = true
		}
	})
}

// WorkflowFile holds the workflow statistics in the state folder.
const WorkflowFile = "workflow.json"

// Workflow reads the workflow statistics; missing gives empty, corrupt (or
// of a newer version) gives empty and the error.
func (s *Store) Workflow() (*sctx.Workflow, error) {
	wf := &sctx.Workflow{}
	err := workflowCodec.Read(filepath.Join(s.Dir, WorkflowFile), wf)
	if errors.Is(err, fs.ErrNotExist) {
		return wf, nil
	}
	if err != nil {
		return &sctx.Workflow{}, err
	}
	return wf, nil
}

// ResetSession starts a session afresh.
func (s *Store) ResetSession(ctx context.Context, id string) error {
	return s.update(ctx, id, func(f *SessionFile) {
		*f = SessionFile{Session: sctx.Session{ID: id}}
	})
}

// Latest returns the id of the most recently active session that holds
// a routed prompt, or "": what `correct` corrects without --session. A
// session just started (SessionStart writes its file) holds none, and
// taking it would refuse the correction of the prompt before it.
func (s *Store) Latest() string {
	entries, err := os.ReadDir(filepath.Join(s.Dir, "sessions"))
	if err != nil {
		return ""
	}
	var best string
	var bestTime time.Time
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.ModTime().After(bestTime) {
			continue
		}
		var f SessionFile
		if sessionCodec.Read(filepath.Join(s.Dir, "sessions", e.Name()), &f) == nil && f.ID != "" && f.Last != nil {
			best, bestTime = f.ID, info.ModTime()
		}
	}
	return best
}

// Expire removes session files idle for longer than SessionTTL, and the
// temp files killed writers left among them (sessionCodec keeps them
// there for it).
func (s *Store) Expire(now time.Time) {
	dir := filepath.Join(s.Dir, "sessions")
	store.CleanTemps(dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		// A session's lock goes with its file, never alone: a lock file's
		// time does not move while a long session uses it.
		name := e.Name()
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > SessionTTL {
			os.Remove(filepath.Join(dir, name))
			os.Remove(filepath.Join(dir, name+".lock"))
		}
	}
}

// maxLog is the size at which hook.log and decisions.jsonl are rotated,
// one old file kept: several thousand lines, this week's or so. The
// feedback log, the one kept whole, rotates the same way but keeps every
// file (package feedback).
const maxLog = 1 << 20

// Log appends a line to hook.log; failures are ignored (it is a log).
// attrs are more fields, as key and value pairs; empty values are left
// out.
func (s *Store) Log(ctx context.Context, now time.Time, event, msg string, attrs ...string) {
	fields := map[string]string{"time": now.UTC().Format(time.RFC3339Nano), "event": event, "msg": msg}
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] != "" {
			fields[attrs[i]] = attrs[i+1]
		}
	}
	line, _ := json.Marshal(fields)
	if err := s.log(LogFile).Append(ctx, line); errors.Is(err, store.ErrBusy) {
		appendUnlocked(filepath.Join(s.Dir, LogFile), line)
	}
}

// appendUnlocked appends a line to a log without its lock, in one
// write(2) to a file opened O_APPEND: atomic on a local file system, so it
// never interleaves with another line, and it lands in the log or, if the
// log was just rotated, in the file it was rotated into. A log line that
// says why a hook was silent must not be lost because, on a loaded
// machine, another process held the lock past the hook's few
// milliseconds (seen in internal/stress: 16 hooks on 2 busy cores).
func appendUnlocked(path string, line []byte) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	_, _ = f.Write(append(line, '\n'))
	f.Close()
}
