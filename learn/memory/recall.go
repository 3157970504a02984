package memory

import (
	"encoding/binary"
	"maps"
	"math"
	"slices"
	"sort"
	"time"
)

// Recall constants, fitted on the labelled prompts (TestThresholdFit,
// -v prints the figures): over dev.jsonl, real-dev and the bookworm golden
// set, no two prompts labelled with different skills reach a cosine of
// 0.5 (the nearest pair: 0.38 on dev.jsonl, 0.12 on real-dev, 0.49 among
// bookworm's three-word keyword lists), while the same request with its
// clauses swapped keeps a median of 1.0 (99 % and 100 % of them at or
// above 0.5) and with one word changed a median of 0.73 and 0.84 (83 %
// and 96 % at or above 0.5).
const (
	// Threshold is the cosine from which a remembered prompt counts as
	// the same request in other words: it votes. Below it, nothing.
	Threshold = 0.5
	// SameAt is the cosine from which a prompt counts as the very prompt
	// remembered (its words, perhaps in another order or with one filler
	// word more): its votes count whole. Between Threshold and SameAt
	// they count (cosine / SameAt)², so evidence falls fast away from the
	// remembered prompt.
	SameAt = 0.95
	// PinAt is the evidence that puts the taught skill first: one fresh
	// correction of the same prompt is 1, and still 0.5 after the
	// learner's half-life of five days. Two corrections of a prompt make
	// 0.55 at the threshold, so a paraphrase needs two where the prompt
	// itself needs one.
	PinAt = 0.5
	// minShared is how many terms a prompt must share with a remembered
	// one to be near it (unless the remembered one has fewer): one shared
	// word in two short prompts may reach the threshold on its own.
	minShared = 2
)

// Verdict is what the memory says about a prompt.
type Verdict struct {
	// Skill is the skill the nearby remembered prompts were corrected or
	// confirmed to, on balance ("" with None: no skill was right).
	Skill string
	// None says the users' verdict was that no skill should be
	// recommended.
	None bool
	// Evidence is Skill's votes less the other skills' (see the package
	// doc): PinAt or more puts it first.
	Evidence float64
	// Near is how many remembered prompts voted; Best the cosine of the
	// nearest.
	Near int
	Best float64
	// Corrections and Confirmations count the events that voted; Last is
	// the newest of them.
	Corrections, Confirmations int
	Last                       time.Time
}

// Acts reports whether the verdict says anything: some skill (or none)
// has evidence.
func (v Verdict) Acts() bool { return v.Evidence > 0 }

// Pins reports whether the evidence is enough to put the skill first.
func (v Verdict) Pins() bool { return v.Evidence >= PinAt }

// Recall returns the memory's verdict on a prompt's vector: the votes of
// every remembered prompt whose cosine with it reaches Threshold, as the
// package doc says. A nil memory, or no prompt near, gives the zero
// Verdict.
func (m *Memory) Recall(v Vector) Verdict {
	if m.Len() == 0 || len(v) == 0 {
		return Verdict{}
	}
	// Votes of the remembered prompts in the file, found through the term
	// table, then of those in the journal, compared one by one (they are
	// few).
	le := binary.LittleEndian
	nTerms := len(m.terms) / 8
	nPosts := len(m.post) / 4
	// Dense accumulators, one slot a remembered prompt, and the list of
	// those touched in the order first touched: deterministic sums, and
	// no map insert per posting when a common term reaches thousands.
	dot := make([]float64, m.entries)
	shared := make([]uint16, m.entries)
	var touched []uint32
	for _, t := range v {
		i := sort.Search(nTerms, func(i int) bool { return le.Uint64(m.terms[8*i:]) >= t.Hash })
		if i == nTerms || le.Uint64(m.terms[8*i:]) != t.Hash {
			continue
		}
		from, to := int(m.u32(m.starts, i)), int(m.u32(m.starts, i+1))
		if from > to || to > nPosts {
			continue
		}
		for p := from; p < to; p++ {
			e := m.u32(m.post, p)
			if int(e) >= m.entries {
				continue
			}
			if shared[e] == 0 {
				touched = append(touched, e)
			}
			dot[e] += float64(t.Weight) * float64(math.Float32frombits(m.u32(m.weight, p)))
			shared[e]++
		}
	}
	votes := map[string]float64{}
	var out Verdict
	// vote counts the events of a remembered prompt near enough.
	vote := func(cos float64, events func(yield func(Event) bool)) {
		closeness := math.Pow(min(1, cos/SameAt), 2)
		out.Near++
		out.Best = max(out.Best, min(1, cos))
		for ev := range events {
			w := ev.weight(m.Now) * closeness
			votes[ev.Corrected] += w
			if ev.IsCorrection() {
				votes[ev.Routed] -= w
				out.Corrections++
			} else {
				out.Confirmations++
			}
			if ev.TS.After(out.Last) {
				out.Last = ev.TS
			}
		}
	}
	for _, e := range touched {
		cos := dot[e]
		if cos < Threshold || int(shared[e]) < min(minShared, int(m.u32(m.length, int(e)))) {
			continue
		}
		from, to := m.eventsOf(int(e))
		if from == to {
			continue
		}
		vote(cos, func(yield func(Event) bool) {
			for i := from; i < to && yield(m.event(i)); i++ {
			}
		})
	}
	for _, e := range m.journal {
		cos, n := cosineShared(v, e.Vector)
		if cos < Threshold || n < min(minShared, len(e.Vector)) {
			continue
		}
		vote(cos, slices.Values(e.Events))
	}
	names := slices.Sorted(maps.Keys(votes)) // sums in a fixed order
	positive := 0.0
	for _, skill := range names {
		positive += max(0, votes[skill])
	}
	for _, skill := range names {
		w := votes[skill]
		// A skill's evidence: its votes less the positive votes of the
		// others. Only one skill can come out positive, so the order of
		// this loop does not matter.
		if e := w - (positive - max(0, w)); e > out.Evidence {
			out.Skill, out.Evidence = skill, e
		}
	}
	out.None = out.Evidence > 0 && out.Skill == ""
	if out.Evidence <= 0 {
		return Verdict{}
	}
	return out
}

// cosineShared returns the cosine of two unit vectors and how many terms
// they share.
func cosineShared(a, b Vector) (float64, int) {
	var dot float64
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].Hash < b[j].Hash:
			i++
		case a[i].Hash > b[j].Hash:
			j++
		default:
			dot += float64(a[i].Weight) * float64(b[j].Weight)
			n++
			i++
			j++
		}
	}
	return dot, n
}
