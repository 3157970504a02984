package context

import "strings"

// Workflow prediction parameters.
//
// MinCount is how many times a context (the last skill, or the last two)
// must have been seen before it predicts anything: a sequence seen once is
// as likely an accident as a habit, and a probability of 1 out of one
// observation would push the router hard on no evidence.
//
// TrigramWeight and BigramWeight interpolate the two estimates when the
// trigram context is known: the longer context is the more specific, so it
// leads, but the bigram keeps a share because trigram counts are sparse
// and a single odd session moves them a lot. They sum to 1, so the result
// is a probability.
//
// MaxContextTotal is how many transitions one context holds: when one
// more would pass it, the context's counts are halved first (integer
// halving; transitions left at 0 are dropped).
// Halving keeps the proportions while making room for new evidence, so a
// habit changed after 200 uses takes over within about 100 more instead of
// having to outvote the whole history, and one-off transitions eventually
// vanish. It also bounds the state the hook persists.
const (
	MinCount        = 2
	TrigramWeight   = 0.7
	BigramWeight    = 0.3
	MaxContextTotal = 200
)

// Workflow counts which skill followed which across sessions. Bigrams maps
// a skill to the counts of the skills used right after it; Trigrams maps
// "a|b" (a then b) to the counts of the skills used after that pair. The
// zero value is ready to use, and it serialises as plain JSON.
type Workflow struct {
	Bigrams  map[string]map[string]int `json:"bigrams,omitempty"`
	Trigrams map[string]map[string]int `json:"trigrams,omitempty"`
}

// sep joins the two skills of a trigram context. Skill names are
// kebab-case, so it cannot occur in them; names that contain it are not
// observed.
const sep = "|"

// Observe records that next was used after prev (the session's previous
// skills, oldest first): one bigram transition from prev's last skill and,
// when prev has two or more, one trigram transition from its last two.
// Nothing is recorded without a previous skill.
func (w *Workflow) Observe(prev []string, next string) {
	if next == "" || strings.Contains(next, sep) || len(prev) == 0 {
		return
	}
	last := prev[len(prev)-1]
	if last == "" || strings.Contains(last, sep) {
		return
	}
	if w.Bigrams == nil {
		w.Bigrams = map[string]map[string]int{}
	}
	count(w.Bigrams, last, next)
	if len(prev) < 2 {
		return
	}
	before := prev[len(prev)-2]
	if before == "" || strings.Contains(before, sep) {
		return
	}
	if w.Trigrams == nil {
		w.Trigrams = map[string]map[string]int{}
	}
	count(w.Trigrams, before+sep+last, next)
}

// count adds one transition. A context holds at most MaxContextTotal
// transitions: when the new one would pass that, the context's counts are
// halved first, so the transition just seen is never the one halved away.
func count(table map[string]map[string]int, ctx, next string) {
	m := table[ctx]
	if m == nil {
		m = map[string]int{}
		table[ctx] = m
	}
	if total(m) >= MaxContextTotal {
		for k, c := range m {
			if c /= 2; c == 0 {
				delete(m, k)
			} else {
				m[k] = c
			}
		}
	}
	m[next]++
}

func total(m map[string]int) int {
	n := 0
	for _, c := range m {
		n += c
	}
	return n
}

// Predict returns the probability of each skill coming next after recent
// (oldest first), in [0, 1]: TrigramWeight × P(next | last two) +
// BigramWeight × P(next | last) when the last two have been seen together
// at least MinCount times, else P(next | last) when the last has been seen
// at least MinCount times, else nothing (nil).
func (w *Workflow) Predict(recent []string) map[string]float64 {
	if w == nil || len(recent) == 0 {
		return nil
	}
	last := recent[len(recent)-1]
	bi := w.Bigrams[last]
	biTotal := total(bi)
	var tri map[string]int
	triTotal := 0
	if len(recent) >= 2 {
		tri = w.Trigrams[recent[len(recent)-2]+sep+last]
		triTotal = total(tri)
	}
	switch {
	case triTotal >= MinCount:
		out := make(map[string]float64, len(tri)+len(bi))
		for k, c := range tri {
			out[k] += TrigramWeight * float64(c) / float64(triTotal)
		}
		if biTotal > 0 {
			for k, c := range bi {
				out[k] += BigramWeight * float64(c) / float64(biTotal)
			}
		} else {
			// Halving can empty a bigram context its trigrams outlive:
			// the trigram estimate alone then stands for both.
			for k := range out {
				out[k] /= TrigramWeight
			}
		}
		for k, v := range out {
			out[k] = min(v, 1) // rounding must not step outside [0, 1]
		}
		return out
	case biTotal >= MinCount:
		out := make(map[string]float64, len(bi))
		for k, c := range bi {
			out[k] = float64(c) / float64(biTotal)
		}
		return out
	}
	return nil
}
