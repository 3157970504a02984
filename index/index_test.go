package index_test

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// catalog sorts the skills by name, as a loaded catalog is.
func catalog(list ...skills.Skill) *skills.Catalog {
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return &skills.Catalog{Skills: list}
}

// kw builds keywords of one tier at the tier's weight.
func kw(tier skills.Tier, words ...string) []skills.Keyword {
	out := make([]skills.Keyword, len(words))
	for i, w := range words {
		out[i] = skills.Keyword{Text: w, Tier: tier, Weight: tier.Weight()}
	}
	return out
}

func concat(lists ...[]skills.Keyword) []skills.Keyword {
	var out []skills.Keyword
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// postings returns the postings of a term by skill name and field.
func postings(t *testing.T, ix *index.Index, term string) map[string]map[index.Field]index.Posting {
	t.Helper()
	id := ix.TermID(term)
	require.GreaterOrEqual(t, id, 0, "term %q not in index", term)
	out := map[string]map[index.Field]index.Posting{}
	ix.Postings(id, func(p index.Posting) {
		name := ix.Skills.Name(p.Skill)
		if out[name] == nil {
			out[name] = map[index.Field]index.Posting{}
		}
		out[name][p.Field] = p
	})
	return out
}

// keywordCatalog has three skills with keywords only (no text fields), so
// that every posting is a keyword posting.
func keywordCatalog() *skills.Catalog {
	return catalog(
		skills.Skill{Name: "cache-expert", Keywords: concat(kw(skills.Core, "Redis"), kw(skills.Strong, "cache"), kw(skills.Extended, "database"))},
		skills.Skill{Name: "queue-expert", Keywords: concat(kw(skills.Core, "kafka"), kw(skills.Strong, "redis"), kw(skills.Extended, "database"))},
		skills.Skill{Name: "web-expert", Keywords: concat(kw(skills.Core, "nginx"), kw(skills.Extended, "database"))},
	)
}

// TestIDF protects the smoothed IDF formula: never zero, rarer is higher.
func TestIDF(t *testing.T) {
	tests := []struct {
		n, df int
		want  float64
	}{
		{3, 1, math.Log(4.0/2.0) + 1},
		{3, 3, 1},
		{50, 1, math.Log(51.0/2.0) + 1},
		{100000, 5, math.Log(100001.0/6.0) + 1},
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, index.IDF(tt.n, tt.df), 1e-12, "IDF(%d, %d)", tt.n, tt.df)
	}
	assert.Greater(t, index.IDF(10, 1), index.IDF(10, 5))
	assert.Greater(t, index.IDF(10, 10), 0.0)
}

// TestCompileKeywordWeights protects the seed's P0 fix: a keyword posting
// weighs tier weight × IDF, with IDF applied exactly once, at compile time.
func TestCompileKeywordWeights(t *testing.T) {
	ix := index.Compile(keywordCatalog(), nil, index.Options{})
	const n = 3
	tests := []struct {
		term  string
		skill string
		field index.Field
		base  float64
		df    int
	}{
		{"redi", "cache-expert", index.FieldCore, skills.CoreWeight, 2},
		{"redi", "queue-expert", index.FieldStrong, skills.StrongWeight, 2},
		{"cach", "cache-expert", index.FieldStrong, skills.StrongWeight, 1},
		{"kafka", "queue-expert", index.FieldCore, skills.CoreWeight, 1},
		{"databas", "web-expert", index.FieldExtended, skills.ExtendedWeight, 3},
		{"nginx", "web-expert", index.FieldCore, skills.CoreWeight, 1},
	}
	for _, tt := range tests {
		t.Run(tt.term+"/"+tt.skill, func(t *testing.T) {
			p, ok := postings(t, ix, tt.term)[tt.skill][tt.field]
			require.True(t, ok, "no %s posting", tt.field)
			want := tt.base * (math.Log(float64(n+1)/float64(tt.df+1)) + 1)
			assert.InDelta(t, want, p.Weight, 1e-6)
		})
	}
	assert.Equal(t, []float64{1.0, 0.7, 0.4}, []float64{skills.CoreWeight, skills.StrongWeight, skills.ExtendedWeight})
	// A term every skill lists keeps its tier weight (IDF 1), not zero.
	for _, byField := range postings(t, ix, "databas") {
		assert.InDelta(t, skills.ExtendedWeight, byField[index.FieldExtended].Weight, 1e-6)
	}
}

// TestCompileIDFOnce checks every posting: weight / base is the term's
// IDF, never IDF squared.
func TestCompileIDFOnce(t *testing.T) {
	ix := index.Compile(keywordCatalog(), nil, index.Options{})
	tiers := map[index.Field]float64{index.FieldCore: skills.CoreWeight, index.FieldStrong: skills.StrongWeight, index.FieldExtended: skills.ExtendedWeight}
	for id, term := range ix.Terms.All() {
		df := 0
		ix.Postings(id, func(index.Posting) { df++ })
		idf := index.IDF(ix.Skills.Len(), df)
		assert.InDelta(t, idf, ix.TermIDF(id, true), 1e-9)
		ix.Postings(id, func(p index.Posting) {
			assert.InDelta(t, tiers[p.Field]*idf, p.Weight, 1e-5, "term %q: tier × idf, not × idf²", term)
		})
	}
}

