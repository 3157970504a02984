package router

import (
	"fmt"
	"sort"

	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/explain"
	"github.com/skillroute/skillroute/learn/calibrate"
)

// PriorBoost is how much a calibration table's pick for the prompt's
// category gains when it is among the candidates: enough to decide a near
// tie (the table has seen that arm succeed more for this kind of task), not
// enough to overturn a clear keyword match.
const PriorBoost = 0.25

// applyPrior lets the calibration table act among the candidates: its arm
// for the prompt's category, when calibrated (or given by the user's
// fallback table) and present, gains PriorBoost; a calibrated verdict of no
// arm at all (no skill was ever right for this category) means no
// injection. It returns what it did, for --explain, or "" when the table
// had nothing to say, and whether to abstain.
func applyPrior(r *Router, st *route) {
	if r.Table == nil || len(st.cands) == 0 {
		return
	}
	st.prior, st.silence = r.prior(st.category(), st.cands)
}

func (r *Router) prior(cat string, cands []disambig.Candidate) (string, bool) {
	e := r.Table.Lookup(cat)
	switch {
	case e.Level == calibrate.LevelPrior:
		return "", false
	case e.Arm == "" && e.Level == calibrate.LevelCalibrated:
		return fmt.Sprintf("calibrated table (%s): no skill has helped %q prompts, so none is injected", r.Table.Preset, cat), true
	case e.Arm == "":
		return "", false
	}
	for i := range cands {
		if cands[i].Skill != e.Arm {
			continue
		}
		before := cands[0].Skill
		cands[i].Score *= 1 + PriorBoost
		if r.Explain {
			cands[i].Explain = explain.Wrap(cands[i].Score, fmt.Sprintf("calibration prior × (1 + %.2f): the %s table's pick for %q prompts", PriorBoost, e.Level, cat), cands[i].Explain)
		}
		sort.SliceStable(cands, func(a, b int) bool { return cands[a].Score > cands[b].Score })
		msg := fmt.Sprintf("%s table (%s) favours %s for %q prompts", e.Level, r.Table.Preset, e.Arm, cat)
		if cands[0].Skill != before {
			msg += fmt.Sprintf("; it decided over %s", before)
		}
		return msg, false
	}
	return "", false
}
