package learn

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/store"
)

// Learning constants, the seed's (Part 5), each for a reason.
const (
	// Rate is what one fresh explicit correction moves a delta: a tenth of
	// a core keyword's tier weight, enough to tip a near tie, far from
	// enough to overturn a clear decision on one complaint.
	Rate = 0.1
	// HalfLife is the age at which a record counts half. Five days: a
	// week-old correction still matters, last month's work on another
	// project hardly does.
	HalfLife = 5 * 24 * time.Hour
	// ImplicitFactor scales inferred feedback: a session switching skills
	// is weaker evidence than a user saying the route was wrong.
	ImplicitFactor = 0.5
	// ConfirmFactor scales a confirmation against a correction of the same
	// kind and age: the absence of a complaint says less than a complaint.
	ConfirmFactor = 0.5
	// MaxDelta bounds every learned delta of a skill's term, so that no run
	// of feedback lets one keyword own the catalog or vanish from it (the
	// seed's safety constraint; the scorer scales tf by 1 + delta).
	MaxDelta = 0.5
	// MaxSkillDelta bounds a skill's own delta, which scales its score on
	// every prompt, matched or not: it may tip near ties, never a clear
	// match. At MaxDelta, twenty corrections of one prompt away from
	// frontend-expert halved its score everywhere and cost it one of its
	// three other dev.jsonl prompts, and performance-expert one of its five;
	// at 0.1 both keep them all (TestCorrectionsStayLocal). The prompt
	// itself is the term deltas' and the prompt memory's to move.
	MaxSkillDelta = 0.1
	// AddDistinctive is the document frequency share under which a word
	// of a corrected prompt that the corrected skill does not have counts
	// as distinctive, and is added to it as a learned keyword: used by
	// fewer than a tenth of the skills (a product name: "Paddle"), not a
	// word many skills' texts have ("update", "page").
	AddDistinctive = 0.1
)

// WeightsVersion changes whenever the meaning of Weights changes, so that
// weights learned by another version are relearned, never misapplied. It
// is the version in the weights file's header (store.Codec). Still 1
// since term deltas scale every field (the learner always moved the
// matched text terms too), skill deltas are clamped to MaxSkillDelta (on
// load as well) and Added was added (absent: none): version 1 files mean
// what they meant, applied a little more widely.
const WeightsVersion = 1

// weightsCodec frames weights files and their snapshots.
var weightsCodec = store.Codec{Kind: "weights", Version: WeightsVersion, Indent: true}

// WeightsFile is the weights' file name in the state folder.
const WeightsFile = "weights.json"

// MaxSnapshots is how many replaced weight sets Snapshot keeps: the
// seed's number, a few weeks of daily relearning to roll back through.
const MaxSnapshots = 20

// snapshotLockWait bounds the wait for another process's snapshot or
// rollback: both are offline operations that take milliseconds.
const snapshotLockWait = 10 * time.Second

// deltaFloor is the size below which a summed delta is dropped as zero:
// decayed records add up to dust that would only bloat the file, which
// every prompt's hook reads. Under 0.001 a delta moves a term's tf by
// under 0.1 %, and a fresh explicit correction moves 0.1 (Rate): one
// reaches the floor after log2(100) half-lives, 33 days (28 for an
// implicit one), so the file holds about a month of feedback's words
// however long the log (TestOldFeedbackLeavesNoWeights).
const deltaFloor = 0.001

// Weights are what the scorer applies at route time.
var _ bm25.Adjuster = (*Weights)(nil)

