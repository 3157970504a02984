package memory

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillroute/skillroute/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// now is the "now" of the memory's tests.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// vec builds a unit vector over term ids 1, 2, ... with the given
// weights (0: absent).
func vec(weights ...float64) Vector {
	var v Vector
	for i, w := range weights {
		if w != 0 {
			v = append(v, Term{Hash: uint64(i + 1), Weight: float32(w)})
		}
	}
	return normalise(v)
}

// near returns a vector whose cosine with vec(1, 1, 1, 1) is c (0 < c < 1):
// the same four terms, tilted towards a fifth.
func near(c float64) Vector {
	s := math.Sqrt(1/(c*c) - 1) // |other| / |base| for cosine c
	return vec(1, 1, 1, 1, 2*s)
}

// loaded saves a set and loads it back as the router reads it, as of now.
func loaded(t *testing.T, s *Set) *Memory {
	t.Helper()
	path := filepath.Join(t.TempDir(), File)
	require.NoError(t, s.Save(path))
	m, err := Load(path)
	require.NoError(t, err)
	m.Now = now
	return m
}

func correction(id uint64, age time.Duration, routed, corrected string) Event {
	return Event{ID: id, TS: now.Add(-age), Routed: routed, Corrected: corrected, Explicit: true}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	s := &Set{Catalog: "abc"}
	s.Add(vec(1, 2, 0, 3), correction(1, time.Hour, "a", "b"))
	s.Add(vec(1, 2, 0, 3), Event{ID: 2, TS: now, Routed: "b", Corrected: "b"})
	s.Add(vec(0, 0, 5), correction(3, 0, "", "c"))
	s.Add(vec(0, 7), correction(4, 2*time.Hour, "c", ""))
	m := loaded(t, s)
	assert.Equal(t, 3, m.Len())
	assert.Equal(t, 4, m.Events())
	assert.Equal(t, "abc", m.Catalog)
	back := m.Set()
	require.Len(t, back.Entries, 3)
	for i, e := range s.Entries {
		assert.Equal(t, e.Vector, back.Entries[i].Vector)
		assert.Equal(t, e.Events, back.Entries[i].Events)
	}
}

// The same prompt corrected twice is one remembered prompt with two
// events; the same event added twice is added once.
func TestAddMergesByPrompt(t *testing.T) {
	s := &Set{}
	assert.True(t, s.Add(vec(1, 1), correction(1, 0, "a", "b")))
	assert.True(t, s.Add(vec(2, 2), correction(2, 0, "a", "b")), "same terms, other weights: same prompt")
	assert.False(t, s.Add(vec(1, 1), correction(2, 0, "a", "b")), "same event")
	assert.False(t, s.Add(nil, correction(3, 0, "a", "b")), "nothing to remember")
	require.Len(t, s.Entries, 1)
	assert.Len(t, s.Entries[0].Events, 2)
	assert.Equal(t, 1, s.Remove(func(e Event) bool { return e.ID == 1 }))
	assert.Equal(t, 1, s.Remove(func(e Event) bool { return e.ID == 2 }))
	assert.Empty(t, s.Entries, "an entry without events goes")
	assert.True(t, s.Add(vec(1, 1), correction(1, 0, "a", "b")), "and can come back")
}

func TestPrune(t *testing.T) {
	s := &Set{}
	s.Add(vec(1), correction(1, MaxAge+time.Hour, "a", "b"))
	s.Add(vec(1), correction(2, MaxAge-time.Hour, "a", "b"))
	for i := range MaxEvents + 5 {
		s.Add(vec(0, 1), correction(uint64(100+i), time.Duration(i)*time.Minute, "a", "b"))
	}
	s.Prune(now)
	require.Len(t, s.Entries, 2)
	assert.Equal(t, []uint64{2}, ids(s.Entries[0].Events), "too old to count")
	assert.Len(t, s.Entries[1].Events, MaxEvents)
	assert.Equal(t, now, s.Entries[1].Events[MaxEvents-1].TS, "the newest are kept")

	big := &Set{}
	for i := range MaxEntries + 3 {
		big.Add(Vector{{Hash: uint64(i + 1), Weight: 1}}, correction(uint64(i), time.Duration(i)*time.Second, "a", "b"))
	}
	big.Prune(now)
	require.Len(t, big.Entries, MaxEntries)
	for _, e := range big.Entries {
		assert.Less(t, e.Events[0].ID, uint64(MaxEntries), "the prompts spoken about longest ago go first")
	}
}

