package router

import (
	"slices"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/learn/memory"
)

// Pruned scoring. The score stage asks bm25.TopK for the few skills the
// stages after it can list, not for every skill the prompt reaches: k is
// MaxCandidates, plus one for every skill a fired rule may lower (its
// penalties, and the boosts a more specific rule may put below its own:
// each can drop out of the list and let the next one in). Before fusing,
// the lists are completed (complete): every skill a later stage may
// raise, whatever its rank, is scored too: those the session's signals
// name, those fired rules boost or penalise, the calibration table's arm
// for the prompt, the skills the learner gave keywords the prompt holds,
// and the skill the prompt memory taught; and with learned weights, the
// scores with and without them cover the same skills (the learned stage
// adds their difference). No other skill can reach the listed
// candidates, so the decision is the one scoring every skill gives
// (TestPrunedRoutingExact, TestRouteGolden).

// needed is how many of the best BM25 results the stages after scoring
// can use: MaxCandidates and one per skill a fired rule may lower.
func (r *Router) needed(st *route) int {
	if scoreEverySkill {
		return r.Index.Skills.Len()
	}
	r.pin(st)
	return MaxCandidates + st.lowered
}

// also lists the skills, by id, that a stage after scoring may raise or
// act on whatever their BM25 rank (see Pruned scoring). Before the
// signals stage (signals false) it lists all but the session's skills:
// scoring takes those in its first pass, and complete then scores only
// what the session adds, mostly nothing (a second pass over the prompt's
// terms was a tenth of BenchmarkRoute).
func (r *Router) also(st *route, signals bool) []int {
	r.pin(st)
	if !signals {
		return st.pinned
	}
	out := slices.Clone(st.pinned)
	for _, signal := range []map[string]float64{st.signals.Context, st.signals.Project, st.signals.Workflow} {
		for name := range signal {
			if id := r.Index.Resolve(name); id >= 0 && !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// pin works out, once per route, the skills a stage after scoring acts on
// whatever their rank, but the session's (st.pinned): those fired rules
// boost or penalise (st.lowered counts them by name: each may drop out of
// the first MaxCandidates), the calibration table's arm for the prompt,
// the skills the learner gave keywords the prompt holds, and the skill the
// prompt memory taught.
func (r *Router) pin(st *route) {
	if st.pinnedDone {
		return
	}
	st.pinnedDone = true
	ix := r.Index
	add := func(name string) {
		if id := ix.Resolve(name); id >= 0 && !slices.Contains(st.pinned, id) {
			st.pinned = append(st.pinned, id)
		}
	}
	if r.Rules != nil {
		var lowered []string // few: a prompt fires a rule or two
		lower := func(name string) {
			if name != "" && !slices.Contains(lowered, name) {
				lowered = append(lowered, name)
				add(name)
			}
		}
		for _, rule := range st.firing(r).Rules {
			lower(rule.Boost)
			for _, name := range rule.Penalty {
				lower(name)
			}
		}
		st.lowered = len(lowered)
	}
	if r.Table != nil {
		if arm := r.Table.Lookup(st.category()).Arm; arm != "" {
			add(arm)
		}
	}
	if a, ok := r.Weights.(additions); ok {
		for skill, terms := range a.Additions() {
			for _, t := range st.query.Terms {
				if terms[t.Text] > 0 && t.From == "" {
					add(skill)
					break
				}
			}
		}
	}
	if v := st.recall(r); v.Acts() && !v.None {
		add(v.Skill)
	}
}

// recall asks the prompt memory about the prompt, once: the learned stage
// acts on the verdict, and pruned scoring scores the skill it names.
func (st *route) recall(r *Router) memory.Verdict {
	if !st.recalled {
		st.recalled = true
		st.decision.Terms = memory.Vectorize(r.Index, st.query)
		if r.Memory.Len() > 0 {
			st.verdict = r.Memory.Recall(st.decision.Terms)
		}
	}
	return st.verdict
}

// complete scores, exactly, the skills a later stage may need that the
// pruned scoring left out (see Pruned scoring), with and without the
// learner's weights, so that both lists hold the same skills.
func (st *route) complete(r *Router) {
	if scoreEverySkill {
		return
	}
	want := r.also(st, true)
	for _, list := range [][]bm25.Result{st.results, st.base} {
		for i := range list {
			if !slices.Contains(want, list[i].Skill) {
				want = append(want, list[i].Skill)
			}
		}
	}
	fill := func(have []bm25.Result, adj bm25.Adjuster) []bm25.Result {
		var missing []int
		for _, id := range want {
			// A pinned skill was asked for in the first pass: absent, the
			// prompt does not reach it. Asking again cost a second cut of
			// the index for most prompts (4.6 % of BenchmarkRoute).
			if !slices.ContainsFunc(have, func(res bm25.Result) bool { return res.Skill == id }) && !slices.Contains(st.pinned, id) {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			return have
		}
		more := bm25.TopK(r.Index, st.scoredQuery, adj, 0, missing)
		if len(more) == 0 {
			return have
		}
		have = append(have, more...)
		bm25.Sort(have)
		return have
	}
	st.results = fill(st.results, r.Weights)
	if st.base != nil {
		st.base = fill(st.base, nil)
	}
	st.keepLoadable(r) // a skill a signal names may be one with paths
}

// scoreEverySkill makes scoring rank every skill the prompt reaches, as
// without pruning: what TestPrunedRoutingExact compares the pruned
// decisions with.
var scoreEverySkill = false