// Weights are the learned deltas: per skill and normalised index term, and
// per skill. A nil *Weights has no deltas.
type Weights struct {
	Keyword map[string]map[string]float64 `json:"keyword"` // skill -> index term -> delta
	Skill   map[string]float64            `json:"skill"`   // skill -> delta
	// Added are learned keywords: distinctive words of prompts corrected
	// to a skill that the skill's own text lacks, each with its weight
	// (skill -> term -> delta, at most MaxDelta). The router scores them
	// as keywords of tf delta × the term's IDF.
	Added   map[string]map[string]float64 `json:"added,omitempty"`
	Learned time.Time                     `json:"learned"` // the "now" they were learned at
	Records int                           `json:"records"` // records used
	Skipped int                           `json:"skipped"` // records naming skills absent from the index
}

// KeywordDelta returns the learned delta of an index term for a skill, 0
// when there is none.
func (w *Weights) KeywordDelta(skill, term string) float64 {
	if w == nil {
		return 0
	}
	return w.Keyword[skill][term]
}

// SkillDelta returns the learned delta of a skill, 0 when there is none.
func (w *Weights) SkillDelta(skill string) float64 {
	if w == nil {
		return 0
	}
	return w.Skill[skill]
}

// AddedTerms returns the learned keywords of a skill (nil for none):
// term -> delta.
func (w *Weights) AddedTerms(skill string) map[string]float64 {
	if w == nil {
		return nil
	}
	return w.Added[skill]
}

// Additions returns every skill's learned keywords (skill -> term ->
// delta; nil for none), for the router to score after the rules.
func (w *Weights) Additions() map[string]map[string]float64 {
	if w == nil {
		return nil
	}
	return w.Added
}

// Decay returns the weight of a record of the given kind and age:
// Rate × 0.5^(age / HalfLife) × (1 explicit, ImplicitFactor otherwise;
// kinds are feedback.KindExplicit and feedback.KindImplicit).
// A negative age (a clock ahead of ours) counts as zero.
func Decay(age time.Duration, kind string) float64 {
	if age < 0 {
		age = 0
	}
	w := Rate * math.Pow(0.5, float64(age)/float64(HalfLife))
	if kind != feedback.KindExplicit {
		w *= ImplicitFactor
	}
	return w
}

// Learn computes weights from the records as of now. Each record's
// weight w is Decay(now − TS, Kind). The query is tokenized and scored
// with the index's own tokenizer and BM25, and the index terms that
// matched are what moves:
//
//   - a correction (Corrected != Routed) adds +w to every term of the
//     corrected skill that matched and −w to every term of the routed one,
//     and +w / −w to the two skills;
//   - a confirmation (Corrected == Routed) adds ConfirmFactor × w to the
//     routed skill's matched terms: it reinforces the words of a route that
//     worked, but not the skill as a whole, which would only favour the
//     skills used most, whatever the prompt;
//   - an empty side (the router abstained, or no skill was right) moves
//     nothing on that side.
//
// Terms the prompt negated ("不要用 Redis") are not learned: the user was
// saying what the task is not. Records naming a skill absent from the
// index are skipped and counted in Skipped (a whitelist); records Read
// would reject (unknown kind, no time) are ignored. The sums are clamped to ±MaxDelta at the
// end, so the result does not depend on the order of the records.
func Learn(records []feedback.Record, ix *index.Index, now time.Time) *Weights {
	w := &Weights{
		Keyword: map[string]map[string]float64{},
		Skill:   map[string]float64{},
		Added:   map[string]map[string]float64{},
		Learned: now.UTC(),
	}
	known := make(map[string]bool, ix.Skills.Len())
	for i := range ix.Skills.Len() {
		known[ix.Skills.Name(i)] = true
	}
	tok := ix.Tokenizer()
	for _, r := range records {
		if r.Validate() != nil {
			continue
		}
		if r.Routed != "" && !known[r.Routed] || r.Corrected != "" && !known[r.Corrected] {
			w.Skipped++
			continue
		}
		if r.Routed == "" && r.Corrected == "" {
			continue // an abstention confirmed: no skill to move
		}
		w.Records++
		weight := Decay(now.Sub(r.TS), r.Kind)
		q := tok.Tokenize(r.Query)
		negated := map[string]bool{}
		for _, t := range q.Terms {
			if t.Negated {
				negated[t.Text] = true
			}
		}
		results := bm25.Score(ix, q)
		add := func(skill string, by float64) {
			matched := map[string]bool{}
			for _, res := range results {
				if res.Name == skill {
					for _, m := range res.Matches {
						matched[m.Term] = true
					}
				}
			}
			for _, t := range q.Terms {
				if t.Negated || t.From != "" || matched[t.Text] || float64(ix.DocFreq(t.Text)) >= AddDistinctive*float64(ix.Skills.Len()) {
					continue
				}
				if w.Added[skill] == nil {
					w.Added[skill] = map[string]float64{}
				}
				w.Added[skill][t.Text] += by
			}
		}
		move := func(skill string, by float64, whole bool) {
			if skill == "" {
				return
			}
			if whole {
				w.Skill[skill] += by
			}
			for _, res := range results {
				if res.Name != skill {
					continue
				}
				for _, m := range res.Matches {
					if negated[m.Query] {
						continue
					}
					if w.Keyword[skill] == nil {
						w.Keyword[skill] = map[string]float64{}
					}
					w.Keyword[skill][m.Term] += by
				}
			}
		}
		if r.IsCorrection() {
			move(r.Corrected, weight, true)
			move(r.Routed, -weight, true)
			if r.Corrected != "" {
				add(r.Corrected, weight)
			}
		} else {
			move(r.Routed, ConfirmFactor*weight, false)
		}
	}
	w.normalize()
	return w
}

