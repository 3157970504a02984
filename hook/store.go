package hook

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/state"
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
type Store struct {
	Dir string
}

// SessionFile is a session's persisted state.
type SessionFile struct {
	sctx.Session
	Last *LastDecision `json:"last,omitempty"`
}

// LastDecision is the session's most recent routed prompt, kept so that a
// later skill use or an explicit correction can be compared with it.
type LastDecision struct {
	ID         string    `json:"id"`
	Query      string    `json:"query"`
	Skill      string    `json:"skill"`
	Confidence float64   `json:"confidence"`
	Time       time.Time `json:"time"`
	Cost       int       `json:"cost,omitempty"`     // tokens injected
	Answered   bool      `json:"answered,omitempty"` // feedback already recorded for it
}

// FeedbackWindow is how long after a routed prompt a skill use counts as
// the user's verdict on that route: the seed's five minutes, long enough
// for the model to pick a skill, short enough not to blame a later task.
const FeedbackWindow = 5 * time.Minute

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9_.-]`)

// sessionPath maps a session id to its file; ids are not trusted as paths.
func (s *Store) sessionPath(id string) string {
	if id == "" {
		id = "default"
	}
	safe := unsafeID.ReplaceAllString(id, "_")
	if safe != id || len(safe) > 100 || strings.HasPrefix(safe, ".") {
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
// session; a corrupt one gives a new session and the error.
func (s *Store) SessionFile(id string) (*SessionFile, error) {
	data, err := os.ReadFile(s.sessionPath(id))
	f := &SessionFile{Session: sctx.Session{ID: id}}
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, f); err != nil {
		return &SessionFile{Session: sctx.Session{ID: id}}, err
	}
	return f, nil
}

// update reads, changes and writes a session file under its lock.
func (s *Store) update(ctx context.Context, id string, change func(*SessionFile)) error {
	path := s.sessionPath(id)
	return state.Locked(ctx, path, func() error {
		f, _ := s.SessionFile(id) // a corrupt file is replaced, not fatal
		change(f)
		data, err := json.Marshal(f)
		if err != nil {
			return err
		}
		return state.WriteAtomic(path, data)
	})
}

// RecordDecision appends a routed prompt to decisions.jsonl.
func (s *Store) RecordDecision(ctx context.Context, d Decision) error {
	line, err := json.Marshal(d)
	if err != nil {
		return err
	}
	path := filepath.Join(s.Dir, "decisions.jsonl")
	rotate(path)
	return state.AppendLine(ctx, path, line)
}

// RecordUse notes that the session used a skill, in its window and in the
// workflow statistics. When a routed prompt came less than FeedbackWindow
// before, the use is also the user's verdict on that route: a
// confirmation when it is the routed skill, an implicit correction
// (learn.ImplicitFactor) when it is another; same names compare through
// same (the catalog's spelling of "plugin:name"). about, when not nil,
// says whether the use is about the routed prompt's request (its query);
// a use for another task closes the route without a verdict.
func (s *Store) RecordUse(ctx context.Context, session, skill string, now time.Time, same func(a, b string) bool, about func(query string) bool) error {
	var prev []string
	var verdict *learn.Record
	err := s.update(ctx, session, func(f *SessionFile) {
		prev = append(prev, f.Recent...)
		f.Use(skill, now)
		if l := f.Last; l != nil && !l.Answered && now.Sub(l.Time) >= 0 && now.Sub(l.Time) <= FeedbackWindow {
			l.Answered = true
			if about != nil && !about(l.Query) {
				return
			}
			corrected := skill
			if l.Skill != "" && same(l.Skill, skill) {
				corrected = l.Skill
			}
			verdict = &learn.Record{TS: now, Session: session, Decision: l.ID, Query: l.Query, Routed: l.Skill,
				Corrected: corrected, Kind: learn.KindImplicit, Confidence: l.Confidence, Cost: l.Cost}
		}
	})
	if err != nil {
		return err
	}
	if verdict != nil {
		if err := (&learn.Log{Dir: s.Dir}).Append(ctx, *verdict); err != nil {
			return err
		}
	}
	path := filepath.Join(s.Dir, "workflow.json")
	return state.Locked(ctx, path, func() error {
		wf, _ := s.Workflow()
		wf.Observe(prev, skill)
		data, err := json.Marshal(wf)
		if err != nil {
			return err
		}
		return state.WriteAtomic(path, data)
	})
}

// CloseRoute ends the wait for a verdict on the session's routed prompt
// without recording one: the user has moved on to another request (a
// typed command that is not a skill use).
func (s *Store) CloseRoute(ctx context.Context, session string) error {
	f, err := s.SessionFile(session)
	if err != nil || f.Last == nil || f.Last.Answered {
		return err // nothing waits: no write
	}
	return s.update(ctx, session, func(f *SessionFile) {
		if f.Last != nil {
			f.Last.Answered = true
		}
	})
}

// Workflow reads the workflow statistics; missing or corrupt gives empty.
func (s *Store) Workflow() (*sctx.Workflow, error) {
	wf := &sctx.Workflow{}
	data, err := os.ReadFile(filepath.Join(s.Dir, "workflow.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return wf, nil
	}
	if err != nil {
		return wf, err
	}
	if err := json.Unmarshal(data, wf); err != nil {
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

// Latest returns the id of the most recently active session, or "".
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
		data, err := os.ReadFile(filepath.Join(s.Dir, "sessions", e.Name()))
		var f SessionFile
		if err == nil && json.Unmarshal(data, &f) == nil && f.ID != "" {
			best, bestTime = f.ID, info.ModTime()
		}
	}
	return best
}

// Expire removes session files idle for longer than SessionTTL.
func (s *Store) Expire(now time.Time) {
	dir := filepath.Join(s.Dir, "sessions")
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

// maxLog is the size at which hook.log and decisions.jsonl are rotated to
// NAME.1: several thousand lines, this week's or so. The feedback log, the
// one kept whole, has rotation of its own (package learn).
const maxLog = 1 << 20

// rotate moves a log over maxLog aside to NAME.1, replacing the one before.
func rotate(path string) {
	if info, err := os.Stat(path); err == nil && info.Size() > maxLog {
		_ = os.Rename(path, path+".1")
	}
}

// Log appends a line to hook.log; failures are ignored (it is a log).
func (s *Store) Log(ctx context.Context, now time.Time, event, msg string) {
	path := filepath.Join(s.Dir, "hook.log")
	rotate(path)
	line, _ := json.Marshal(map[string]string{"time": now.UTC().Format(time.RFC3339Nano), "event": event, "msg": msg})
	_ = state.AppendLine(ctx, path, line)
}
