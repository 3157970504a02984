package index

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/bookworm"
	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// saved returns the index as Save writes it.
func saved(t *testing.T, ix *Index) []byte {
	path := filepath.Join(t.TempDir(), "index.bin")
	require.NoError(t, ix.Save(path))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// TestCompileParallel protects the cache and its readers: compiling on
// several workers writes the same bytes as compiling on one, for written
// and derived keywords, with the built-in glossary.
func TestCompileParallel(t *testing.T) {
	defer func(n, m int) { segmentPart, layoutPart = n, m }(segmentPart, layoutPart)
	segmentPart, layoutPart = 1000, 1000 // segments too are cut, and postings laid out, on several workers
	syn, err := tokenize.ParseSynonyms(rules.SynonymsName, rules.Synonyms)
	require.NoError(t, err)
	gloss, err := tokenize.ParseGlossary(rules.GlossaryName, rules.Glossary)
	require.NoError(t, err)
	builtin, err := skills.Builtin()
	require.NoError(t, err)
	set, err := synth.Generate(synth.Options{Skills: 300, Seed: 9, Queries: 1})
	require.NoError(t, err)
	generated := parsed(t, set)
	catalogs := map[string]*skills.Catalog{"builtin": builtin, "generated": generated}
	if bw, err := bookworm.Catalog("../../shared/bookworm/skills-index.json"); err == nil {
		catalogs["bookworm"] = bw
	}
	for name, cat := range catalogs {
		for _, derive := range []bool{false, true} {
			opt := Options{DeriveKeywords: derive, Glossary: gloss} // the glossary reads postings that segmenting reorders
			serial := compile(cat, syn, opt, 1)
			want := saved(t, serial)
			for _, workers := range []int{2, 5} {
				assert.Equal(t, want, saved(t, compile(cat, syn, opt, workers)), "%s, derive %v, %d workers", name, derive, workers)
			}
			// Release empties the catalog and writes the same index.
			copied := &skills.Catalog{Skills: append([]skills.Skill(nil), cat.Skills...)}
			assert.Equal(t, want, saved(t, compile(copied, syn, Options{DeriveKeywords: derive, Glossary: gloss, Release: true}, 3)), "%s, derive %v, released", name, derive)
			for _, s := range copied.Skills {
				require.Empty(t, s.Body)
				require.Empty(t, s.Keywords)
			}
		}
	}
}

// TestCompileRestoresGC protects programs that compile in passing (the
// hook, eval): the collector's setting is theirs again afterwards, and a
// lower one or none is kept throughout.
func TestCompileRestoresGC(t *testing.T) {
	cat, err := skills.Builtin()
	require.NoError(t, err)
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	Compile(cat, nil, Options{})
	assert.Equal(t, 123, debug.SetGCPercent(20))
	restore := TightGC()
	assert.Equal(t, 20, debug.SetGCPercent(20), "a lower setting is kept")
	restore()
	assert.Equal(t, 20, debug.SetGCPercent(123))
}

// TestCutCacheRecompile protects incremental compiles: with the words of
// the last compile cached, a compile after one skill's edit cuts that
// skill only and writes the index a cold compile writes, byte for byte,
// for written and derived keywords; a change to the Chinese dictionary
// (a new Han keyword) cuts every skill again, and a damaged cache file
// is an empty cache.
func TestCutCacheRecompile(t *testing.T) {
	syn, err := tokenize.ParseSynonyms(rules.SynonymsName, rules.Synonyms)
	require.NoError(t, err)
	set, err := synth.Generate(synth.Options{Skills: 200, Seed: 11, Queries: 1})
	require.NoError(t, err)
	load := func() *skills.Catalog { return parsed(t, set) }
	for _, derive := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "cuts.bin")
		compileCached := func(cat *skills.Catalog) (*Index, int) {
			cuts := LoadCutCache(path, "test-binary")
			ix := compile(cat, syn, Options{DeriveKeywords: derive, Cuts: cuts}, 3)
			require.NoError(t, cuts.Save(path))
			return ix, cuts.Cut()
		}
		cat := load()
		cold, cut := compileCached(cat)
		assert.Equal(t, len(cat.Skills), cut, "derive %v: the first compile cuts every skill", derive)
		assert.Equal(t, saved(t, compile(load(), syn, Options{DeriveKeywords: derive}, 1)), saved(t, cold), "derive %v: a cold cached compile is a plain one", derive)

		edited := load()
		edited.Skills[7].Body += "\nAlso check the flaky retry logic before the release."
		ix, cut := compileCached(edited)
		assert.Equal(t, 1, cut, "derive %v: one edited skill is cut again, alone", derive)
		want := saved(t, compile(edited, syn, Options{DeriveKeywords: derive}, 2))
		assert.Equal(t, want, saved(t, ix), "derive %v: the recompile writes the cold compile's index", derive)

		again, cut := compileCached(edited)
		assert.Zero(t, cut, "derive %v: nothing changed, nothing cut", derive)
		assert.Equal(t, want, saved(t, again))

		other := LoadCutCache(path, "another-binary")
		compile(edited, syn, Options{DeriveKeywords: derive, Cuts: other}, 2)
		assert.Equal(t, len(edited.Skills), other.Cut(), "derive %v: another binary cuts every skill again", derive)

		dict := load()
		dict.Skills[3].Keywords = append(dict.Skills[3].Keywords, skills.Keyword{Text: "灰度发布回滚", Tier: skills.Core, Weight: 1})
		ix, cut = compileCached(dict)
		assert.Equal(t, len(dict.Skills), cut, "derive %v: a new dictionary word cuts every skill again", derive)
		assert.Equal(t, saved(t, compile(dict, syn, Options{DeriveKeywords: derive}, 1)), saved(t, ix))

		data, err := os.ReadFile(path)
		require.NoError(t, err)
		data[len(data)/2] ^= 0xff
		require.NoError(t, os.WriteFile(path, data, 0o600))
		ix, cut = compileCached(dict)
		assert.Equal(t, len(dict.Skills), cut, "derive %v: a damaged cache is no cache", derive)
		assert.Equal(t, saved(t, compile(dict, syn, Options{DeriveKeywords: derive}, 1)), saved(t, ix))
	}
}