func ids(events []Event) []uint64 {
	var out []uint64
	for _, e := range events {
		out = append(out, e.ID)
	}
	return out
}

// Recall's evidence, case by case: what one correction does to the same
// prompt, to a paraphrase, as it ages, against later corrections that
// disagree, and what confirmations and "no skill" corrections say.
func TestRecall(t *testing.T) {
	base := vec(1, 1, 1, 1)
	day := 24 * time.Hour
	tests := []struct {
		name     string
		events   []Event // on base
		prompt   Vector
		skill    string
		none     bool
		evidence float64 // 0: nothing
		pins     bool
	}{
		{"one fresh correction pins the prompt", []Event{correction(1, 0, "a", "b")}, base, "b", false, 1, true},
		{"and the same prompt in another order", []Event{correction(1, 0, "a", "b")}, vec(2, 2, 2, 2), "b", false, 1, true},
		{"still pins after one half-life", []Event{correction(1, 5*day, "a", "b")}, base, "b", false, 0.5, true},
		{"after two it only moves", []Event{correction(1, 10*day, "a", "b")}, base, "b", false, 0.25, false},
		{"one correction does not pin a paraphrase", []Event{correction(1, 0, "a", "b")}, near(0.6), "b", false, math.Pow(0.6/SameAt, 2), false},
		{"two do", []Event{correction(1, time.Hour, "a", "b"), correction(2, 0, "a", "b")}, near(0.6), "b", false,
			math.Pow(0.6/SameAt, 2) * (1 + math.Pow(0.5, 1.0/120)), true},
		{"two pin a paraphrase at the threshold", []Event{correction(1, 0, "a", "b"), correction(2, 0, "a", "b")}, near(Threshold + 1e-6), "b", false,
			2 * math.Pow(Threshold/SameAt, 2), true},
		{"below the threshold nothing", []Event{correction(1, 0, "a", "b"), correction(2, 0, "a", "b")}, near(Threshold - 0.01), "", false, 0, false},
		{"a later correction that disagrees wins, and the earlier one fades", []Event{correction(1, day, "a", "b"), correction(2, 0, "b", "c")}, base, "c", false, 1, true},
		{"two against one: the two, less the one", []Event{correction(1, 0, "a", "b"), correction(2, 0, "a", "b"), correction(3, 0, "a", "c")}, base, "b", false, 1, true},
		{"a confirmation reinforces a little", []Event{{ID: 1, TS: now, Routed: "a", Corrected: "a"}}, base, "a", false, 0.25, false},
		{"the user's own confirmation is their word", []Event{{ID: 1, TS: now, Routed: "a", Corrected: "a", Explicit: true}}, base, "a", false, 1, true},
		{"an implicit correction counts half", []Event{{ID: 1, TS: now, Routed: "a", Corrected: "b"}}, base, "b", false, 0.5, true},
		{"no skill was right", []Event{correction(1, 0, "a", "")}, base, "", true, 1, true},
		{"a prompt sharing nothing", []Event{correction(1, 0, "a", "b")}, vec(0, 0, 0, 0, 1), "", false, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Set{}
			for _, e := range tt.events {
				s.Add(base, e)
			}
			v := loaded(t, s).Recall(tt.prompt)
			assert.Equal(t, tt.skill, v.Skill)
			assert.Equal(t, tt.none, v.None)
			assert.InDelta(t, tt.evidence, v.Evidence, 1e-4)
			assert.Equal(t, tt.pins, v.Pins())
			assert.Equal(t, tt.evidence > 0, v.Acts())
			if v.Acts() {
				assert.Equal(t, 1, v.Near)
			}
		})
	}
}

// One term in common with a short remembered prompt is not nearness,
// however rare the term: two are needed (unless the remembered prompt has
// only one).
func TestRecallNeedsTwoSharedTerms(t *testing.T) {
	s := &Set{}
	s.Add(vec(3, 1), correction(1, 0, "a", "b"))
	s.Add(vec(0, 0, 1), correction(2, 0, "a", "c"))
	m := loaded(t, s)
	assert.InDelta(t, 0.95, Cosine(vec(3, 1), vec(1, 0, 0, 0.05)), 0.01)
	assert.False(t, m.Recall(vec(1, 0, 0, 0.05)).Acts(), "one shared term, cosine 0.95")
	assert.Equal(t, "b", m.Recall(vec(3, 1, 0, 0.05)).Skill)
	assert.Equal(t, "c", m.Recall(vec(0, 0, 1)).Skill, "a one-term prompt matches itself")
}