// TestCompileTextFields protects the weaker description and body fields:
// field weight × (1 + ln tf) × IDF over the text fields.
func TestCompileTextFields(t *testing.T) {
	cat := catalog(
		skills.Skill{Name: "a", Description: "gateway gateway timeout", Body: "gateway", Keywords: kw(skills.Core, "alpha")},
		skills.Skill{Name: "b", Description: "timeout", Keywords: kw(skills.Core, "beta")},
	)
	ix := index.Compile(cat, nil, index.Options{})
	gw := postings(t, ix, "gateway")
	require.Contains(t, gw, "a")
	desc := gw["a"][index.FieldDescription]
	body := gw["a"][index.FieldBody]
	idf1 := index.TextIDF(2, 1) // gateway: one skill's text
	// Each text field is length-normalised on its own: a has two distinct
	// description words against an average of 1.5 (on the grid of
	// averages); its one body word is measured against an average of at
	// least one word.
	descAvg := index.GridAverage(1.5)
	require.InEpsilon(t, 1.5, descAvg, 0.005)
	descNorm := 1 - index.TextFieldB + index.TextFieldB*2/descAvg
	assert.InDelta(t, index.DescriptionWeight*(1+math.Log(2))*idf1/descNorm, desc.Weight, 1e-6)
	assert.InDelta(t, index.BodyWeight*idf1, body.Weight, 1e-6)

	to := postings(t, ix, "timeout")
	assert.InDelta(t, index.DescriptionWeight*index.TextIDF(2, 2)/(1-index.TextFieldB+index.TextFieldB*1/descAvg), to["b"][index.FieldDescription].Weight, 1e-6)
	assert.Less(t, index.TextIDF(2, 2), 0.3, "a word every skill's text uses counts next to nothing")

	// Keyword df and text df are counted apart: "alpha" is rare as a keyword.
	assert.InDelta(t, index.IDF(2, 1), postings(t, ix, "alpha")["a"][index.FieldCore].Weight, 1e-6)

	// Document length: one per keyword plus a tenth per distinct text term.
	assert.InDelta(t, 1+0.1*3, ix.Skills.Length(ix.SkillID("a")), 1e-9) // gateway, timeout (desc) + gateway (body)
	assert.InDelta(t, 1+0.1*1, ix.Skills.Length(ix.SkillID("b")), 1e-9)
	assert.Equal(t, index.GridAverage((1.3+1.1)/2), ix.AvgLength)
}

// TestCompileKnownPhrases protects a skill's text indexed by the phrases
// the synonyms hold (tokenize.Words): "screen reader" is a term of a's
// body, weighted as a rare text term, and a phrase adds nothing to the
// field's length, which counts words (the phrase's are counted already),
// in a cold compile and in one from the cut cache alike.
func TestCompileKnownPhrases(t *testing.T) {
	syn, err := tokenize.NewSynonyms(tokenize.SynonymGroup{ID: "screen-reader", Words: []tokenize.SynonymWord{{Text: "读屏软件"}, {Text: "screen reader"}}})
	require.NoError(t, err)
	cat := func() *skills.Catalog {
		return catalog(
			skills.Skill{Name: "a", Description: "audits", Body: "Test the page with a screen reader.", Keywords: kw(skills.Core, "alpha")},
			skills.Skill{Name: "b", Description: "layouts", Body: "Fit the page to the screen.", Keywords: kw(skills.Core, "beta")},
		)
	}
	cuts := filepath.Join(t.TempDir(), "cuts.bin")
	for _, pass := range []string{"cold", "cached"} {
		c := index.LoadCutCache(cuts, "test")
		ix := index.Compile(cat(), syn, index.Options{Cuts: c})
		require.NoError(t, c.Save(cuts))
		phrase := postings(t, ix, "screen reader")
		assert.Equal(t, []string{"a"}, slices.Sorted(maps.Keys(phrase)), pass)
		assert.Contains(t, phrase["a"], index.FieldBody, pass)
		// a: test, page, screen, reader (body) + audit (description); b:
		// fit, page, screen + layout.
		assert.InDelta(t, 1+0.1*5, ix.Skills.Length(ix.SkillID("a")), 1e-9, pass)
		assert.InDelta(t, 1+0.1*4, ix.Skills.Length(ix.SkillID("b")), 1e-9, pass)
	}
	assert.Negative(t, index.Compile(cat(), nil, index.Options{}).TermID("screen reader"), "no synonym holds it: no phrase term")
}

// TestCompileBookwormWeights protects bookworm catalogs: their keyword
// weights (2.0 / 1.5 / 1.0) are taken as given, then IDF applied once.
func TestCompileBookwormWeights(t *testing.T) {
	cat := catalog(
		skills.Skill{Name: "ai-ml-expert", Keywords: []skills.Keyword{
			{Text: "AI", Tier: skills.Core, Weight: 2.0},
			{Text: "pytorch", Tier: skills.Strong, Weight: 1.5},
			{Text: "model", Tier: skills.Extended, Weight: 1.0},
		}},
		skills.Skill{Name: "data-analyst-expert", Keywords: []skills.Keyword{{Text: "model", Tier: skills.Extended, Weight: 1.0}}},
	)
	ix := index.Compile(cat, nil, index.Options{})
	tests := []struct {
		term  string
		field index.Field
		base  float64
		df    int
	}{
		{"ai", index.FieldCore, 2.0, 1},
		{"pytorch", index.FieldStrong, 1.5, 1},
		{"model", index.FieldExtended, 1.0, 2},
	}
	for _, tt := range tests {
		p := postings(t, ix, tt.term)["ai-ml-expert"][tt.field]
		assert.InDelta(t, tt.base*index.IDF(2, tt.df), p.Weight, 1e-6, tt.term)
	}
}

// TestIndexLookups protects the small accessors the scorer relies on.
func TestIndexLookups(t *testing.T) {
	ix := index.Compile(keywordCatalog(), nil, index.Options{})
	assert.Equal(t, 0, ix.SkillID("cache-expert"))
	assert.Equal(t, 2, ix.SkillID("web-expert"))
	assert.Equal(t, -1, ix.SkillID("nobody"))
	assert.Equal(t, -1, ix.SkillID("zzz"))
	// A catalog built by hand out of name order is searched whole.
	unsorted := keywordCatalog()
	unsorted.Skills[0], unsorted.Skills[2] = unsorted.Skills[2], unsorted.Skills[0]
	ux := index.Compile(unsorted, nil, index.Options{})
	assert.Equal(t, 2, ux.SkillID("cache-expert"))
	assert.Equal(t, 0, ux.SkillID("web-expert"))
	assert.Equal(t, -1, ux.SkillID("nobody"))
	assert.Equal(t, -1, ix.TermID("postgres"))
	assert.True(t, sort.StringsAreSorted(ix.Terms.All()))
	assert.Equal(t, index.FormatVersion, ix.Format)
	assert.Equal(t, 3, ix.Skills.Keywords(0))
	assert.False(t, ix.Skills.Derived(0))

	for f, want := range map[index.Field]string{
		index.FieldCore: "core", index.FieldStrong: "strong", index.FieldExtended: "extended",
		index.FieldDescription: "description", index.FieldBody: "body",
	} {
		assert.Equal(t, want, f.String())
		assert.Equal(t, f <= index.FieldExtended, f.IsKeyword(), f.String())
	}
}