// normalize clamps every term delta to ±MaxDelta, every skill delta to
// ±MaxSkillDelta and every added keyword to (0, MaxDelta], and drops
// zeros and values that are not numbers (a hand-edited file).
func (w *Weights) normalize() {
	if w.Keyword == nil {
		w.Keyword = map[string]map[string]float64{}
	}
	if w.Skill == nil {
		w.Skill = map[string]float64{}
	}
	clampTerms(w.Keyword, -MaxDelta)
	if w.Added != nil {
		clampTerms(w.Added, 0)
		if len(w.Added) == 0 {
			w.Added = nil
		}
	}
	for skill, d := range w.Skill {
		if d = clampDelta(d, -MaxSkillDelta, MaxSkillDelta); d == 0 {
			delete(w.Skill, skill)
		} else {
			w.Skill[skill] = d
		}
	}
}

// clampTerms clamps skill -> term -> delta maps to [low, MaxDelta],
// dropping zeros and emptied skills.
func clampTerms(m map[string]map[string]float64, low float64) {
	for skill, terms := range m {
		for term, d := range terms {
			if d = clampDelta(d, low, MaxDelta); d == 0 {
				delete(terms, term)
			} else {
				terms[term] = d
			}
		}
		if len(terms) == 0 {
			delete(m, skill)
		}
	}
}

func clampDelta(d, low, high float64) float64 {
	if math.IsNaN(d) || math.Abs(d) < deltaFloor {
		return 0
	}
	return math.Max(low, math.Min(high, d))
}

// Save writes the weights as JSON to path, atomically (temp file and
// rename), in a header naming their kind and version: a reader sees the
// old weights or the new, never half.
func (w *Weights) Save(path string) error {
	if err := weightsCodec.Write(path, w); err != nil {
		return fmt.Errorf("weights: %w", err)
	}
	return nil
}

// LoadWeights reads weights saved by Save (or by versions before the
// header). A missing file is an error wrapping fs.ErrNotExist; weights of
// another WeightsVersion, or damaged, an error naming the file (relearn).
// Deltas beyond ±MaxDelta (a hand edit) are clamped.
func LoadWeights(path string) (*Weights, error) {
	var w Weights
	if err := weightsCodec.Read(path, &w); err != nil {
		return nil, fmt.Errorf("weights: %w", err)
	}
	w.normalize()
	return &w, nil
}