// TestSelectNth protects segmenting, which takes the scores at a term's
// candidate cut ranks by selection: the same values a sort puts there,
// with ties, sorted, reversed and constant input, for the nested ranks
// selectRanks asks.
func TestSelectNth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, in := range [][]float64{{1}, {2, 1}, {3, 3, 3, 3}, {5, 1, 4, 1, 5, 9, 2, 6}} {
		want := slices.Sorted(slices.Values(in))
		for k := range in {
			assert.Equal(t, want[k], selectNth(slices.Clone(in), k), "rank %d of %v", k, in)
		}
	}
	var inputs [][]float64
	for _, n := range []int{segmentFrom, 65, 1000, 4097} {
		random, ties, sorted, reversed := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range random {
			random[i] = rng.Float64()
			ties[i] = float64(rng.IntN(4))
			sorted[i], reversed[i] = float64(i), float64(n-i)
		}
		inputs = append(inputs, random, ties, sorted, reversed)
	}
	for _, in := range inputs {
		best := slices.Sorted(slices.Values(in))
		slices.Reverse(best) // by rank: 0 is the highest
		a := slices.Clone(in)
		var sc segmentScratch
		sc.cutScores(a)
		require.NotEmpty(t, sc.ranks)
		for i, r := range sc.ranks[:len(sc.ranks)-1] { // the last is the end
			require.Equal(t, best[r], sc.at[i], "rank %d of %d", r, len(a))
		}
		assert.ElementsMatch(t, in, a, "a permutation")
	}
}

