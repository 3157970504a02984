package tokenize

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/go-ego/gse"
	"github.com/stretchr/testify/require"
)

// gseSegment is what segment replaced: gse's Segmenter loaded with the
// words alone, at frequency 10 × their length.
func gseSegment(words []string, run string) []span {
	var seg gse.Segmenter
	seg.NotLoadHMM, seg.SkipLog = true, true
	seg.Dict = gse.NewDict()
	seg.Init()
	for _, w := range words {
		_ = seg.AddToken(w, float64(10*utf8.RuneCountInString(w)))
	}
	seg.CalcToken()
	segs := seg.Segment([]byte(run))
	out := make([]span, len(segs))
	for i, s := range segs {
		out[i] = span{s.Start(), s.End()}
	}
	return out
}

// TestSegmentLikeGse protects Chinese segmentation: segment cuts exactly
// as gse does, on random runs over a few characters (so that words cross
// and costs tie) with random dictionaries of their substrings.
func TestSegmentLikeGse(t *testing.T) {
	chars := []rune("数据库存储缓存击穿首屏加载慢")
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 3000; round++ {
		rs := make([]rune, 1+rng.IntN(14))
		for i := range rs {
			rs[i] = chars[rng.IntN(1+rng.IntN(len(chars)))]
		}
		run := string(rs)
		var words []string
		for k := rng.IntN(8); k >= 0; k-- {
			from := rng.IntN(len(rs))
			to := min(len(rs), from+1+rng.IntN(5))
			words = append(words, string(rs[from:to]))
		}
		if rng.IntN(3) == 0 {
			words = append(words, string(chars[rng.IntN(len(chars))]), "击穿首屏加载慢")
		}
		slices.Sort(words)
		words = slices.Compact(words)
		require.Equal(t, gseSegment(words, run), segment(words, run), "%q over %q", words, run)
		_ = utf8.RuneLen
	}
}