// TestSourceHash protects index rebuilds and the learned tables keyed by
// the hash: any change to the sources changes it (a skill's through its
// ContentSum, skills.TestContentSum), nothing else does, and a compile
// that empties its skills as it goes computes the same.
func TestSourceHash(t *testing.T) {
	a := index.SourceHash(keywordCatalog(), nil, index.Options{})
	assert.Equal(t, a, index.SourceHash(keywordCatalog(), nil, index.Options{}))
	assert.Equal(t, a, index.Compile(keywordCatalog(), nil, index.Options{}).SourceHash)

	released := keywordCatalog()
	assert.Equal(t, a, index.Compile(released, nil, index.Options{Release: true}).SourceHash, "hashed as the skills are merged and emptied")

	for what, change := range map[string]func(c *skills.Catalog){
		"a keyword's tier": func(c *skills.Catalog) { c.Skills[0].Keywords[0].Tier = skills.Strong },
		"a body":           func(c *skills.Catalog) { c.Skills[1].Body += " more" },
		"a name":           func(c *skills.Catalog) { c.Skills[1].Name += "-2" },
		"a skill removed":  func(c *skills.Catalog) { c.Skills = c.Skills[1:] },
		"the order":        func(c *skills.Catalog) { c.Skills[0], c.Skills[1] = c.Skills[1], c.Skills[0] },
	} {
		changed := keywordCatalog()
		change(changed)
		assert.NotEqual(t, a, index.SourceHash(changed, nil, index.Options{}), what)
	}
	assert.NotEqual(t, a, index.SourceHash(keywordCatalog(), nil, index.Options{DeriveKeywords: true}))
	syn, err := tokenize.ParseSynonyms("s.yaml", []byte("groups:\n  - words: [redis, 缓存]\n"))
	require.NoError(t, err)
	assert.NotEqual(t, a, index.SourceHash(keywordCatalog(), syn, index.Options{}))
	g, err := tokenize.ParseGlossary("g.yaml", []byte("entries:\n  缓存: [cache]\n"))
	require.NoError(t, err)
	assert.NotEqual(t, a, index.SourceHash(keywordCatalog(), nil, index.Options{Glossary: g}))
}

// TestGlossaryWordsSegment: the glossary's Chinese words are words of the
// segmentation dictionary, so a keyword that straddles two of them inside
// a longer keyword is not read into a prompt: "索引" (index) is no word
// of "搜索引擎优化" (search engine optimisation), whose parts are 搜索|引擎|优化.
// Without the glossary it is, and meets the database skill.
func TestGlossaryWordsSegment(t *testing.T) {
	cat := catalog(
		skills.Skill{Name: "seo-expert", Description: "Search engine optimisation", Keywords: kw(skills.Core, "搜索引擎优化", "优化")},
		skills.Skill{Name: "db-expert", Description: "Slow SQL and indexes", Keywords: kw(skills.Core, "索引")},
	)
	g, err := tokenize.ParseGlossary("g.yaml", []byte("entries:\n  搜索: [search]\n  引擎: [engine]\n"))
	require.NoError(t, err)
	words := func(opt index.Options) []string {
		var out []string
		for _, tm := range index.Compile(cat, nil, opt).Tokenizer().Tokenize("搜索引擎优化技术").Terms {
			if tm.From == "" {
				out = append(out, tm.Text)
			}
		}
		return out
	}
	assert.Contains(t, words(index.Options{}), "索引", "the keywords alone: 索引 is read inside 搜索引擎优化")
	got := words(index.Options{Glossary: g})
	assert.NotContains(t, got, "索引")
	assert.Subset(t, got, []string{"搜索引擎优化", "搜索", "引擎", "优化"})

	// A filler the glossary holds (多少, "how many", glossed "number") is
	// no term: not a dictionary word, which no window filter would drop,
	// nor a translation.
	cat = catalog(
		skills.Skill{Name: "ops-expert", Description: "Disk usage and the number of inodes", Keywords: kw(skills.Core, "inode")},
		skills.Skill{Name: "pricing-expert", Description: "Price a plan: 定价 多少 each tier", Keywords: kw(skills.Core, "定价")},
	)
	g, err = tokenize.ParseGlossary("g.yaml", []byte("entries:\n  多少: [number]\n  磁盘: [disk]\n"))
	require.NoError(t, err)
	var terms []string
	for _, tm := range index.Compile(cat, nil, index.Options{Glossary: g}).Tokenizer().Tokenize("磁盘还剩多少").Terms {
		terms = append(terms, tm.Text)
	}
	assert.Contains(t, terms, "disk")
	assert.NotContains(t, terms, "多少")
	assert.NotContains(t, terms, "number")
}

