package bm25_test

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/internal/table"
	"github.com/skillroute/skillroute/loader"
)

// TestDamagedIndexNeverPanics protects the hook from a damaged cache now
// that loading checks only what costs nothing (index.Load): whatever
// bytes or 4-byte values of the file are changed, loading fails or the
// index scores, explains and looks up without a panic.
func TestDamagedIndexNeverPanics(t *testing.T) {
	ix, err := loader.OpenIndex(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "index.bin")
	require.NoError(t, ix.Save(path))
	original, err := os.ReadFile(path)
	require.NoError(t, err)
	prompts := []string{"React 页面加载慢，首屏要 4 秒", "渗透测试报告怎么写", "git rebase conflict on main", "数据库慢查询优化", "kubernetes deployment rollout"}
	rng := rand.New(rand.NewPCG(13, 13))
	for round := 0; round < 400; round++ {
		damaged := append([]byte(nil), original...)
		for k := 0; k < 1+rng.IntN(6); k++ {
			at := rng.IntN(len(damaged) - 4)
			if round%2 == 0 {
				damaged[at] ^= byte(1 + rng.IntN(255))
			} else { // a whole value: offsets and ids far out of range
				binary.LittleEndian.PutUint32(damaged[at&^3:], rng.Uint32()>>uint(rng.IntN(32)))
			}
		}
		require.NoError(t, os.WriteFile(path, damaged, 0o644))
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("round %d: panic: %v", round, p)
				}
			}()
			got, err := index.Load(path)
			if err != nil {
				return
			}
			for _, p := range prompts {
				q := got.Tokenizer().Tokenize(p)
				for _, r := range bm25.TopK(got, q, nil, 5, []int{0, 3}) {
					r.Explain(got)
				}
				for _, r := range bm25.Score(got, q) {
					r.Explain(got)
				}
			}
			for id := 0; id < got.Terms.Len(); id += 7 {
				got.TermIDF(id, true)
				got.Postings(id, func(index.Posting) {})
			}
		}()
	}
}

// TestDamagedArraysNeverPanic protects the checks made on reading (see
// index.Load): every kind of value a damaged file could hold, put where
// the prompts' terms are read, and scoring still returns.
func TestDamagedArraysNeverPanic(t *testing.T) {
	prompts := []string{"React 页面加载慢，首屏要 4 秒", "渗透测试报告怎么写", "git rebase conflict on main", "数据库慢查询优化"}
	damages := map[string]func(ix *index.Index, rng *rand.Rand){
		"skill ids": func(ix *index.Index, rng *rand.Rand) {
			for i := range ix.PostSkill {
				if rng.IntN(3) == 0 {
					ix.PostSkill[i] = rng.Uint32()
				}
			}
		},
		"fields": func(ix *index.Index, rng *rand.Rand) {
			for i := range ix.PostField {
				if rng.IntN(3) == 0 {
					ix.PostField[i] = uint8(rng.IntN(256))
				}
			}
		},
		"posting ranges": func(ix *index.Index, rng *rand.Rand) {
			for i := range ix.Starts {
				if rng.IntN(4) == 0 {
					ix.Starts[i] = rng.Uint32() >> uint(rng.IntN(32))
				}
			}
		},
		"segments": func(ix *index.Index, rng *rand.Rand) {
			for i := range ix.SegStart {
				if rng.IntN(4) == 0 {
					ix.SegStart[i] = rng.Uint32() >> uint(rng.IntN(32))
				}
			}
			for i := range ix.TermSegs {
				if rng.IntN(4) == 0 {
					ix.TermSegs[i] = rng.Uint32() >> uint(rng.IntN(32))
				}
			}
		},
		"posting bounds": func(ix *index.Index, rng *rand.Rand) {
			for _, levels := range [][]uint8{ix.PostExact, ix.PostPartial} {
				for i := range levels {
					if rng.IntN(3) == 0 {
						levels[i] = uint8(rng.IntN(256))
					}
				}
			}
		},
		"trigrams": func(ix *index.Index, rng *rand.Rand) {
			for i := range ix.GramStarts {
				if rng.IntN(4) == 0 {
					ix.GramStarts[i] = rng.Uint32() >> uint(rng.IntN(32))
				}
			}
			for i := range ix.GramTerms {
				if rng.IntN(4) == 0 {
					ix.GramTerms[i] = rng.Uint32()
				}
			}
		},
		"string tables": func(ix *index.Index, rng *rand.Rand) {
			for _, off := range [][]uint32{ix.Terms.Off, ix.Grams.Off, ix.Dict.Off} {
				for i := range off[:len(off)-1] { // the last is checked on loading
					if rng.IntN(4) == 0 {
						off[i] = rng.Uint32() >> uint(rng.IntN(32))
					}
				}
			}
		},
	}
	built, err := loader.OpenIndex(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			for seed := uint64(0); seed < 5; seed++ {
				ix := clone(built)
				damage(ix, rand.New(rand.NewPCG(seed, 1)))
				for _, p := range prompts {
					q := ix.Tokenizer().Tokenize(p)
					for _, r := range bm25.TopK(ix, q, nil, 5, []int{1}) {
						r.Explain(ix)
					}
					for _, r := range bm25.Score(ix, q) {
						r.Explain(ix)
					}
				}
			}
		})
	}
}

// clone copies an index's arrays, so that a test can damage them.
func clone(ix *index.Index) *index.Index {
	strs := func(t table.Strings) table.Strings { return table.Strings{Blob: t.Blob, Off: slices.Clone(t.Off)} }
	return &index.Index{
		Format: ix.Format, SourceHash: ix.SourceHash, Stamp: ix.Stamp, Skills: ix.Skills, AvgLength: ix.AvgLength,
		Terms: strs(ix.Terms), Starts: slices.Clone(ix.Starts),
		PostSkill: slices.Clone(ix.PostSkill), PostWeight: slices.Clone(ix.PostWeight), PostField: slices.Clone(ix.PostField),
		TermSegs: slices.Clone(ix.TermSegs), SegStart: slices.Clone(ix.SegStart),
		ExactBound: slices.Clone(ix.ExactBound), PartialBound: slices.Clone(ix.PartialBound),
		PostExact: slices.Clone(ix.PostExact), PostPartial: slices.Clone(ix.PostPartial),
		Grams: strs(ix.Grams), GramStarts: slices.Clone(ix.GramStarts), GramTerms: slices.Clone(ix.GramTerms),
		Dict: strs(ix.Dict), Synonyms: ix.Synonyms,
	}
}
