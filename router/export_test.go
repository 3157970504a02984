package router

// ScoreEverySkill turns pruned scoring off (on) or back on, for the
// tests that compare the two.
func ScoreEverySkill(on bool) { scoreEverySkill = on }

// WithoutStage runs the pipeline without the named stage until restore is
// called, for the tests that measure what a stage does.
func WithoutStage(name string) (restore func()) {
	saved := pipeline
	pipeline = nil
	for _, s := range saved {
		if s.name != name {
			pipeline = append(pipeline, s)
		}
	}
	return func() { pipeline = saved }
}