// TestSaveLoad protects the compiled index file: what is loaded equals what
// was saved, and routes the same.
func TestSaveLoad(t *testing.T) {
	syn, err := tokenize.ParseSynonyms("s.yaml", []byte("groups:\n  - id: cache\n    words: [redis, 缓存]\n"))
	require.NoError(t, err)
	cat := catalog(
		skills.Skill{Name: "cache-expert", Description: "Redis 缓存 tuning", Body: "# Cache\nUse redis well.\n", Source: "x/SKILL.md",
			Enhances: []string{"db-expert"}, Keywords: concat(kw(skills.Core, "redis", "缓存击穿"), kw(skills.Extended, "cache"))},
		skills.Skill{Name: "db-expert", Description: "Slow SQL and indexes", Keywords: kw(skills.Core, "slow query", "慢查询")},
	)
	g, err := tokenize.ParseGlossary("g.yaml", []byte("entries:\n  慢查询: [slow query]\n  数据库: [database]\n"))
	require.NoError(t, err)
	ix := index.Compile(cat, syn, index.Options{Glossary: g})
	require.NotNil(t, ix.Glossary)
	path := filepath.Join(t.TempDir(), "sub", "index.bin")
	require.NoError(t, ix.Save(path))

	got, err := index.Load(path)
	require.NoError(t, err)
	assert.Equal(t, ix, got)
	// Weights are stored, not recomputed: IDF is not applied again on load.
	assert.Equal(t, ix.PostWeight, got.PostWeight)
	for _, prompt := range []string{"redis 缓存击穿", "slow query 太多", "数据库慢查询"} {
		assert.Equal(t, ix.Tokenizer().Tokenize(prompt), got.Tokenizer().Tokenize(prompt), prompt)
	}

	// Saving again over the file replaces it and leaves no temp files
	// (the verification sidecar of the load above aside).
	require.NoError(t, got.Save(path))
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.ElementsMatch(t, []string{"index.bin", ".index.bin.verified"}, names)
}

// TestGlossaryReach protects cross-language routing: a Chinese prompt
// reaches a skill written in English only through the glossary, and more
// weakly than the English word itself or a curated synonym would; the
// index keeps only the translations that reach one of its terms.
func TestGlossaryReach(t *testing.T) {
	cat := catalog(
		skills.Skill{Name: "db-expert", Description: "Tune slow database queries.", Keywords: kw(skills.Core, "slow query", "index")},
		skills.Skill{Name: "web-expert", Description: "Web pages that load slowly.", Keywords: kw(skills.Core, "lighthouse")},
	)
	g, err := tokenize.ParseGlossary("g.yaml", []byte("entries:\n  慢查询: [slow query]\n  数据库: [database]\n  贝壳: [seashell]\n"))
	require.NoError(t, err)
	score := func(ix *index.Index, prompt string) float64 {
		for _, r := range bm25.Score(ix, ix.Tokenizer().Tokenize(prompt)) {
			if r.Name == "db-expert" {
				return r.Score
			}
		}
		return 0
	}
	plain := index.Compile(cat, nil, index.Options{})
	ix := index.Compile(cat, nil, index.Options{Glossary: g})
	assert.Zero(t, score(plain, "慢查询"), "without the glossary a Chinese prompt shares nothing with the skill")
	translated := score(ix, "慢查询")
	assert.Positive(t, translated)
	assert.Less(t, translated, score(ix, "slow query"), "a translation is weaker than the word itself")

	syn, err := tokenize.ParseSynonyms("s.yaml", []byte("groups:\n  - id: slow-query\n    words: [慢查询, slow query]\n"))
	require.NoError(t, err)
	curated := index.Compile(cat, syn, index.Options{Glossary: g})
	assert.LessOrEqual(t, translated, score(curated, "慢查询"), "a translation is no stronger than a curated synonym (the synonym replaces it)")

	var kept []string
	for i := 0; i < ix.Glossary.Len(); i++ {
		kept = append(kept, ix.Glossary.Words.At(i))
	}
	assert.Equal(t, []string{"databas", "queri", "slow", "slow queri", "慢查询", "数据库"}, kept,
		"慢查询 reaches the keyword and its words; 贝壳 and seashell reach no term of the index")
}