// TestCutScores protects TopK's pruning: a term's segments are cut where
// its scores fall, so that the many skills that use a word in their texts
// are not bounded by the score of the few that list it as a keyword, and
// a term whose skills all score about alike stays one segment (one cursor).
func TestCutScores(t *testing.T) {
	levels := func(counts ...int) []float64 { // counts of 2.0, 1.0, 0.3
		var out []float64
		for i, n := range counts {
			for range n {
				out = append(out, []float64{2.0, 1.0, 0.3}[i])
			}
		}
		rand.New(rand.NewPCG(1, 1)).Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	tests := []struct {
		name   string
		scores []float64
		cuts   []float64
	}{
		{"keywords over body words", levels(100, 0, 900), []float64{0.3}},
		{"three levels", levels(100, 2000, 2000), []float64{1.0, 0.3}},
		{"all alike", levels(0, 500, 0), nil},
		{"nearly alike", func() []float64 {
			out := make([]float64, 400)
			for i := range out {
				out[i] = 1.0 + float64(i%7)/100
			}
			return out
		}(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sc segmentScratch
			assert.Equal(t, tt.cuts, slices.Clone(sc.cutScores(tt.scores)))
		})
	}
}

// TestSegmentsBound protects TopK's exactness at its root: every segment
// lies in skill order, and no skill of it scores more than its bounds, as
// an exact match or a partial one; nor more than its own posting bound
// (PostExact, PostPartial: the least level that holds its score, on the
// first of its postings, 0 on the others, and 0 for a partial match
// where one counts nothing, in a derived skill); a term's segments cover
// its postings.
func TestSegmentsBound(t *testing.T) {
	set, err := synth.Generate(synth.Options{Skills: 1500, Seed: 9, Queries: 1})
	require.NoError(t, err)
	for _, derive := range []bool{false, true} {
		t.Run(fmt.Sprintf("derived=%v", derive), func(t *testing.T) {
			segmentsBound(t, Compile(parsed(t, set), nil, Options{DeriveKeywords: derive}))
		})
	}
}

func segmentsBound(t *testing.T, ix *Index) {
	// level is the least level of bound that holds score x.
	level := func(x, bound float64) uint8 {
		for l := range ImpactLevels + 1 {
			if float64(l)*bound/ImpactLevels >= x {
				return uint8(l)
			}
		}
		return ImpactLevels
	}
	multi := 0
	for id := range ix.Terms.Len() {
		from, to := ix.Segments(id)
		require.Less(t, from, to, "term %q has a segment", ix.Term(id))
		require.Equal(t, ix.Starts[id], ix.Segment(from).From)
		require.Equal(t, ix.Starts[id+1], ix.Segment(to-1).To)
		if to-from > 1 {
			multi++
		}
		for j := from; j < to; j++ {
			seg := ix.Segment(j)
			for at := seg.From; at < seg.To; {
				s, first := ix.PostSkill[at], at
				tf, kw, boost := 0.0, 0.0, 1.0
				for ; at < seg.To && ix.PostSkill[at] == s; at++ {
					w := float64(ix.PostWeight[at])
					tf += w
					if Field(ix.PostField[at]).IsKeyword() {
						kw += w * PartialFactor
					}
					boost = max(boost, TierBoost(Field(ix.PostField[at])))
				}
				require.True(t, at == seg.To || ix.PostSkill[at] > s, "term %q segment %d in skill order", ix.Term(id), j)
				dl := ix.Skills.Length(int(s))
				exact := boost * saturate(tf, dl, ix.AvgLength)
				require.LessOrEqual(t, exact, seg.Exact, "term %q", ix.Term(id))
				require.Equal(t, level(exact, seg.Exact), ix.PostExact[first], "term %q skill %d", ix.Term(id), s)
				partial := 0.0
				if kw > 0 && !ix.Skills.Derived(int(s)) {
					partial = saturate(kw, dl, ix.AvgLength)
					require.LessOrEqual(t, partial, seg.Partial, "term %q", ix.Term(id))
				}
				require.Equal(t, level(partial, seg.Partial), ix.PostPartial[first], "term %q skill %d", ix.Term(id), s)
				for p := first + 1; p < at; p++ {
					require.Zero(t, ix.PostExact[p], "term %q skill %d: its first posting only", ix.Term(id), s)
					require.Zero(t, ix.PostPartial[p], "term %q skill %d: its first posting only", ix.Term(id), s)
				}
			}
		}
	}
	assert.Positive(t, multi, "common terms are cut")
}

// TestCutCacheSpill protects the cut cache written through a spill file
// (a cache read from a folder): it is the file a cache kept in memory
// makes, byte for byte, with two skills of the same content among them
// (kept once), for records (written keywords) and words (derived ones);
// the next compile finds every skill in it; no spill file is left behind.
func TestCutCacheSpill(t *testing.T) {
	syn, err := tokenize.ParseSynonyms(rules.SynonymsName, rules.Synonyms)
	require.NoError(t, err)
	set, err := synth.Generate(synth.Options{Skills: 120, Seed: 4, Queries: 1})
	require.NoError(t, err)
	cat := parsed(t, set)
	twin := cat.Skills[5]
	twin.Name += "-twin"
	cat.Skills = append(cat.Skills, twin) // the same text as skill 5
	slices.SortFunc(cat.Skills, func(a, b skills.Skill) int { return strings.Compare(a.Name, b.Name) })

	for _, derive := range []bool{false, true} {
		dir := t.TempDir()
		opt := Options{DeriveKeywords: derive}
		spilled := LoadCutCache(filepath.Join(dir, "cuts.bin"), "bin")
		opt.Cuts = spilled
		compile(cat, syn, opt, 3)
		require.NotNil(t, spilled.spill, "a cache read from a folder spills")
		require.NotNil(t, spilled.spill.f, "a cache read from a folder spills to a file")
		require.NoError(t, spilled.Save(filepath.Join(dir, "cuts.bin")))
		inMemory := &CutCache{Ident: "bin"}
		opt.Cuts = inMemory
		compile(cat, syn, opt, 3)
		require.NoError(t, inMemory.Save(filepath.Join(dir, "memory.bin")))
		want, err := os.ReadFile(filepath.Join(dir, "memory.bin"))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, "cuts.bin"))
		require.NoError(t, err)
		assert.Equal(t, want, got, "derive %v", derive)
		assert.Equal(t, len(cat.Skills), spilled.Cut(), "derive %v: a cold cache cuts every skill", derive)

		again := LoadCutCache(filepath.Join(dir, "cuts.bin"), "bin")
		opt.Cuts = again
		compile(cat, syn, opt, 2)
		assert.Zero(t, again.Cut(), "derive %v", derive)
		require.NoError(t, again.Save(filepath.Join(dir, "cuts.bin")))
		left, err := filepath.Glob(filepath.Join(dir, "*.spill"))
		require.NoError(t, err)
		assert.Empty(t, left)
	}
}

