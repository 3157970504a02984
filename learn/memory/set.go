package memory

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/store"
)

// File is the memory's file name in the state folder.
const File = "memory.bin"

// Limits on what the memory keeps, so that its file and the hook's cost
// stay bounded whatever the history.
const (
	// MaxAge is the age past which an event is dropped when the memory is
	// next written: at half-life five days its weight is then below
	// 1/4000, too little to move any prompt.
	MaxAge = 60 * 24 * time.Hour
	// MaxEntries bounds the remembered prompts; past it the ones whose
	// latest event is oldest go first. Recalling among 10,000 costs the
	// hook about a tenth of a millisecond (BenchmarkRecall), so twice that
	// stays far inside its budget.
	MaxEntries = 20000
	// MaxEvents bounds the events kept for one prompt (the newest): a
	// prompt corrected a hundred times is as settled as one corrected
	// thirty times, whose oldest events weigh nothing next to the newest.
	MaxEvents = 32
)

// Event is one verdict on a remembered prompt: a correction (Corrected
// differs from Routed) or a confirmation (they agree). "" means no skill:
// Routed "" is an abstention, Corrected "" says no skill should have been
// recommended.
type Event struct {
	ID        uint64    // identity of the feedback record it came from (EventID)
	TS        time.Time // when
	Corrected string
	Routed    string
	Explicit  bool // the user said so (correct, /skillroute:wrong), not inferred
}

// IsCorrection reports whether the event says the route was wrong.
func (e Event) IsCorrection() bool { return e.Corrected != e.Routed }

// weight is the event's vote as of now: the learner's decay, relative to
// one fresh explicit record (implicit ones count ImplicitFactor), and an
// implicit confirmation ConfirmFactor of that (a quarter): the session
// going on with the routed skill says less than a complaint. An explicit
// confirmation (`correct` naming the skill the prompt already goes to)
// is the user's word like any correction, and counts whole.
func (e Event) weight(now time.Time) float64 {
	if e.Explicit {
		return learn.Decay(now.Sub(e.TS), feedback.KindExplicit) / learn.Rate
	}
	w := learn.Decay(now.Sub(e.TS), feedback.KindImplicit) / learn.Rate
	if !e.IsCorrection() {
		w *= learn.ConfirmFactor
	}
	return w
}