// TestLoadErrors protects users pointing skillroute at the wrong file: the
// error names the path.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		data string
	}{
		{"text.txt", "hello, world\n"},
		{"empty.bin", ""},
		{"truncated.bin", "skillroute-index\n\x00\x01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			require.NoError(t, os.WriteFile(path, []byte(tt.data), 0o644))
			ix, err := index.Load(path)
			require.Error(t, err)
			assert.Nil(t, ix)
			assert.Contains(t, err.Error(), path)
		})
	}

	_, err := index.Load(filepath.Join(dir, "missing.bin"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	// An index written by another format version is reported as stale.
	old := index.Compile(keywordCatalog(), nil, index.Options{})
	old.Format = index.FormatVersion + 1
	path := filepath.Join(dir, "old.bin")
	require.NoError(t, old.Save(path))
	_, err = index.Load(path)
	require.Error(t, err)
	assert.True(t, errors.Is(err, index.ErrStale), "got %v", err)
	assert.Contains(t, err.Error(), path)
}

// TestContaining protects partial matching: a query term meets the
// keywords that contain it, English only at a word start, Chinese anywhere.
func TestContaining(t *testing.T) {
	cat := catalog(
		skills.Skill{Name: "a", Keywords: kw(skills.Core, "vue router", "vue", "lookahead", "pytest", "mysql慢查询", "慢查询优化", "test-runner")},
		skills.Skill{Name: "b", Keywords: kw(skills.Strong, "next.js router", "慢查询"), Description: "vuex routerless"},
	)
	ix := index.Compile(cat, nil, index.Options{})
	containing := func(term string) []string {
		var out []string
		ix.Containing(term, func(id int) { out = append(out, ix.Term(id)) })
		sort.Strings(out)
		return out
	}
	tests := []struct {
		term string
		want []string
	}{
		{"vue", []string{"vue router"}}, // at a word start; "vue" itself is not reported
		{"router", []string{"next.js router", "vue router"}},
		{"ahead", nil},                         // inside "lookahead": no word start
		{"test", []string{"test-runner"}},      // not "pytest"
		{"runner", []string{"test-runner"}},    // after a hyphen
		{"慢查询", []string{"mysql慢查询", "慢查询优化"}}, // Chinese: any position
		{"查询优", []string{"慢查询优化"}},
		{"mysql", []string{"mysql慢查询"}},
		{"vu", nil},      // shorter than MinPartial
		{"kafka", nil},   // in no keyword
		{"routerl", nil}, // text fields are not searched
		{"vue routers", nil},
	}
	for _, tt := range tests {
		t.Run(tt.term, func(t *testing.T) {
			assert.Equal(t, tt.want, containing(tt.term))
		})
	}
	assert.Equal(t, 3, index.MinPartial)
}

// TestDerivedKeywords protects plain Claude Code skills (name and
// description only): quoted trigger phrases and name words become core,
// rare description words strong, shared ones extended.
func TestDerivedKeywords(t *testing.T) {
	cat := catalog(
		skills.Skill{Name: "invoice-parser", Description: `Reads scanned receipts. Use when the user says "extract line items" or 「发票识别」.`},
		skills.Skill{Name: "doc-helper", Description: "Handles scanned documents.", Keywords: kw(skills.Core, "documents")},
	)
	ix := index.Compile(cat, nil, index.Options{})
	id := ix.SkillID("invoice-parser")
	require.True(t, ix.Skills.Derived(id))
	assert.False(t, ix.Skills.Derived(ix.SkillID("doc-helper")), "written keywords are kept")
	assert.Greater(t, ix.Skills.Keywords(id), 4)

	tierOf := func(text string) (index.Field, bool) {
		tid := ix.TermID(tokenize.Normalize(text))
		if tid < 0 {
			return 0, false
		}
		field, found := index.Field(0), false
		ix.Postings(tid, func(p index.Posting) {
			if p.Skill == id && p.Field.IsKeyword() && !found {
				field, found = p.Field, true
			}
		})
		return field, found
	}
	tests := []struct {
		text string
		want index.Field
	}{
		{"extract line items", index.FieldCore}, // quoted
		{"发票识别", index.FieldCore},               // CJK-quoted
		{"invoice", index.FieldCore},            // name word
		{"parser", index.FieldCore},             // name word
		{"receipts", index.FieldStrong},         // only this skill's description
		{"scanned", index.FieldExtended},        // shared with doc-helper
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got, ok := tierOf(tt.text)
			require.True(t, ok, "%q is no keyword of the derived skill", tt.text)
			assert.Equal(t, tt.want, got)
		})
	}
	// Generic name words are no keywords.
	_, ok := tierOf("helper")
	assert.False(t, ok)
	// Derived Han keywords join the segmentation dictionary.
	assert.Contains(t, ix.Dict.All(), "发票识别")

	// DeriveKeywords ignores written tiers.
	ix = index.Compile(cat, nil, index.Options{DeriveKeywords: true})
	assert.True(t, ix.Skills.Derived(ix.SkillID("doc-helper")))
}

// TestDerivedNameWordInQuotes protects the rule that name words are core
// even when a quoted phrase also uses them.
func TestDerivedNameWordInQuotes(t *testing.T) {
	cat := catalog(skills.Skill{Name: "invoice-parser", Description: `Use when the user says "check this invoice".`})
	ix := index.Compile(cat, nil, index.Options{})
	p := postings(t, ix, tokenize.Normalize("invoice"))["invoice-parser"]
	assert.Contains(t, p, index.FieldCore)
}

// TestDerivedKeywordsMatchPrompts protects derived keywords being stored
// in the form a prompt is tokenized to.
func TestDerivedKeywordsMatchPrompts(t *testing.T) {
	cat := catalog(skills.Skill{Name: "sql-helper", Description: "Tune the database and parse queries."})
	ix := index.Compile(cat, nil, index.Options{})
	for _, word := range []string{"database", "parse"} {
		q := ix.Tokenizer().Tokenize(word)
		require.Len(t, q.Terms, 1)
		p := postings(t, ix, q.Terms[0].Text)["sql-helper"]
		assert.True(t, p[index.FieldStrong].Weight > 0 || p[index.FieldExtended].Weight > 0, "%q has no keyword posting", word)
	}
}

// TestDerivedHyphenatedWordMeetsSpacedPrompt protects a plain skill's
// hyphenated word ("compile-time") against a prompt that writes it apart
// ("at compile time"): the skill keeps the spaced phrase as a keyword, the
// form the prompt's adjacent words take.
func TestDerivedHyphenatedWordMeetsSpacedPrompt(t *testing.T) {
	cat := catalog(
		skills.Skill{Name: "typescript-types", Description: "Catch mistakes at compile-time with generics."},
		skills.Skill{Name: "other", Description: "Unrelated text about gardens and time."},
	)
	ix := index.Compile(cat, nil, index.Options{})
	for _, prompt := range []string{"checked at compile time", "a compile-time check"} {
		var found bool
		for _, term := range ix.Tokenizer().Tokenize(prompt).Terms {
			if term.Text == "compil time" {
				found = postings(t, ix, term.Text)["typescript-types"][index.FieldStrong].Weight > 0
			}
		}
		assert.True(t, found, "%q does not meet the skill's \"compil time\"", prompt)
	}
}

// TestDottedNameKeyword pins that a word a skill writes only at the head
// of a dotted name is no strong keyword: the name is. "what should I do
// next?" met a Next.js skill's strong keyword "next"; a prompt that
// writes the name meets it still, and a word the text also writes alone
// stays a strong keyword.
func TestDottedNameKeyword(t *testing.T) {
	cat := catalog(
		skills.Skill{Name: "react-app-patterns", Description: "Build Next.js apps with server components; charts drawn with Chart.js, charts everywhere."},
		skills.Skill{Name: "other", Description: "Unrelated text about gardens."},
	)
	ix := index.Compile(cat, nil, index.Options{})
	keyword := func(term string) bool {
		return postings(t, ix, term)["react-app-patterns"][index.FieldStrong].Weight > 0
	}
	assert.False(t, keyword("next"), "a word only inside Next.js")
	assert.True(t, keyword("next.js"))
	assert.True(t, keyword("chart"), "written alone too")
	var terms []string
	for _, term := range ix.Tokenizer().Tokenize("how do I cache fetches in Next.js?").Terms {
		terms = append(terms, term.Text)
	}
	assert.Contains(t, terms, "next.js", "the prompt's term meets the keyword")
}