// parsed is a generated catalog as the loader would read it.
func parsed(t *testing.T, set *synth.Set) *skills.Catalog {
	t.Helper()
	cat := &skills.Catalog{}
	for _, f := range set.Files {
		sk, err := skills.Parse(f.Name+"/SKILL.md", f.Name, f.Data)
		require.NoError(t, err)
		cat.Skills = append(cat.Skills, sk)
	}
	return cat
}

// TestCutCacheRecords protects the records of skills with written
// keywords across a series of compiles: each edit (new words, a new
// keyword of a new weight, a keyword dropped) cuts the edited skill
// alone and writes a cold compile's index, whether the records keep the
// loaded file's numbers or, once many terms are unused (most bodies
// emptied), are numbered afresh; a record that passes the file's
// checksum but names a term or weight the file lacks is cut afresh.
func TestCutCacheRecords(t *testing.T) {
	syn, err := tokenize.ParseSynonyms(rules.SynonymsName, rules.Synonyms)
	require.NoError(t, err)
	set, err := synth.Generate(synth.Options{Skills: 200, Seed: 9, Queries: 1})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "cuts.bin")
	recompile := func(cat *skills.Catalog, damage func(*CutCache)) (got, want []byte, cut int, extended bool) {
		cuts := LoadCutCache(path, "bin")
		if damage != nil {
			damage(cuts)
		}
		ix := compile(cat, syn, Options{Cuts: cuts}, 3)
		extended = cuts.num.extend
		require.NoError(t, cuts.Save(path))
		return saved(t, ix), saved(t, compile(cat, syn, Options{}, 1)), cuts.Cut(), extended
	}
	cat := parsed(t, set)
	_, _, cut, extended := recompile(cat, nil)
	require.Equal(t, len(cat.Skills), cut)
	assert.False(t, extended, "no cache: numbered afresh")

	edits := []func(s *skills.Skill, round int){
		func(s *skills.Skill, round int) {
			s.Body += fmt.Sprintf("\nZorblax%d quuxification, round %d.", round, round)
		},
		func(s *skills.Skill, round int) {
			s.Keywords = append(s.Keywords, skills.Keyword{Text: fmt.Sprintf("flibber%d", round), Tier: skills.Strong, Weight: 0.123 + float64(round)})
		},
		func(s *skills.Skill, round int) { s.Keywords = s.Keywords[1:] },
	}
	for round := range 6 {
		edits[round%len(edits)](&cat.Skills[(round*37)%len(cat.Skills)], round)
		got, want, cut, extended := recompile(cat, nil)
		assert.Equal(t, 1, cut, "round %d: the edited skill alone is cut", round)
		assert.True(t, extended, "round %d: the loaded numbers are kept", round)
		assert.Equal(t, want, got, "round %d: a cold compile's index", round)
	}

	got, want, cut, _ := recompile(cat, func(c *CutCache) {
		k := cutKey(cat.Skills[11].ContentSum())
		rec := slices.Clone(c.recs[k])
		require.NotEmpty(t, rec)
		// The first entry's term number, past the keyword and term counts,
		// becomes one the table does not hold.
		n := 0
		for range 4 {
			_, w := binary.Uvarint(rec[n:])
			n += w
		}
		_, w := binary.Uvarint(rec[n:])
		c.recs[k] = slices.Concat(rec[:n], binary.AppendUvarint(nil, uint64(len(c.terms))), rec[n+w:])
	})
	assert.Equal(t, 1, cut, "a record naming no term of its file is cut afresh")
	assert.Equal(t, want, got)

	for i := 10; i < len(cat.Skills); i++ {
		cat.Skills[i].Body = "" // the same dictionary, far fewer terms
	}
	got, want, cut, extended = recompile(cat, nil)
	assert.Equal(t, len(cat.Skills)-10, cut)
	assert.True(t, extended, "the first compile after the cut still keeps the numbers")
	assert.Equal(t, want, got)
	got, want, cut, extended = recompile(cat, nil)
	assert.Zero(t, cut)
	assert.False(t, extended, "many terms unused: numbered afresh")
	assert.Equal(t, want, got)
	got, want, cut, extended = recompile(cat, nil)
	assert.Zero(t, cut)
	assert.True(t, extended)
	assert.Equal(t, want, got)
}