// EventID identifies a feedback record: an FNV hash of its time (to the
// nanosecond), session, decision, kind and skills, not of its query, which
// a log keeping only prompt hashes does not hold. The same record always
// gives the same id, so adding it twice adds it once, and undoing it
// finds it.
func EventID(r feedback.Record) uint64 {
	h := fnv.New64a()
	for _, part := range []string{r.TS.UTC().Format(time.RFC3339Nano), r.Session, r.Decision, r.Routed, r.Corrected, r.Kind} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// EventOf returns the event a feedback record makes.
func EventOf(r feedback.Record) Event {
	return Event{ID: EventID(r), TS: r.TS.UTC(), Corrected: r.Corrected, Routed: r.Routed, Explicit: r.Kind == feedback.KindExplicit}
}

// Entry is one remembered prompt: its vector and the verdicts on it,
// oldest first.
type Entry struct {
	Vector Vector
	Events []Event
}

// latest returns the time of the entry's newest event.
func (e *Entry) latest() time.Time {
	var t time.Time
	for _, ev := range e.Events {
		if ev.TS.After(t) {
			t = ev.TS
		}
	}
	return t
}

// Set is the memory as its writers edit it: every entry decoded. Load
// gives the read-only form the router uses.
type Set struct {
	// Catalog is the source hash of the index the vectors were weighted
	// with (index.SourceHash).
	Catalog string
	Entries []*Entry
	byKey   map[uint64]*Entry
}

func (s *Set) index() {
	if s.byKey != nil {
		return
	}
	s.byKey = make(map[uint64]*Entry, len(s.Entries))
	for _, e := range s.Entries {
		s.byKey[e.Vector.Key()] = e
	}
}

// Add remembers an event on the prompt of vector v: on its entry when the
// prompt is remembered already (the same terms, whatever their weights;
// the newer weights are kept), else on a new one. An event already there
// (same ID) is not added again, and an empty vector is not remembered. It
// reports whether anything was added.
func (s *Set) Add(v Vector, ev Event) bool {
	if len(v) == 0 {
		return false
	}
	s.index()
	key := v.Key()
	e := s.byKey[key]
	if e == nil {
		e = &Entry{}
		s.Entries = append(s.Entries, e)
		s.byKey[key] = e
	}
	for _, old := range e.Events {
		if old.ID == ev.ID {
			return false
		}
	}
	e.Vector = v
	e.Events = append(e.Events, ev)
	slices.SortStableFunc(e.Events, func(a, b Event) int { return a.TS.Compare(b.TS) })
	return true
}

// Remove drops the events drop selects, and the entries left with none.
// It returns how many events went.
func (s *Set) Remove(drop func(Event) bool) int {
	n := 0
	kept := s.Entries[:0]
	for _, e := range s.Entries {
		events := e.Events[:0]
		for _, ev := range e.Events {
			if drop(ev) {
				n++
			} else {
				events = append(events, ev)
			}
		}
		e.Events = events
		if len(events) > 0 {
			kept = append(kept, e)
		}
	}
	clear(s.Entries[len(kept):])
	s.Entries = kept
	s.byKey = nil
	return n
}

// Prune drops what the memory no longer needs as of now: events older
// than MaxAge, all but the newest MaxEvents of a prompt, and past
// MaxEntries the prompts last spoken about longest ago.
func (s *Set) Prune(now time.Time) {
	s.Remove(func(ev Event) bool { return now.Sub(ev.TS) > MaxAge })
	for _, e := range s.Entries {
		if len(e.Events) > MaxEvents {
			e.Events = append([]Event(nil), e.Events[len(e.Events)-MaxEvents:]...)
		}
	}
	if len(s.Entries) > MaxEntries {
		slices.SortStableFunc(s.Entries, func(a, b *Entry) int { return b.latest().Compare(a.latest()) })
		clear(s.Entries[MaxEntries:])
		s.Entries = s.Entries[:MaxEntries]
		s.byKey = nil
	}
}

// Events counts the events of every entry.
func (s *Set) Events() int {
	n := 0
	for _, e := range s.Entries {
		n += len(e.Events)
	}
	return n
}

// Build makes the memory of a feedback log over an index: every record
// that is a verdict on a skill or on abstaining, its query vectorized. A
// record without its query (logs that keep only prompt hashes) is kept
// only if prev, the memory being rebuilt, has its event: its vector is
// taken from there. Records Validate rejects are skipped.
func Build(records []feedback.Record, ix *index.Index, prev *Set, now time.Time) *Set {
	old := map[uint64]Vector{}
	if prev != nil {
		for _, e := range prev.Entries {
			for _, ev := range e.Events {
				old[ev.ID] = e.Vector
			}
		}
	}
	s := &Set{Catalog: ix.SourceHash}
	tok := ix.Tokenizer()
	for _, r := range records {
		if r.Validate() != nil || r.Routed == "" && r.Corrected == "" {
			continue
		}
		ev := EventOf(r)
		v := old[ev.ID]
		if r.Query != "" {
			v = Vectorize(ix, tok.Tokenize(r.Query))
		}
		s.Add(v, ev)
	}
	s.Prune(now)
	return s
}

// lockWait bounds how long a writer waits for another: writes take
// milliseconds, and the hook, which writes too, has 200 ms in all.
const lockWait = 5 * time.Second

// Update reads the memory of the state folder dir, with the journal's
// events folded in (an empty memory when the file is missing, damaged or
// of another version: it is derived data, and change may rebuild it),
// lets change edit it, prunes it, writes it back and empties the journal,
// holding the locks of both throughout so that concurrent writers take
// turns and no event appended meanwhile is lost. A change that returns an
// error writes nothing. fresh says whether the file was missing or
// unreadable, so that the caller can rebuild it from the feedback log
// (with the set as it stands as Build's prev: it holds the journal's
// events).
func Update(ctx context.Context, dir string, now time.Time, change func(s *Set, fresh bool) error) error {
	path := filepath.Join(dir, File)
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lockWait)
		defer cancel()
	}
	err := store.Lock(ctx, path, func() error {
		return store.Lock(ctx, journalPath(dir), func() error {
			s, err := Read(path)
			fresh := err != nil
			if fresh {
				s = &Set{}
			}
			journal, err := readJournal(journalPath(dir))
			if err != nil {
				return err
			}
			for _, e := range journal {
				s.Add(e.Vector, e.Events[0])
			}
			if err := change(s, fresh); err != nil {
				return err
			}
			s.Prune(now)
			if err := s.Save(path); err != nil {
				return err
			}
			if err := os.Remove(journalPath(dir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	return nil
}

// Read decodes the whole memory file at path into a Set for editing. A
// missing file is an error wrapping fs.ErrNotExist.
func Read(path string) (*Set, error) {
	m, err := Load(path)
	if err != nil {
		return nil, err
	}
	return m.Set(), nil
}

// Exists reports whether the state folder dir has a memory: its file or
// a journal.
func Exists(dir string) bool {
	for _, name := range []string{File, JournalFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}