// TestDerivedKeywordsLeaveOut pins what a plain skill's text never makes
// a keyword of: a number, a name part that is a stop word, the wording a
// description uses to say when a skill applies; and what quoted triggers
// keep: the words, without the punctuation the quotes took in.
func TestDerivedKeywordsLeaveOut(t *testing.T) {
	cat := catalog(
		skills.Skill{Name: "verification-before-completion", Description: `Use this whenever the user wants anything checked, even ` +
			`if they only mention "deck," or "slides," in passing. Ships 10 presets.`},
		skills.Skill{Name: "other", Description: "Unrelated text about gardens."},
	)
	ix := index.Compile(cat, nil, index.Options{})
	keyword := func(term string) bool {
		kw, id := false, ix.TermID(term)
		if id < 0 {
			return false
		}
		ix.Postings(id, func(p index.Posting) {
			kw = kw || p.Skill == ix.SkillID("verification-before-completion") && p.Field.IsKeyword()
		})
		return kw
	}
	for _, term := range []string{"10", "before", "whenev", "want", "anyth", "even", "mention", "deck,", "slides,"} {
		assert.False(t, keyword(term), "%q is a keyword", term)
	}
	for _, term := range []string{"verif", "complet", "deck", "slide", "check", "preset"} {
		assert.True(t, keyword(term), "%q is no keyword", term)
	}
}

// TestDerivedCommonWordOfALongSkill protects a long playbook from taking
// the common words it uses often for keywords: distinctiveness compares
// how often each skill uses a word per word of its text, not how many
// times. "first", 11 times in a long skill's 600 words (once in its
// description) and once in each of six short skills' 30, is used less by
// the long one for its length.
func TestDerivedCommonWordOfALongSkill(t *testing.T) {
	filler := func(prefix string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "%s%c%c ", prefix, 'a'+i%26, 'a'+i/26%26)
		}
		return b.String()
	}
	list := []skills.Skill{{Name: "cold-outreach", Description: "Outreach sequences, the first touch.",
		Body: strings.Repeat("first ", 10) + filler("zq", 590)}}
	for i := range 6 {
		prefix := string(rune('b'+i)) + "x"
		list = append(list, skills.Skill{Name: fmt.Sprintf("short-%c", 'a'+i), Description: "first " + filler(prefix, 29)})
	}
	ix := index.Compile(catalog(list...), nil, index.Options{})
	p := postings(t, ix, tokenize.Normalize("first"))["cold-outreach"]
	for f := index.FieldCore; f <= index.FieldExtended; f++ {
		assert.Zero(t, p[f].Weight, "\"first\" is a %s keyword of the long skill", f)
	}
	assert.Positive(t, p[index.FieldBody].Weight, "its body still holds the word")
}

// DocFreq counts the skills a term reaches in any field, once each.
func TestDocFreq(t *testing.T) {
	ix := index.Compile(keywordCatalog(), nil, index.Options{})
	for _, term := range []string{"redi", "cach", "kafka", "databas", "nginx"} {
		assert.Equal(t, len(postings(t, ix, term)), ix.DocFreq(term), term)
	}
	assert.Equal(t, 3, ix.DocFreq("databas"), "listed by every skill")
	assert.Zero(t, ix.DocFreq("no-such-term"))
}

// TestDerivedWeightsLearnedFromCatalog protects the derivation's use of
// the catalog: a name word that many skills' texts use ("write", "test")
// is no core keyword, a common description word ("time") no strong one,
// and a word only one skill uses is weighted as its own.
func TestDerivedWeightsLearnedFromCatalog(t *testing.T) {
	common := "Write it down, test it, and take your time. "
	cat := catalog(
		skills.Skill{Name: "postmortem-writing", Description: "Blameless postmortems after an incident, written in good time.", Body: common + "timeline, root cause, action items"},
		skills.Skill{Name: "e2e-testing", Description: "Browser tests with Playwright.", Body: common + "playwright selectors and fixtures"},
		skills.Skill{Name: "scientific-writing", Description: "Papers for journals.", Body: common + "abstract, methods, results"},
		skills.Skill{Name: "unit-testing", Description: "Unit tests with mocks.", Body: common + "mocks, stubs, assertions"},
		skills.Skill{Name: "release-notes", Description: "Changelogs on time.", Body: common + "semver, changelog"},
	)
	ix := index.Compile(cat, nil, index.Options{})
	weight := func(skill, word string) (index.Field, float64) {
		tid := ix.TermID(tokenize.Normalize(word))
		field, w := index.Field(0), 0.0
		if tid < 0 {
			return field, 0
		}
		ix.Postings(tid, func(p index.Posting) {
			if ix.Skills.Name(p.Skill) == skill && p.Field.IsKeyword() {
				field, w = p.Field, p.Weight
			}
		})
		return field, w
	}
	f, _ := weight("postmortem-writing", "postmortem")
	assert.Equal(t, index.FieldCore, f, "a name word no other skill uses")
	f, _ = weight("e2e-testing", "e2e")
	assert.Equal(t, index.FieldCore, f)
	f, _ = weight("e2e-testing", "playwright")
	assert.Equal(t, index.FieldStrong, f, "a description word only this skill uses")
	for _, c := range []struct{ skill, word string }{
		{"postmortem-writing", "write"}, {"scientific-writing", "write"}, {"e2e-testing", "test"}, {"unit-testing", "test"},
	} {
		f, w := weight(c.skill, c.word)
		assert.False(t, w > 0 && f == index.FieldCore, "%s: %q is in every skill's text, yet core", c.skill, c.word)
	}
	for _, skill := range []string{"postmortem-writing", "release-notes"} {
		f, w := weight(skill, "time")
		assert.False(t, w > 0 && f != index.FieldExtended, "%s: %q is common, yet %s", skill, "time", f)
	}
	// A pair of name words is a phrase of its own.
	f, _ = weight("e2e-testing", "e2e testing")
	assert.Equal(t, index.FieldCore, f)
}