// Several remembered prompts near the new one add up: two corrected
// paraphrases pin what one could not.
func TestRecallAddsNearbyPrompts(t *testing.T) {
	s := &Set{}
	s.Add(near(0.6), correction(1, 0, "a", "b"))
	m := loaded(t, s)
	one := m.Recall(vec(1, 1, 1, 1))
	assert.True(t, one.Acts())
	assert.False(t, one.Pins())
	other := vec(1, 1, 1, 1, 0, 2*math.Sqrt(1/(0.6*0.6)-1)) // cosine 0.6 too, another way
	require.InDelta(t, 0.6, Cosine(other, vec(1, 1, 1, 1)), 1e-6)
	s.Add(other, correction(2, 0, "a", "b"))
	two := loaded(t, s).Recall(vec(1, 1, 1, 1))
	assert.Equal(t, 2, two.Near)
	assert.True(t, two.Pins(), "%+v", two)
}

// A damaged payload never panics a load or a recall, whatever it says.
func FuzzDecode(f *testing.F) {
	s := &Set{Catalog: "x"}
	s.Add(vec(1, 2, 3), correction(1, 0, "a", "b"))
	s.Add(vec(0, 2, 3, 4), correction(2, time.Hour, "", "c"))
	path := filepath.Join(f.TempDir(), File)
	require.NoError(f, s.Save(path))
	payload, err := store.LoadCache(path, cacheKind, FormatVersion)
	require.NoError(f, err)
	f.Add(append([]byte(nil), payload...))
	f.Add(append([]byte(nil), payload[:len(payload)/2]...))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decode(data)
		if err != nil {
			return
		}
		m.Now = now
		m.Recall(vec(1, 2, 3, 4))
		m.Set()
	})
}

// The hook's verdicts go to the journal, read with the file; the next
// rewrite folds them in and empties it, and an append that finds the
// journal full does that itself. A torn line costs its own event only.
func TestJournal(t *testing.T) {
	dir := t.TempDir()
	ctx := t.Context()
	_, err := LoadDir(dir)
	assert.ErrorIs(t, err, fs.ErrNotExist)
	assert.False(t, Exists(dir))

	require.NoError(t, Append(ctx, dir, vec(1, 1, 1, 1), correction(1, 0, "a", "b"), now))
	require.NoError(t, Append(ctx, dir, nil, correction(9, 0, "a", "b"), now), "nothing to remember")
	assert.True(t, Exists(dir))
	m, err := LoadDir(dir)
	require.NoError(t, err)
	m.Now = now
	assert.Equal(t, 1, m.Len())
	assert.Equal(t, "b", m.Recall(vec(1, 1, 1, 1)).Skill, "recalled from the journal alone")

	require.NoError(t, Update(ctx, dir, now, func(s *Set, fresh bool) error {
		assert.True(t, fresh, "no file yet")
		require.Len(t, s.Entries, 1, "the journal is folded in before the change")
		s.Add(vec(0, 0, 0, 0, 1), correction(2, 0, "a", "c"))
		return nil
	}))
	_, err = os.Stat(filepath.Join(dir, JournalFile))
	assert.ErrorIs(t, err, fs.ErrNotExist, "emptied")

	// A journal on top of the file: both recalled, votes adding up.
	require.NoError(t, Append(ctx, dir, vec(1, 1, 1, 1), correction(3, 0, "b", "d"), now))
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("v1\t1f\t12") // a writer killed mid-line
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, Append(ctx, dir, vec(0, 0, 0, 0, 1), correction(4, 0, "c", "e"), now))
	m, err = LoadDir(dir)
	require.NoError(t, err)
	m.Now = now
	assert.Equal(t, 4, m.Events())
	assert.Equal(t, "d", m.Recall(vec(1, 1, 1, 1)).Skill, "the later correction, from the journal, wins")
	assert.Equal(t, "e", m.Recall(vec(0, 0, 0, 0, 1)).Skill)

	// Past MaxJournal an append folds the journal into the file.
	for i := 0; ; i++ {
		require.NoError(t, Append(ctx, dir, vec(1, float64(i+2)), correction(uint64(100+i), 0, "a", "b"), now))
		if _, err := os.Stat(filepath.Join(dir, JournalFile)); errors.Is(err, fs.ErrNotExist) {
			assert.Greater(t, i, 20, "not before it is full")
			break
		}
		require.Less(t, i, 1000)
	}
	s, err := Read(filepath.Join(dir, File))
	require.NoError(t, err)
	assert.Greater(t, s.Events(), 20)
}