// TestCutCacheDelta protects recompiles of large catalogs, which must not
// rewrite the whole cut cache for one edited skill: a compile that keeps
// the file's numbers and cut few skills leaves the file as it was and
// writes what it lacks to its delta, which the next compile reads with it
// (no skill cut again, a cold compile's index); one that changed much
// rewrites the file and drops the delta; a delta written for another file
// is not read.
func TestCutCacheDelta(t *testing.T) {
	syn, err := tokenize.ParseSynonyms(rules.SynonymsName, rules.Synonyms)
	require.NoError(t, err)
	set, err := synth.Generate(synth.Options{Skills: 700, Seed: 8, Queries: 1})
	require.NoError(t, err)
	cat := parsed(t, set)
	path := filepath.Join(t.TempDir(), "cuts.bin")
	recompile := func() (cut int) {
		cuts := LoadCutCache(path, "bin")
		ix := compile(cat, syn, Options{Cuts: cuts}, 2)
		require.NoError(t, cuts.Save(path))
		assert.Equal(t, saved(t, compile(cat, syn, Options{}, 1)), saved(t, ix), "a cold compile's index")
		return cuts.Cut()
	}
	file := func() []byte {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		return data
	}
	require.Equal(t, len(cat.Skills), recompile())
	whole := file()

	cat.Skills[500].Body += "\nZorblax quuxification."
	cat.Skills[600].Keywords = append(cat.Skills[600].Keywords, skills.Keyword{Text: "flibbertigibbet", Tier: skills.Core, Weight: 1})
	assert.Equal(t, 2, recompile())
	assert.Equal(t, whole, file(), "the file is left as it was")
	assert.FileExists(t, path+".delta")
	assert.Zero(t, recompile(), "the edited skills are found in the delta")
	oldDelta, err := os.ReadFile(path + ".delta")
	require.NoError(t, err)

	for i := range 100 { // past an eighth of the file's records
		cat.Skills[i].Body += "\nRewritten."
	}
	assert.Equal(t, 100, recompile())
	assert.NotEqual(t, whole, file(), "the file is written afresh")
	assert.NoFileExists(t, path+".delta")

	// The old delta beside a file numbered afresh: it names the old
	// file, and is not read (its records, skill 600's among them, number
	// terms as the old file did, its new terms last, where the new file
	// numbers them as they were met).
	require.NoError(t, os.Remove(path))
	assert.Equal(t, len(cat.Skills), recompile())
	require.NoError(t, os.WriteFile(path+".delta", oldDelta, 0o600))
	cat.Skills[5].Body += "\nAgain."
	assert.Equal(t, 1, recompile())
}

