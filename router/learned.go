package router

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/explain"
	"github.com/skillroute/skillroute/learn/memory"
)

// What the user taught has the last word. The rules are the project's
// guess about a kind of prompt and the calibration table a statistic
// over many; a correction is the user's word about this one. So the
// learned stage runs after both: the prompt memory's verdict (see package
// memory) may put the taught skill above a skill a rule boosted, or above
// the rule's rank verdict, and --explain shows the rule's node inside the
// memory's.
const (
	// PinMargin is how far above the best other candidate a pinned skill
	// is put: enough that it is no near tie (a margin of 0.23 of its
	// score, past TieMargin: the user's word reads as sure), not so far
	// that the runner-up's name is dropped from the candidates.
	PinMargin = 0.3
	// PinFloor is the least score a pinned skill gets, so that the user's
	// word reads as sure (confidence 0.75, HIGH) even when nothing else
	// matched the prompt: two clear keyword hits' worth (2 × ScoreScale).
	// On a calibrated catalog the floor is at least the score that reads
	// HIGH there with any rival (pinFloor).
	PinFloor = 2 * ScoreScale
)

// applyLearned applies what the user taught, after the rules and the
// calibration table: first the learner's weights (applyWeights), then the
// prompt memory. The vector of the prompt's terms (kept in the decision,
// so that a later verdict on this route can be remembered) is recalled
// against the remembered prompts, and their verdict moves the taught
// skill up (see pinned), or silences the route when the users said no
// skill was right. With neither weights nor a memory it only keeps the
// vector: routing is unchanged.
func applyLearned(r *Router, st *route) {
	applyWeights(r, st)
	v := st.recall(r)
	if !v.Acts() {
		return
	}
	what := recalled(v, r.Memory.Now)
	if v.None {
		if v.Pins() {
			st.silence = true
			st.decision.Memory = what + ": no skill is recommended"
		}
		return
	}
	id := r.Index.Resolve(v.Skill)
	if id < 0 {
		return // taught a skill since removed from the catalog
	}
	skill := r.Index.Skills.Name(id)
	i := -1
	for k := range st.cands {
		if st.cands[k].Skill == skill {
			i = k
			break
		}
	}
	if i < 0 {
		st.cands = append(st.cands, disambig.Candidate{Skill: skill})
		i = len(st.cands) - 1
	}
	before := st.cands[0].Skill
	c := &st.cands[i]
	floor := r.pinFloor()
	old, target := c.Score, pinned(st.cands, i, floor)
	if v.Pins() {
		c.Score = max(c.Score, target)
		st.silence = false // the user's word over the table's "no skill helps here"
	} else if target > c.Score {
		c.Score += v.Evidence / memory.PinAt * (target - c.Score)
	}
	if r.Explain {
		msg := fmt.Sprintf("%s: evidence %.2f", what, v.Evidence)
		if v.Pins() {
			msg += fmt.Sprintf(" ≥ %.2f, put first (max(%.2f × best other, %.2f))", memory.PinAt, 1+PinMargin, floor)
		} else {
			msg += fmt.Sprintf(" < %.2f, moved %.0f%% of the way to first", memory.PinAt, 100*v.Evidence/memory.PinAt)
		}
		if c.Explain == nil {
			c.Explain = &explain.Node{Value: old, Message: "not matched by the prompt's words"}
		}
		c.Explain = explain.Wrap(c.Score, msg, c.Explain)
	}
	sortCandidates(st.cands)
	st.decision.Memory = fmt.Sprintf("%s (evidence %.2f)", what, v.Evidence)
	if st.cands[0].Skill == skill {
		st.remembered = skill
		if before != skill {
			st.decision.Memory += fmt.Sprintf("; it decided over %s", before)
		}
	}
}

// additions is what learned weights may hold besides bm25.Adjuster:
// keywords a skill did not have (learn.Weights.Additions), skill -> term
// -> delta.
type additions interface {
	Additions() map[string]map[string]float64
}