// A skill named for a word developers ask with ("explain") takes it as no
// strong keyword however few skills use it: developers' questions use it
// (the generic text, genericWeight), so "explain what a closure is" names
// nothing of the skill. Its rate here, 2 uses in 300 words, is a published
// explain skill's (22 in 1,456).
func TestDerivedQuestionWordIsNoStrongKeyword(t *testing.T) {
	var body strings.Builder
	for i := range 288 {
		fmt.Fprintf(&body, "zq%c%c ", 'a'+i%26, 'a'+i/26%26)
	}
	body.WriteString("explain")
	cat := catalog(
		skills.Skill{Name: "explain", Description: "Explain why a piece of code is structured the way it is.", Body: body.String()},
		skills.Skill{Name: "release-notes", Description: "Changelogs from merged pull requests.", Body: "semver, changelog"},
		skills.Skill{Name: "load-testing", Description: "Load tests with k6.", Body: "virtual users, thresholds"},
	)
	ix := index.Compile(cat, nil, index.Options{})
	for _, c := range []struct {
		word   string
		strong bool
	}{{"explain", false}, {"structured", true}} {
		p := postings(t, ix, tokenize.Normalize(c.word))["explain"]
		assert.Equal(t, c.strong, p[index.FieldCore].Weight > 0 || p[index.FieldStrong].Weight > 0, "%q strong or core", c.word)
	}
}

// TestGenericPrompts protects the embedded generic text: English and
// Chinese, comments left out.
func TestGenericPrompts(t *testing.T) {
	lines := index.GenericPrompts()
	assert.Greater(t, len(lines), 200)
	han := 0
	for _, l := range lines {
		assert.False(t, strings.HasPrefix(l, "#"))
		assert.NotEmpty(t, l)
		if tokenize.HanCount(l) > 0 {
			han++
		}
	}
	assert.Greater(t, han, len(lines)/4, "Chinese prompts too")
}

// A skill named for one release of a tool is found by the tool's name, in
// a correction, a rule or a label (Resolve) and in a prompt (Named), while
// one release alone has it; "api-design" is no version of "api".
func TestResolveVersioned(t *testing.T) {
	list := []skills.Skill{
		{Name: "api-design", Keywords: kw(skills.Core, "rest")},
		{Name: "jq-1-8-2", Keywords: kw(skills.Core, "jq")},
		{Name: "node-18", Keywords: kw(skills.Core, "node")},
		{Name: "node-20", Keywords: kw(skills.Core, "node")},
		{Name: "pandas-3-0-3", Keywords: kw(skills.Core, "dataframe")},
		{Name: "vega-lite-v6", Keywords: kw(skills.Core, "chart")},
	}
	sorted := index.Compile(catalog(list...), nil, index.Options{})
	path := filepath.Join(t.TempDir(), "index.bin")
	require.NoError(t, sorted.Save(path))
	loaded, err := index.Load(path)
	require.NoError(t, err)
	// A table out of order (a merged catalog's) is mapped, not searched.
	backward := slices.Clone(list)
	slices.Reverse(backward)
	unsorted := index.Compile(&skills.Catalog{Skills: backward}, nil, index.Options{})
	name := func(ix *index.Index, id int) string {
		if id < 0 {
			return ""
		}
		return ix.Skills.Name(id)
	}
	for word, want := range map[string]string{
		"pandas":       "pandas-3-0-3",
		"pandas-3-0-3": "pandas-3-0-3",
		"jq":           "jq-1-8-2",
		"vega-lite":    "vega-lite-v6",
		"node":         "", // two releases
		"api":          "",
		"pandas-3":     "", // a shorter version is no name
		"":             "",
	} {
		for _, ix := range []*index.Index{sorted, loaded, unsorted} {
			assert.Equal(t, want, name(ix, ix.Resolve(word)), word)
			assert.Equal(t, want, name(ix, ix.Named(word)), word)
		}
	}
}

// Resolve finds a skill by its name, its name without a plugin's prefix,
// or the bare name of the one plugin skill that has it, in a compiled
// index and in the same index loaded from its file.
func TestResolve(t *testing.T) {
	cat := catalog(
		skills.Skill{Name: "acme:deploy", Keywords: kw(skills.Core, "deploy")},
		skills.Skill{Name: "acme:lint", Keywords: kw(skills.Core, "lint")},
		skills.Skill{Name: "cache-expert", Keywords: kw(skills.Core, "redis")},
		skills.Skill{Name: "zeta:lint", Keywords: kw(skills.Core, "lint")},
		skills.Skill{Name: "root-cause-tracing", Title: "Root Cause Tracing", Keywords: kw(skills.Core, "trace")},
		skills.Skill{Name: "tracing-two", Title: "Tracing", Keywords: kw(skills.Core, "trace")},
		skills.Skill{Name: "tracing-three", Title: "tracing", Keywords: kw(skills.Core, "trace")},
	)
	ix := index.Compile(cat, nil, index.Options{})
	path := filepath.Join(t.TempDir(), "index.bin")
	require.NoError(t, ix.Save(path))
	loaded, err := index.Load(path)
	require.NoError(t, err)
	plain := index.Compile(keywordCatalog(), nil, index.Options{})
	plainPath := filepath.Join(t.TempDir(), "plain.bin")
	require.NoError(t, plain.Save(plainPath))
	plainLoaded, err := index.Load(plainPath)
	require.NoError(t, err)
	cases := []struct {
		ix   *index.Index
		name string
		want int
	}{
		{ix, "cache-expert", 2},
		{ix, "acme:deploy", 0},
		{ix, "deploy", 0},             // the one plugin skill of that name
		{ix, "other:cache-expert", 2}, // a prefix the catalog does not have
		{ix, "lint", -1},              // two plugins have one
		{ix, "zeta:lint", 6},
		{ix, "nobody", -1},
		{ix, "Root Cause Tracing", 3}, // a header's name, in any case
		{ix, "root cause tracing", 3},
		{ix, "Tracing", -1}, // two skills have that title
		{plain, "web-expert", 2},
		{plain, "x:web-expert", 2},
		{plain, "expert", -1},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.ix.Resolve(c.name), c.name)
		other := loaded
		if c.ix == plain {
			other = plainLoaded
		}
		assert.Equal(t, c.want, other.Resolve(c.name), "%s, loaded", c.name)
	}
	// Named is Resolve for a prompt's word: a skill's name or a plugin
	// skill's bare name, never a namespaced word.
	for word, want := range map[string]int{"cache-expert": 2, "deploy": 0, "lint": -1, "acme:deploy": 0, "other:cache-expert": -1, "": -1} {
		assert.Equal(t, want, loaded.Named(word), word)
	}
	assert.Equal(t, -1, plainLoaded.Named("expert"))
	// NameStarts: whether a name, or a plugin skill's bare name, could
	// begin with a prompt's words.
	for prefix, want := range map[string]bool{"root-cause-": true, "root-": true, "cause-": false, "deploy": true, "acme:": true, "cache-expert": true, "zzz": false} {
		assert.Equal(t, want, ix.NameStarts(prefix), prefix)
		assert.Equal(t, want, loaded.NameStarts(prefix), "%s, loaded", prefix)
	}
}