// TestLevelBoundIsImpactLevel checks that the impact level a segment's
// precomputed scale gives is impactLevel's, which holds the score under
// its share of the bound: on scores at and beside every level's share
// of the bound, where the product's rounding could land on either side,
// and on random ones.
func TestLevelBoundIsImpactLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	bounds := []float32{0, 1e-6, 0.1, 0.6, 1, 1.28, 2.2, 3.7, 24.02, float32(rng.Float64() * 10)}
	for _, b := range bounds {
		lb := newLevelBound(b)
		var xs []float64
		for q := 0; q <= ImpactLevels; q++ {
			at := float64(q) * float64(b) / ImpactLevels
			xs = append(xs, at, math.Nextafter(at, 0), math.Nextafter(at, math.Inf(1)))
		}
		for range 2000 {
			xs = append(xs, rng.Float64()*float64(b))
		}
		xs = append(xs, -1, 0, float64(b), 2*float64(b))
		for _, x := range xs {
			require.Equal(t, impactLevel(x, b), lb.level(x), "score %v, bound %v", x, b)
		}
	}
}

// TestGridAverage protects the grid of average lengths a recompile's
// reuse of postings relies on: an average is moved to a point within
// half a step of it, a point stays where it is, and an average that moves
// by less than the distance to the grid's midpoints keeps its point.
func TestGridAverage(t *testing.T) {
	cases := []struct {
		name string
		x    float64
	}{
		{"one", 1},
		{"a short skill's length", 3.7},
		{"a description's words", 21.35},
		{"a body's words", 217.7},
		{"a large catalog's body", 1234.5678},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := gridAverage(c.x)
			assert.InEpsilon(t, c.x, g, averageStep/2+1e-12, "within half a step")
			assert.Equal(t, g, gridAverage(g), "a point of the grid is its own")
			for _, near := range []float64{g * (1 + averageStep/3), g * (1 - averageStep/3), g + 1e-9} {
				assert.Equal(t, g, gridAverage(near), "%v keeps the point %v", near, g)
			}
			assert.NotEqual(t, g, gridAverage(g*(1+averageStep)), "a step away is the next point")
		})
	}
	for _, x := range []float64{0, -2, math.Inf(1)} {
		assert.Equal(t, x, gridAverage(x), "%v is left as it is", x)
	}
	assert.True(t, math.IsNaN(gridAverage(math.NaN())))
}