// applyWeights adds to each candidate what the learner's weights change
// in its BM25 score (scored with and without them by the score stage),
// and what its learned keywords score, after the rules rather than
// before: a rule's boost and rank verdict judge the prompt as the catalog
// has it, and the user's corrections come on top. Without weights it does
// nothing.
func applyWeights(r *Router, st *route) {
	if st.base == nil {
		return
	}
	gain := map[string]float64{}
	for _, res := range st.results {
		gain[res.Name] += res.Score
	}
	for _, res := range st.base {
		gain[res.Name] -= res.Score
	}
	added := map[string]float64{}
	if a, ok := r.Weights.(additions); ok {
		// A learned keyword scores as a keyword of tf delta × IDF would,
		// in a skill of average length.
		for skill, terms := range a.Additions() {
			for _, t := range st.query.Terms {
				if d := terms[t.Text]; d > 0 && t.From == "" {
					tf := d * memory.IDF(r.Index, t.Text)
					added[skill] += t.Weight * tf * (bm25.K1 + 1) / (tf + bm25.K1)
				}
			}
		}
		for skill := range added {
			if r.Index.Resolve(skill) < 0 {
				delete(added, skill) // learned for a skill since removed
			}
		}
	}
	share := st.share()
	pos := map[string]int{}
	for i, c := range st.cands {
		pos[c.Skill] = i
	}
	for name, a := range added {
		gain[name] += a
	}
	changed := false
	for _, name := range slices.Sorted(maps.Keys(gain)) {
		change := gain[name] * share
		if change == 0 {
			continue
		}
		changed = true
		i, ok := pos[name]
		if !ok {
			// Found by its learned keywords alone: it enters with them.
			st.cands = append(st.cands, disambig.Candidate{Skill: name, Score: max(0, change)})
			if r.Explain {
				st.cands[len(st.cands)-1].Explain = &explain.Node{Value: max(0, change), Message: "learned keywords only (words of prompts corrected to it)"}
			}
			continue
		}
		c := &st.cands[i]
		c.Score = max(0, c.Score+change)
		if r.Explain {
			msg := fmt.Sprintf("learned weights, after the rules: %+.4f", change)
			if added[name] != 0 {
				msg += fmt.Sprintf(" (learned keywords %+.4f)", added[name]*share)
			}
			c.Explain = explain.Wrap(c.Score, msg, c.Explain)
		}
	}
	if changed {
		sortCandidates(st.cands)
	}
}

// sortCandidates orders candidates by score, then name.
func sortCandidates(cands []disambig.Candidate) {
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].Score != cands[b].Score {
			return cands[a].Score > cands[b].Score
		}
		return cands[a].Skill < cands[b].Skill
	})
}

// pinned is the score that puts candidate i first: PinMargin above the
// best other candidate, and at least floor.
func pinned(cands []disambig.Candidate, i int, floor float64) float64 {
	top := 0.0
	for k, c := range cands {
		if k != i {
			top = max(top, c.Score)
		}
	}
	return max(top*(1+PinMargin), floor)
}

// pinFloor is the least score of a pinned skill: PinFloor, or on a
// calibrated catalog whose HIGH line lies higher, the score that reads
// HIGH there even against a tied rival (the line over MarginFloor).
// Without it, a catalog whose HIGH line lies past PinFloor (real-dev's
// does) read a correction as unsure, and the quiet stage could silence it.
func (r *Router) pinFloor() float64 {
	s := r.scale()
	if !s.calibrated {
		return PinFloor
	}
	return max(PinFloor, s.high/MarginFloor)
}

// recalled says in a few words what the memory found.
func recalled(v memory.Verdict, now time.Time) string {
	skill := v.Skill
	if v.None {
		skill = "no skill"
	}
	near := "1 remembered prompt"
	if v.Near > 1 {
		near = fmt.Sprintf("%d remembered prompts", v.Near)
	}
	var events string
	switch {
	case v.Corrections > 0 && v.Confirmations > 0:
		events = fmt.Sprintf("%d corrections, %d confirmations", v.Corrections, v.Confirmations)
	case v.Corrections == 1:
		events = "1 correction"
	case v.Corrections > 1:
		events = fmt.Sprintf("%d corrections", v.Corrections)
	case v.Confirmations == 1:
		events = "1 confirmation"
	default:
		events = fmt.Sprintf("%d confirmations", v.Confirmations)
	}
	return fmt.Sprintf("prompt memory: %s near this one (cosine %.2f; %s, the last %s ago) taught %s",
		near, v.Best, events, age(now.Sub(v.Last)), skill)
}

// age renders a duration coarsely: "3 min", "5 h", "2 days".
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "moments"
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}
