package bm25

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// generated compiles a generated catalog, and returns its labelled prompts.
func generated(t testing.TB, opt synth.Options) (*index.Index, *synth.Set) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "cat")
	set, err := synth.Write(dir, opt)
	require.NoError(t, err)
	cat, err := skills.LoadDir(dir)
	require.NoError(t, err)
	return index.Compile(cat, nil, index.Options{}), set
}

// TestTopKPrunes protects the point of TopK: on a catalog where common
// words reach thousands of skills, it scores a small share of the skills
// the prompt reaches (TestTopKExact checks that it finds the same ones):
// 496 of 52,247 with its postings' bounds, 1,886 with its segments'
// bounds alone.
func TestTopKPrunes(t *testing.T) {
	ix, set := generated(t, synth.Options{Skills: 1200, Seed: 11, Queries: 80})
	reached, scored := 0, 0
	for _, q := range set.Queries {
		tq := ix.Tokenizer().Tokenize(q.Query)
		reached += len(Score(ix, tq))
		p := pruner{ix: ix}
		p.reach(tq, 1)
		p.sift(5, 1, restBound)
		scored += p.scored
	}
	require.Positive(t, reached)
	assert.Less(t, float64(scored)/float64(reached), 0.03, "scored %d of the %d skills reached", scored, reached) // 1 % when written
}

// TestSiftExact protects each way sift prunes: with no cursor set aside,
// with some, and with all (the walk then finds nothing and walks them
// after all), the k best are those of scoring every skill, on a
// generated catalog's prompts and on prompts of words most skills use.
func TestSiftExact(t *testing.T) {
	ix, set := generated(t, synth.Options{Skills: 800, Seed: 3, Queries: 40})
	queries := []string{"need fixing", "how do I set up this with that", "what's the best way", "帮我看看 怎么配置", "the"}
	for _, q := range set.Queries {
		queries = append(queries, q.Query)
	}
	setAside := 0
	for _, limit := range []float64{0, 0.3, restBound, 4, math.Inf(1)} {
		for _, prompt := range queries {
			q := ix.Tokenizer().Tokenize(prompt)
			all := Score(ix, q)
			for _, k := range []int{1, 5} {
				p := pruner{ix: ix}
				p.reach(q, 1)
				p.sift(k, 1, limit)
				for _, c := range p.cursors {
					if c.rest {
						setAside++
					}
				}
				got := p.results(nil)
				if len(all) == 0 {
					require.Empty(t, got, prompt)
					continue
				}
				require.Equal(t, cut(slices.Clone(all), k, nil), got, "limit %v, k=%d: %q", limit, k, prompt)
			}
		}
	}
	assert.Positive(t, setAside, "some cursors stay set aside")
}

// TestScaled protects the bound of a match whose tf is scaled (a partial
// match's rarity, a learned delta): exactly BM25's score of the scaled
// tf below 1, whatever the skill's length, and never under it above.
func TestScaled(t *testing.T) {
	bm := func(tf, dl, avg float64) float64 { return tf * (K1 + 1) / (tf + K1*(1-B+B*dl/avg)) }
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		tf, dl, avg := rng.Float64()*20, 0.5+rng.Float64()*10, 1+rng.Float64()*5
		c := rng.Float64() * 2
		want := bm(c*tf, dl, avg)
		got := scaled(bm(tf, dl, avg), c)
		if c < 1 {
			require.InEpsilon(t, want, got, 1e-9, "tf %v dl %v c %v", tf, dl, c)
		} else {
			require.GreaterOrEqual(t, got*(1+1e-12), want, "tf %v dl %v c %v", tf, dl, c)
		}
	}
	assert.Equal(t, 3.0, scaled(3, 0.5), "past any score: only a rounded bound, kept")
}

