package eval_test

import (
	"os"
	"testing"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	shared   = "../../shared/"
	bookworm = shared + "bookworm/"
)

func evaluate(t *testing.T, opt router.Options, file string) eval.Summary {
	t.Helper()
	if _, err := os.Stat(file); err != nil {
		t.Skipf("%s is not present beside the project; skipping (%v)", file, err)
	}
	f, err := eval.Read(file)
	require.NoError(t, err)
	r, err := router.Open(opt)
	require.NoError(t, err)
	rep := eval.Summarize(eval.RouteCases(r, f.Cases))
	t.Logf("%s: %+v", file, rep.Summary)
	return rep.Summary
}

// The side-by-side comparison: on the peer's own catalog, rules and
// synonyms, strict top-1 on its golden set must reach 85 % (the Node.js
// router scores 78.3 %). The peer never abstains (it falls back to a
// generalist), and its golden set has no "none" prompts, so the first
// candidate is compared; top-1 with abstentions counted as misses is
// logged beside it and bounded too.
func TestBookwormGoldenTop1(t *testing.T) {
	if _, err := os.Stat(bookworm + "skills-index.json"); err != nil {
		t.Skip("../shared/bookworm is not present; the side-by-side test needs the peer's data")
	}
	s := evaluate(t, router.Options{
		Catalog:  bookworm + "skills-index.json",
		Rules:    bookworm + "disambiguation-rules.json",
		Synonyms: bookworm + "synonyms.json",
	}, bookworm+"golden-dev.jsonl")
	assert.GreaterOrEqual(t, s.Top1Ranked, 0.85, "ranked top-1")
	assert.GreaterOrEqual(t, s.Top1, 0.82, "top-1 with abstentions as misses")
}

// Accuracy of the built-in catalog on the labelled dev prompts. The bounds
// sit a little under the measured values (README) so that a regression
// fails CI.
func TestBuiltinDevAccuracy(t *testing.T) {
	s := evaluate(t, router.Options{Catalog: router.Builtin}, shared+"eval/dev.jsonl")
	assert.GreaterOrEqual(t, s.Top1, 0.95, "top-1")
	assert.GreaterOrEqual(t, s.Top3, 0.98, "top-3")
	assert.GreaterOrEqual(t, s.NoneCorrect, 0.90, "none prompts abstained")
	assert.LessOrEqual(t, s.FalseAbstain, 0.03, "skill prompts wrongly abstained")
}

// Plain skills (name and description only) must route well too: with every
// keyword tier derived from the text, top-1 stays above 70 %.
func TestDerivedKeywordsAccuracy(t *testing.T) {
	s := evaluate(t, router.Options{Catalog: router.Builtin, DeriveKeywords: true}, shared+"eval/dev.jsonl")
	assert.GreaterOrEqual(t, s.Top1, 0.90, "top-1 with derived keywords")
}
