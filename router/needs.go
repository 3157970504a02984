package router

import (
	"strings"

	"github.com/skillroute/skillroute/learn"
)

// needs says which BM25 results the stages after scoring can use, so that
// scoring (bm25.TopK) finds those and skips the rest of the catalog: the
// MaxCandidates best, one more for every skill a fired rule may lower
// (its penalties, and the boosts a more specific rule may put below its
// own: each can drop out of the list and let the next one in), and,
// whatever their rank, the skills a later stage may raise: those the
// session's signals name (given, or computed from the recent skills and
// what they enhance), those fired rules boost, and the calibration
// table's arm for the prompt. No other skill can reach the listed
// candidates, so the decision is the one scoring every skill gives
// (TestRouteGolden, bm25.TestTopKExact).
func (r *Router) needs(prompt string, sig Signals, recent []string) (k int, also []int) {
	ix := r.Index
	if scoreEverySkill {
		return len(ix.Skills), nil
	}
	add := func(name string) {
		if id := ix.Resolve(name); id >= 0 {
			also = append(also, id)
		}
	}
	for _, signal := range []map[string]float64{sig.Context, sig.Project, sig.Workflow} {
		for name := range signal {
			add(name)
		}
	}
	for _, name := range recent {
		add(name)
		for _, e := range r.enhances(name) {
			add(e)
		}
	}
	k = MaxCandidates
	if r.Rules != nil {
		lowered := map[string]bool{}
		for _, rule := range r.Rules.Fired(strings.ToLower(prompt)) {
			if rule.Boost != "" {
				add(rule.Boost)
				lowered[rule.Boost] = true
			}
			for _, p := range rule.Penalty {
				lowered[p] = true
			}
		}
		k += len(lowered)
	}
	if r.Table != nil {
		if arm := r.Table.Lookup(learn.Classify(prompt)).Arm; arm != "" {
			add(arm)
		}
	}
	return k, also
}

// scoreEverySkill makes needs ask for every skill: what TestNeedsExact
// compares the pruned decisions with.
var scoreEverySkill = false