// Snapshots live in dir/snapshots as weights-N.json, N counting up (a
// store.Series: numbered, so that a clock set back cannot reorder them;
// those of older versions, weights-<UTC time>.json, count as older).
const snapshotDir = "snapshots"

func snapshots(dir string) store.Series {
	return store.Series{Dir: filepath.Join(dir, snapshotDir), Prefix: "weights-", Suffix: ".json"}
}

// Snapshot saves w, the weights about to be replaced, as the newest of
// dir/snapshots/weights-N.json and deletes all but the newest
// MaxSnapshots snapshots. A nil w (nothing learned yet) saves nothing.
func Snapshot(dir string, w *Weights) error {
	if w == nil {
		return nil
	}
	s := snapshots(dir)
	ctx, cancel := context.WithTimeout(context.Background(), snapshotLockWait)
	defer cancel()
	err := store.Lock(ctx, s.Dir, func() error {
		name, err := s.Next()
		if err != nil {
			return err
		}
		if err := weightsCodec.Write(name, w); err != nil {
			return err
		}
		return s.Prune(MaxSnapshots)
	})
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return nil
}

// Snapshots returns the paths of the saved snapshots, newest first. No
// snapshots folder means none.
func Snapshots(dir string) ([]string, error) {
	names, err := snapshots(dir).List()
	if err != nil {
		return nil, fmt.Errorf("snapshots: %w", err)
	}
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	return names, nil
}

// Rollback restores the n-th newest snapshot (1 = the latest) as
// dir/weights.json and returns it. The weights it replaces are not
// snapshotted, so that rolling back twice walks further back instead of
// toggling; they can always be relearned from the log.
func Rollback(dir string, n int) (*Weights, error) {
	var w *Weights
	err := lockWeights(dir, func() error {
		names, err := Snapshots(dir)
		if err != nil {
			return err
		}
		if n < 1 || n > len(names) {
			return fmt.Errorf("no snapshot %d (%d kept)", n, len(names))
		}
		if w, err = LoadWeights(names[n-1]); err != nil {
			return err
		}
		return w.Save(filepath.Join(dir, WeightsFile))
	})
	if err != nil {
		return nil, fmt.Errorf("rollback: %w", err)
	}
	return w, nil
}

// lockWeights runs fn under the lock of dir/weights.json, so that two
// learners replacing or rolling back at once take turns.
func lockWeights(dir string, fn func() error) error {
	ctx, cancel := context.WithTimeout(context.Background(), snapshotLockWait)
	defer cancel()
	return store.Lock(ctx, filepath.Join(dir, WeightsFile), fn)
}

// Replace snapshots the weights currently in dir/weights.json (if any)
// and saves w in their place: what adopting new weights takes. A current
// file that cannot be read (corrupt, another version) is kept beside the
// snapshots as weights-unreadable-N.bak rather than lost.
func Replace(dir string, w *Weights) error {
	path := filepath.Join(dir, WeightsFile)
	return lockWeights(dir, func() error {
		old, err := LoadWeights(path)
		if errors.Is(err, fs.ErrNotExist) {
			// Nothing learned yet: the snapshot is the empty state, so that
			// a rollback can return to routing without learned weights.
			old, err = &Weights{Keyword: map[string]map[string]float64{}, Skill: map[string]float64{}}, nil
		}
		switch {
		case err == nil:
			if err := Snapshot(dir, old); err != nil {
				return err
			}
		case !errors.Is(err, fs.ErrNotExist):
			if data, rerr := os.ReadFile(path); rerr == nil {
				bak, err := store.Series{Dir: filepath.Join(dir, snapshotDir), Prefix: "weights-unreadable-", Suffix: ".bak"}.Next()
				if err == nil {
					err = store.WriteFile(bak, data)
				}
				if err != nil {
					return fmt.Errorf("snapshot: %w", err)
				}
			}
		}
		return w.Save(path)
	})
}
