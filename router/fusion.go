package router

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/explain"
	"github.com/skillroute/skillroute/index"
)

// Follow-up handling. A continuation ("也照样补上", "go on") or a prompt too
// weak to route on its own ("帮我优化一下": its own confidence would
// abstain) carries on with the skill in use: its context
// is that skill at full strength (sctx.ContinuationScores), not the spread
// over what the recent skills enhance, which says where a session may go
// next. In a continuation the words left after the cues name the object
// ("详情页", "the next function"), not a new task, so its BM25 scores count
// ContinuationBM25 of their weight. Measured on sessions-dev.jsonl: see
// the README.
const ContinuationBM25 = 0.5

// Fusion weights, the seed's linear design: final = bm25×0.6 +
// context×5×0.2 + project×5×0.1 + workflow×5×0.1. Linear, so the context
// still counts when BM25 finds nothing ("帮我优化一下" after a frontend
// turn). CtxBase (5) lifts the [0, 1] signals to the scale of BM25 scores.
// The prompt keeps the largest weight so a clear new request beats the
// context: a full context signal (1.0 → 1.0 after weighting) is worth
// about one distinctive keyword (≈ 1.7 × 0.6).
const (
	WeightBM25     = 0.6
	WeightContext  = 0.2
	WeightProject  = 0.1
	WeightWorkflow = 0.1
	CtxBase        = 5.0
)

// fuseSignals adds the signals to the BM25 scores (ContinuationBM25 of
// them in a continuation): those without the learner's weights, which
// the learned stage adds after the rules.
func fuseSignals(r *Router, st *route) {
	st.complete(r)
	results := st.results
	if st.base != nil {
		results = st.base
	}
	st.cands = fuse(r.Index, results, st.share(), st.signals, r.Explain)
}

// share is the part of the BM25 scores a candidate's score holds:
// ContinuationBM25 in a continuation, else all.
func (st *route) share() float64 {
	if st.continues {
		return ContinuationBM25
	}
	return 1
}

// fuse combines BM25 results with the signals. The result is divided by
// WeightBM25, so that with no signals a score is the BM25 score itself and
// confidence reads the same with or without a session.
//
// share scales the BM25 part (ContinuationBM25 in a continuation).
func fuse(ix *index.Index, results []bm25.Result, share float64, sig Signals, explained bool) []disambig.Candidate {
	cands := make([]disambig.Candidate, 0, len(results))
	pos := map[string]int{}
	for i := range results {
		r := &results[i]
		pos[r.Name] = len(cands)
		c := disambig.Candidate{Skill: r.Name, Score: r.Score * share}
		if explained {
			c.Explain = r.Explain(ix)
			if share != 1 {
				c.Explain = explain.Wrap(c.Score, fmt.Sprintf("continuation: the prompt's own words count × %.1f", share), c.Explain)
			}
		}
		cands = append(cands, c)
	}
	add := func(signal map[string]float64, weight float64, what string) {
		for name, v := range signal {
			id := ix.Resolve(name)
			if v <= 0 || id < 0 {
				continue
			}
			name = ix.Skills.Name(id)
			part := v * CtxBase * weight / WeightBM25
			i, ok := pos[name]
			if !ok {
				i = len(cands)
				pos[name] = i
				cands = append(cands, disambig.Candidate{Skill: name})
			}
			c := &cands[i]
			c.Score += part
			if !explained {
				continue
			}
			c.Explain = explain.Wrap(c.Score, fmt.Sprintf("+ %s %.2f × %.0f × %.1f / %.1f", what, v, CtxBase, weight, WeightBM25), c.Explain)
		}
	}
	add(sig.Context, WeightContext, "session context")
	add(sig.Project, WeightProject, "project type")
	add(sig.Workflow, WeightWorkflow, "workflow")
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].Score != cands[j].Score {
			return cands[i].Score > cands[j].Score
		}
		return cands[i].Skill < cands[j].Skill
	})
	return cands
}

// maxEvidence is how many matched terms a candidate names as its reasons.
const maxEvidence = 3

// evidence says in a few words why a listed candidate scored: its best
// matched terms, the session signals that counted, the rules that boosted
// it. Built for the few candidates a decision lists, not for every skill
// scored (it was a third of routing's allocations).
func evidence(skill string, results []bm25.Result, sig Signals, fired []*disambig.Rule) []string {
	var out []string
	for i := range results {
		if results[i].Name != skill {
			continue
		}
		seen := map[string]bool{}
		for _, m := range results[i].Matches {
			if len(out) == maxEvidence {
				break
			}
			word := m.Surface // the user's word, not its stem
			if word == "" {
				word = m.Term
			}
			if !seen[word] {
				seen[word] = true
				out = append(out, strconv.Quote(word))
			}
		}
		break
	}
	for _, s := range []struct {
		signal map[string]float64
		what   string
	}{{sig.Context, "session context"}, {sig.Project, "project type"}, {sig.Workflow, "workflow"}} {
		if s.signal[skill] > 0 {
			out = append(out, s.what)
		}
	}
	for _, r := range fired {
		if r.Boost == skill {
			out = append(out, "rule "+r.ID)
		}
	}
	return out
}