// TestPackingBound protects the packed bound of overlapping words: for
// matches that cover the spans (a word's span is what all its terms'
// cover), each scoring at most its span's bound, the packed score
// (packing.independent) never passes packing.bound.
func TestPackingBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var pk, pb packing
	for range 3000 {
		n := 1 + rng.IntN(6)
		var spans []span
		var ms []Match
		for range n {
			pos := 4 + rng.IntN(20)
			sp := span{pos, pos + 1 + rng.IntN(8), rng.Float64() * 2}
			spans = append(spans, sp)
			// A match covering the span, at most its bound.
			ms = append(ms, Match{Pos: sp.pos - rng.IntN(3), End: sp.end + rng.IntN(3), Score: sp.b * rng.Float64()})
		}
		pk.independent(ms)
		got := 0.0
		for _, m := range ms {
			if m.Overlap {
				got += m.Score * OverlapShare
			} else {
				got += m.Score
			}
		}
		require.LessOrEqual(t, got, pb.bound(slices.Clone(spans))*(1+1e-12), "spans %v, matches %v", spans, ms)
	}
}

// TestLocate protects the interpolating search that scoring starts from
// anywhere in a cursor: it finds what a binary search finds, for
// numbers spread evenly or not, runs of one skill, and skills before,
// between and after them.
func TestLocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 500 {
		var skills []uint32
		s := uint32(rng.IntN(10))
		for range rng.IntN(300) {
			switch rng.IntN(4) {
			case 0:
				s += uint32(rng.IntN(100000)) // a jump: not evenly spread
			case 1: // the same skill again: another field
			default:
				s += 1 + uint32(rng.IntN(40))
			}
			skills = append(skills, s)
		}
		for range 40 {
			want := uint32(rng.IntN(int(s) + 20))
			i, _ := slices.BinarySearch(skills, want)
			require.Equal(t, uint32(i), locate(skills, want), "%d in %v", want, skills)
		}
	}
}

// TestNamedSkillsScored: named lists the skills a prompt word names,
// which score × NameBoost beyond the index's bounds, so that the pruned
// search scores them whatever their bounds. Over 72 skills, "pptx slides"
// names pptx, whose own match scores less than slide-style's but more
// once boosted: the bounds alone let the search stop at slide-style.
func TestNamedSkillsScored(t *testing.T) {
	list := []skills.Skill{
		{Name: "pptx", Description: "Read and write presentation files", Body: "pptx pptx files hold decks."},
		{Name: "slide-style", Description: "Style a deck", Body: "slides slides slides need fonts."},
	}
	for i := range 110 {
		list = append(list, skills.Skill{Name: fmt.Sprintf("other-%03d", i), Description: fmt.Sprintf("tool%03d reports", i), Body: "reports and pages."})
	}
	cat, err := skills.NewCatalog(list)
	require.NoError(t, err)
	ix := index.Compile(cat, nil, index.Options{})
	require.Greater(t, ix.Skills.Len(), smallCatalog)
	q := ix.Tokenizer().Tokenize("pptx slides")
	assert.Equal(t, []int{ix.SkillID("pptx")}, named(ix, q, nil, nil))

	// Without the named skills, the bounds prune pptx away.
	p := pruner{ix: ix}
	p.reach(q, 1)
	p.sift(1, 1, restBound)
	bare := p.results(nil)
	require.NotEmpty(t, bare)
	assert.Equal(t, "slide-style", bare[0].Name, "the bounds alone miss the named skill")

	want := cut(ScoreWith(ix, q, nil), 1, nil)
	got := TopK(ix, q, nil, 1, nil)
	require.NotEmpty(t, got)
	assert.Equal(t, "pptx", want[0].Name)
	assert.Equal(t, want[0].Name, got[0].Name)
	assert.InDelta(t, want[0].Score, got[0].Score, 1e-9)
}

// BenchmarkTopKSizes compares the pruned search with scoring every skill
// (what TopK does up to smallCatalog) on generated catalogs around that
// size, for the router's five candidates.
func BenchmarkTopKSizes(b *testing.B) {
	for _, n := range []int{50, 66, 100, 150, 500} {
		ix, set := generated(b, synth.Options{Skills: n, Seed: 3, Queries: 200})
		qs := make([]tokenize.Query, len(set.Queries))
		for i, q := range set.Queries {
			qs[i] = ix.Tokenizer().Tokenize(q.Query)
		}
		b.Run(fmt.Sprintf("%d/pruned", n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				pruned(ix, qs[i%len(qs)], nil, 5, nil, 1, 1)
			}
		})
		b.Run(fmt.Sprintf("%d/all", n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				cut(ScoreWith(ix, qs[i%len(qs)], nil), 5, nil)
			}
		})
	}
}
