package bm25

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/skills"
)

// TestTopKPrunes protects the point of TopK: on a catalog where common
// words reach thousands of skills, it scores a small share of the skills
// the prompt reaches (TestTopKExact checks that it finds the same ones).
func TestTopKPrunes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cat")
	set, err := synth.Write(dir, synth.Options{Skills: 1200, Seed: 11, Queries: 80})
	require.NoError(t, err)
	cat, err := skills.LoadDir(dir)
	require.NoError(t, err)
	ix := index.Compile(cat, nil, index.Options{})
	reached, scored := 0, 0
	for _, q := range set.Queries {
		tq := ix.Tokenizer().Tokenize(q.Query)
		reached += len(Score(ix, tq))
		p := pruner{ix: ix}
		p.reach(tq, 1)
		p.sift(5, 1)
		scored += p.scored
	}
	require.Positive(t, reached)
	assert.Less(t, float64(scored)/float64(reached), 0.15, "scored %d of the %d skills reached", scored, reached)
}
