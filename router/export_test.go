package router

// ScoreEverySkill turns pruned scoring off (on) or back on, for the
// tests that compare the two.
func ScoreEverySkill(on bool) { scoreEverySkill = on }