// TestReuseInParts protects the recompile that copies the last index's
// postings (reuse.go) where the layout and the segmenting run on several
// workers: the touched terms' entries kept by run, or read again, a
// shrunk term's laid out from skills of several runs, the copies made by
// part; with the
// built-in glossary, which is compiled after the copies. Each recompile
// writes the cold compile's index and copies most terms; a damaged sums
// file, or index, is no previous compile.
func TestReuseInParts(t *testing.T) {
	defer func(n, m int) { segmentPart, layoutPart = n, m }(segmentPart, layoutPart)
	segmentPart, layoutPart = 1000, 1000
	syn, err := tokenize.ParseSynonyms(rules.SynonymsName, rules.Synonyms)
	require.NoError(t, err)
	gloss, err := tokenize.ParseGlossary(rules.GlossaryName, rules.Glossary)
	require.NoError(t, err)
	set, err := synth.Generate(synth.Options{Skills: 300, Seed: 9, Queries: 1})
	require.NoError(t, err)
	dropLine := func(body string) string { // the first step of its playbook
		from := strings.Index(body, "\n1. ")
		require.GreaterOrEqual(t, from, 0)
		return body[:from] + body[from+1+strings.IndexByte(body[from+1:], '\n'):]
	}
	cases := []struct {
		name string
		edit func(cat *skills.Catalog)
	}{
		{"a line appended", func(cat *skills.Catalog) { cat.Skills[7].Body += "\nAlso check the flaky retry logic." }},
		{"a line removed", func(cat *skills.Catalog) { cat.Skills[150].Body = dropLine(cat.Skills[150].Body) }},
		// Two skills' terms reach more entries than the first pass keeps:
		// every entry is read again, the copied terms' skipped.
		{"skills of several runs", func(cat *skills.Catalog) {
			cat.Skills[20].Body = dropLine(cat.Skills[20].Body)
			cat.Skills[280].Body += "\nMind the cache warmup."
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cuts, index, sums := filepath.Join(dir, "cuts.bin"), filepath.Join(dir, "index.bin"), filepath.Join(dir, "sums.bin")
			compileCached := func(cat *skills.Catalog) *Index {
				opt := Options{Glossary: gloss, Cuts: LoadCutCache(cuts, "test-binary")}
				if prev, err := LoadPrevious(index, sums); err == nil {
					opt.Previous = prev
				}
				ix := compile(cat, syn, opt, 3)
				require.NoError(t, opt.Cuts.Save(cuts))
				require.NoError(t, ix.Save(index))
				require.NoError(t, ix.SaveSums(sums))
				return ix
			}
			first := compileCached(parsed(t, set))
			assert.Zero(t, first.Reused(), "no previous compile")
			cat := parsed(t, set)
			c.edit(cat)
			ix := compileCached(cat)
			cold := saved(t, compile(cat, syn, Options{Glossary: gloss}, 1))
			assert.Equal(t, cold, saved(t, ix), "the recompile writes the cold compile's index")
			assert.Greater(t, ix.Reused(), ix.Terms.Len()/2, "most terms are copied")

			data, err := os.ReadFile(sums)
			require.NoError(t, err)
			data[len(data)-1] ^= 0xff
			require.NoError(t, os.WriteFile(sums, data, 0o600))
			_, err = LoadPrevious(index, sums)
			require.Error(t, err, "a damaged sums file")
			again := compileCached(cat)
			assert.Zero(t, again.Reused())
			assert.Equal(t, cold, saved(t, again))

			// The sums are whole again; the index they name is damaged.
			data, err = os.ReadFile(index)
			require.NoError(t, err)
			data[len(data)/2] ^= 0xff
			require.NoError(t, os.WriteFile(index, data, 0o600))
			damaged := compileCached(cat)
			assert.Zero(t, damaged.Reused(), "a damaged index is not copied from")
			assert.Equal(t, cold, saved(t, damaged))
		})
	}
}