// TestSkillTable protects the skill table read in place: every field of
// every skill comes back as given, from a table built from a list and
// from one loaded from its file, and SkillID finds skills whether their
// names come sorted or not.
func TestSkillTable(t *testing.T) {
	list := []index.SkillInfo{
		{Name: "b-expert", Description: "B things", Source: "/s/b/SKILL.md", Enhances: []string{"a-expert", "c:expert"}, Keywords: 7, Length: 3.25},
		{Name: "a-expert", Title: "The A Expert", Conflicts: []string{"b-expert"}, Paths: []string{"src/**/*.ts", "*.sql"}, Derived: true, Length: 1.5},
		{Name: "c:expert", Description: "namespaced", Keywords: 1 << 20, Length: 0.1},
		{},
	}
	tab := index.NewSkillTable(list)
	require.Equal(t, len(list), tab.Len())
	for i, want := range list {
		assert.Equal(t, want, tab.Info(i), "skill %d", i)
		assert.Equal(t, want.Name, tab.Name(i))
		assert.Equal(t, want.Length, tab.Length(i))
		assert.Equal(t, want.Derived, tab.Derived(i))
	}
	ix := &index.Index{Skills: tab}
	assert.Equal(t, 1, ix.SkillID("a-expert"), "unsorted names: found by a scan")
	assert.Equal(t, 2, ix.SkillID("c:expert"))
	assert.Equal(t, -1, ix.SkillID("d-expert"))

	var cat []skills.Skill
	for _, s := range list[:3] {
		cat = append(cat, skills.Skill{Name: s.Name, Description: s.Description, Source: s.Source, Enhances: s.Enhances, Conflicts: s.Conflicts, Paths: s.Paths,
			Keywords: kw(skills.Core, "k"+s.Name)})
	}
	compiled := index.Compile(catalog(cat...), nil, index.Options{})
	path := filepath.Join(t.TempDir(), "index.bin")
	require.NoError(t, compiled.Save(path))
	loaded, err := index.Load(path)
	require.NoError(t, err)
	require.Equal(t, 3, loaded.Skills.Len())
	for i := range loaded.Skills.Len() {
		assert.Equal(t, compiled.Skills.Info(i), loaded.Skills.Info(i), "skill %d", i)
		assert.Equal(t, i, loaded.SkillID(loaded.Skills.Name(i)), "sorted names: found by a search")
	}
	assert.Equal(t, []string{"src/**/*.ts", "*.sql"}, loaded.Skills.Paths(0), "a-expert's paths, loaded")
	assert.True(t, loaded.Skills.Conditional())
	plain := index.NewSkillTable(list[2:])
	assert.False(t, plain.Conditional(), "no skill has paths")
	assert.Equal(t, []string{"a-expert", "b-expert", "c:expert"}, loaded.SkillNames())
	assert.Equal(t, 2, loaded.Resolve("expert"), "the one plugin skill of that name")
}

// TestMixedKeywordsMatch protects keywords and synonym words written
// across scripts with a space ("API 参考", "SQL 注入"): a prompt reads
// them whole, without the space, and the index must store them in that
// form, or they meet prompts only through the body text.
func TestMixedKeywordsMatch(t *testing.T) {
	syn, err := tokenize.NewSynonyms(tokenize.SynonymGroup{ID: "sqli", Words: []tokenize.SynonymWord{{Text: "SQL 注入"}, {Text: "sql injection"}}})
	require.NoError(t, err)
	cat := catalog(
		skills.Skill{Name: "docs", Keywords: concat(kw(skills.Strong, "API 参考"), kw(skills.Extended, "guide"))},
		skills.Skill{Name: "security", Keywords: concat(kw(skills.Core, "SQL注入"), kw(skills.Extended, "audit"))},
	)
	ix := index.Compile(cat, syn, index.Options{})
	tok := ix.Tokenizer()
	for _, tc := range []struct {
		prompt, term, skill string
		field               index.Field
	}{
		{"写一份 API 参考", "api参考", "docs", index.FieldStrong},
		{"写一份api参考", "api参考", "docs", index.FieldStrong},
		{"how do I stop sql injection here", "sql注入", "security", index.FieldCore},
		{"这里有 SQL 注入吗", "sql注入", "security", index.FieldCore},
	} {
		var found bool
		for _, tm := range tok.Tokenize(tc.prompt).Terms {
			found = found || tm.Text == tc.term
		}
		assert.True(t, found, "%q is read (or expanded) into %q", tc.prompt, tc.term)
		assert.Contains(t, postings(t, ix, tc.term)[tc.skill], tc.field, "%q is %s's keyword", tc.term, tc.skill)
	}
}
