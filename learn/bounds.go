package learn

// MaxDeltas returns the largest keyword delta and the largest skill delta
// the weights hold (0 when none is positive), so that the router's pruned
// scoring (bm25.TopK, through bm25.Bounded) keeps its bounds true with
// learned weights. It looks at every entry: weights files hold a few
// hundred, a fraction of routing's cost.
func (w *Weights) MaxDeltas() (keyword, skill float64) {
	if w == nil {
		return 0, 0
	}
	for _, terms := range w.Keyword {
		for _, d := range terms {
			if d > keyword { // never NaN
				keyword = d
			}
		}
	}
	for _, d := range w.Skill {
		if d > skill {
			skill = d
		}
	}
	return keyword, skill
}
