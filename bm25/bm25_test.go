package bm25_test

import (
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

func compile(t *testing.T, syn *tokenize.Synonyms, list ...skills.Skill) *index.Index {
	t.Helper()
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return index.Compile(&skills.Catalog{Skills: list}, syn, index.Options{})
}

func core(words ...string) []skills.Keyword {
	return tiered(skills.Core, skills.CoreWeight, words)
}

// strong and extended are core's counterparts for the lower tiers.
func strong(words ...string) []skills.Keyword {
	return tiered(skills.Strong, skills.StrongWeight, words)
}

func extended(words ...string) []skills.Keyword {
	return tiered(skills.Extended, skills.ExtendedWeight, words)
}

func tiered(tier skills.Tier, weight float64, words []string) []skills.Keyword {
	out := make([]skills.Keyword, len(words))
	for i, w := range words {
		out[i] = skills.Keyword{Text: w, Tier: tier, Weight: weight}
	}
	return out
}

// posting returns the compiled posting of term for the named skill and field.
func posting(t *testing.T, ix *index.Index, term, skill string, field index.Field) index.Posting {
	t.Helper()
	id := ix.TermID(term)
	require.GreaterOrEqual(t, id, 0, "term %q", term)
	var out index.Posting
	found := false
	ix.Postings(id, func(p index.Posting) {
		if ix.Skills.Name(p.Skill) == skill && p.Field == field {
			out, found = p, true
		}
	})
	require.True(t, found, "no %s posting of %q for %s", field, term, skill)
	return out
}

// formula is the scoring formula, written out for the tests.
func formula(ix *index.Index, skill string, wq, tf float64) float64 {
	dl := ix.Skills.Length(ix.SkillID(skill))
	return wq * tf * (bm25.K1 + 1) / (tf + bm25.K1*(1-bm25.B+bm25.B*dl/ix.AvgLength))
}

func byName(rs []bm25.Result) map[string]bm25.Result {
	out := map[string]bm25.Result{}
	for _, r := range rs {
		out[r.Name] = r
	}
	return out
}

func names(rs []bm25.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name
	}
	return out
}

func query(ix *index.Index, prompt string) tokenize.Query {
	return ix.Tokenizer().Tokenize(prompt)
}

// TestScoreExactMatch protects the seed's P0 fix: BM25 takes the compiled
// weight (tier × IDF) as its term frequency and applies no IDF of its own.
func TestScoreExactMatch(t *testing.T) {
	ix := compile(t, nil,
		skills.Skill{Name: "cache-expert", Keywords: core("redis", "memcached", "cache")},
		skills.Skill{Name: "queue-expert", Keywords: core("kafka")},
		skills.Skill{Name: "web-expert", Keywords: core("nginx", "caddy")},
	)
	rs := bm25.Score(ix, query(ix, "Redis"))
	require.Len(t, rs, 1)
	r := rs[0]
	assert.Equal(t, "cache-expert", r.Name)
	assert.Equal(t, ix.SkillID("cache-expert"), r.Skill)

	p := posting(t, ix, "redi", "cache-expert", index.FieldCore)
	idf := index.IDF(3, 1)
	require.InDelta(t, skills.CoreWeight*idf, p.Weight, 1e-6, "compiled weight is tier × IDF")
	tf := p.Weight
	// dl 3 against an average of 2, which the index keeps on its grid
	// of averages (within 1 %).
	require.InEpsilon(t, 2.0, ix.AvgLength, 0.005)
	// A core keyword met exactly counts × CoreBoost after saturation.
	want := 1.5 * 1 * tf * (1.2 + 1) / (tf + 1.2*(1-0.75+0.75*3/ix.AvgLength))
	assert.InDelta(t, want, r.Score, 1e-9)
	assert.InDelta(t, bm25.CoreBoost*formula(ix, "cache-expert", 1, tf), r.Score, 1e-9)
	assert.Equal(t, bm25.CoreBoost, r.Matches[0].Tier)
	// Applying IDF again would give a different score.
	assert.NotEqual(t, bm25.CoreBoost*formula(ix, "cache-expert", 1, tf*idf), r.Score)

	require.Len(t, r.Matches, 1)
	m := r.Matches[0]
	assert.Equal(t, "redi", m.Term)
	assert.Equal(t, "redi", m.Query)
	assert.Equal(t, "redi", m.Origin)
	assert.False(t, m.Partial)
	assert.Equal(t, tf, m.TF)
	assert.Equal(t, 1.0, m.QWeight)
	assert.Equal(t, r.Score, m.Score)
	assert.Equal(t, []bm25.Field{{Field: index.FieldCore, Weight: p.Weight}}, m.Fields)
}

// TestScoreFieldsAdd protects BM25F: a term found in several fields of a
// skill adds up its compiled weights before saturation.
func TestScoreFieldsAdd(t *testing.T) {
	ix := compile(t, nil,
		skills.Skill{Name: "cache-expert", Description: "Redis tuning", Keywords: core("redis")},
		skills.Skill{Name: "web-expert", Description: "Nginx config", Keywords: core("nginx")},
	)
	rs := bm25.Score(ix, query(ix, "redis"))
	require.Len(t, rs, 1)
	tf := posting(t, ix, "redi", "cache-expert", index.FieldCore).Weight +
		posting(t, ix, "redi", "cache-expert", index.FieldDescription).Weight
	assert.InDelta(t, tf, rs[0].Matches[0].TF, 1e-9)
	assert.InDelta(t, bm25.CoreBoost*formula(ix, "cache-expert", 1, tf), rs[0].Score, 1e-9)
	assert.Len(t, rs[0].Matches[0].Fields, 2)
}

// TestScorePartialMatch protects partial matching: a query term inside a
// longer keyword counts PartialFactor of its exact weight, keywords only.
func TestScorePartialMatch(t *testing.T) {
	ix := compile(t, nil,
		skills.Skill{Name: "db-expert", Keywords: core("slow query", "mysql")},
		skills.Skill{Name: "search-expert", Description: "query parser", Keywords: core("elasticsearch")},
	)
	require.Equal(t, 0.6, bm25.PartialFactor)
	rs := bm25.Score(ix, query(ix, "query"))
	got := byName(rs)
	require.Contains(t, got, "db-expert")
	r := got["db-expert"]
	require.Len(t, r.Matches, 1)
	m := r.Matches[0]
	assert.True(t, m.Partial)
	assert.Equal(t, "slow queri", m.Term)
	assert.Equal(t, "queri", m.Query)
	exact := posting(t, ix, "slow queri", "db-expert", index.FieldCore).Weight
	assert.InDelta(t, bm25.PartialFactor*exact, m.TF, 1e-9)
	assert.InDelta(t, formula(ix, "db-expert", 1, bm25.PartialFactor*exact), r.Score, 1e-9)

	// The exact phrase scores higher than the part.
	full := byName(bm25.Score(ix, query(ix, "slow query")))["db-expert"]
	assert.Greater(t, full.Score, r.Score)

	// A text-field word is matched exactly, never partially.
	s := got["search-expert"]
	require.Len(t, s.Matches, 1)
	assert.False(t, s.Matches[0].Partial)
	for _, f := range s.Matches[0].Fields {
		assert.False(t, f.Field.IsKeyword())
	}
	// Terms shorter than MinPartial do not match inside keywords.
	assert.Empty(t, bm25.Score(ix, tokenize.Query{Terms: []tokenize.Term{{Text: "sl", Weight: 1}}}))
}

// A prompt word that is itself a skill's keyword names that skill's
// subject whole: the longer keywords of other skills that merely contain
// it are not met partially ("python" inside "python爬虫").
func TestKeywordIsNotMatchedPartially(t *testing.T) {
	ix := compile(t, nil,
		skills.Skill{Name: "python-pro", Keywords: core("python")},
		skills.Skill{Name: "crawler", Keywords: core("python crawler", "scrapy")},
	)
	got := byName(bm25.Score(ix, query(ix, "python")))
	assert.Contains(t, got, "python-pro")
	assert.NotContains(t, got, "crawler")

	// Without a skill whose keyword it is, the word meets the phrase.
	ix = compile(t, nil, skills.Skill{Name: "crawler", Keywords: core("python crawler", "scrapy")},
		skills.Skill{Name: "other", Keywords: core("rust")})
	got = byName(bm25.Score(ix, query(ix, "python")))
	require.Contains(t, got, "crawler")
	assert.True(t, got["crawler"].Matches[0].Partial)
}

// TestScoreOncePerWord protects against double counting: a prompt word
// and its synonyms count once per skill, at their best; a word inside
// several keywords counts once.
func TestScoreOncePerWord(t *testing.T) {
	syn, err := tokenize.ParseSynonyms("syn.yaml", []byte("groups:\n  - id: k8s\n    words: [k8s, kubernetes, 容器编排]\n"))
	require.NoError(t, err)
	ix := compile(t, syn,
		skills.Skill{Name: "k8s-expert", Keywords: core("k8s", "kubernetes", "容器编排")},
		skills.Skill{Name: "react-expert", Keywords: core("react", "react hooks", "react router")},
	)
	single := posting(t, ix, "k8s", "k8s-expert", index.FieldCore).Weight

	q := query(ix, "k8s")
	require.Len(t, q.Terms, 3, "k8s expands to its two group-mates")
	rs := bm25.Score(ix, q)
	require.Len(t, rs, 1)
	require.Len(t, rs[0].Matches, 1)
	assert.Equal(t, "k8s", rs[0].Matches[0].Term)
	assert.InDelta(t, bm25.CoreBoost*formula(ix, "k8s-expert", 1, single), rs[0].Score, 1e-9)

	// Two words the user typed count twice, each once.
	rs = bm25.Score(ix, query(ix, "k8s kubernetes"))
	require.Len(t, rs, 1)
	assert.Len(t, rs[0].Matches, 2)

	// A synonym that is the only match scores at its weight, via its origin.
	ix2 := compile(t, syn, skills.Skill{Name: "k8s-expert", Keywords: core("kubernetes")}, skills.Skill{Name: "other", Keywords: core("nginx")})
	rs = bm25.Score(ix2, query(ix2, "k8s"))
	require.Len(t, rs, 1)
	m := rs[0].Matches[0]
	assert.Equal(t, "kubernet", m.Term)
	assert.Equal(t, "k8s", m.Origin)
	assert.Equal(t, tokenize.SynonymWeight, m.QWeight)
	assert.InDelta(t, bm25.CoreBoost*formula(ix2, "k8s-expert", tokenize.SynonymWeight, m.TF), rs[0].Score, 1e-9)

	// "react" is in three keywords of one skill but scores once.
	rs = bm25.Score(ix, query(ix, "react"))
	require.Len(t, rs, 1)
	require.Len(t, rs[0].Matches, 1)
	assert.Equal(t, "react", rs[0].Matches[0].Term)
	assert.False(t, rs[0].Matches[0].Partial)
}

// TestScoreQueryWeight protects negation and synonym weights: the query
// term's weight scales its contribution.
func TestScoreQueryWeight(t *testing.T) {
	ix := compile(t, nil,
		skills.Skill{Name: "cache-expert", Keywords: core("redis")},
		skills.Skill{Name: "web-expert", Keywords: core("nginx")},
	)
	plain := byName(bm25.Score(ix, query(ix, "redis")))["cache-expert"].Score
	negated := byName(bm25.Score(ix, query(ix, "不要用 redis")))["cache-expert"].Score
	assert.InDelta(t, tokenize.NegatedWeight*plain, negated, 1e-9)
}

// TestScoreRanking protects the order of results: best first, ties by
// name, the same on every run; unmatched skills are left out.
func TestScoreRanking(t *testing.T) {
	ix := compile(t, nil,
		skills.Skill{Name: "zeta", Keywords: core("redis")},
		skills.Skill{Name: "alpha", Keywords: core("redis")},
		skills.Skill{Name: "mid", Keywords: core("redis")},
		skills.Skill{Name: "best", Keywords: core("redis", "cluster")},
		skills.Skill{Name: "none", Keywords: core("nginx")},
	)
	q := query(ix, "redis cluster")
	first := bm25.Score(ix, q)
	assert.Equal(t, []string{"best", "alpha", "mid", "zeta"}, names(first))
	assert.Equal(t, first[1].Score, first[3].Score)
	for range 20 {
		assert.Equal(t, first, bm25.Score(ix, q))
	}
	assert.Empty(t, bm25.Score(ix, query(ix, "postgres")))
	assert.Empty(t, bm25.Score(ix, tokenize.Query{}))

	rs := []bm25.Result{{Name: "b", Score: 1}, {Name: "c", Score: 2}, {Name: "a", Score: 1}}
	bm25.Sort(rs)
	assert.Equal(t, []string{"c", "a", "b"}, names(rs))
}

// TestExplain protects `skillroute route --explain`: the tree names each
// matched keyword, its field and tier, and marks partial matches.
func TestExplain(t *testing.T) {
	syn, err := tokenize.ParseSynonyms("syn.yaml", []byte("groups:\n  - id: k8s\n    words: [k8s, kubernetes]\n"))
	require.NoError(t, err)
	ix := compile(t, syn,
		skills.Skill{Name: "db-expert", Keywords: core("slow query", "kubernetes"), Description: "database tuning"},
		skills.Skill{Name: "other", Keywords: core("nginx")},
	)
	rs := bm25.Score(ix, query(ix, "query k8s tuning"))
	require.Len(t, rs, 1)
	e := rs[0].Explain(ix)
	assert.Equal(t, rs[0].Score, e.Value)
	assert.Contains(t, e.Message, "db-expert")
	require.Len(t, e.Children, 3)
	var sum float64
	for _, c := range e.Children {
		sum += c.Value
	}
	assert.InDelta(t, e.Value, sum, 1e-9)

	s := e.String()
	for _, want := range []string{
		`"slow queri" partial ×0.6 × rarity 1.00 via "queri"`,
		`"kubernet" exact, core keyword ×1.50, from "k8s", query weight 0.60`, // an expansion names the word the prompt wrote
		`"tune" exact`,
		"core field, weight 1.00",
		"description field, weight ",
	} {
		assert.Contains(t, s, want)
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	assert.Len(t, lines, 1+3+3)
	assert.True(t, strings.HasPrefix(lines[1], "  "), "children are indented")

	// A Chinese word written with a gap shows how the prompt wrote it;
	// one written whole does not.
	gapped := compile(t, nil, skills.Skill{Name: "disk-alerts", Keywords: core("磁盘满")}, skills.Skill{Name: "other", Keywords: core("nginx")})
	rs = bm25.Score(gapped, query(gapped, "磁盘快满了"))
	require.Len(t, rs, 1)
	assert.Contains(t, rs[0].Explain(gapped).String(), `"磁盘满" exact, core keyword ×1.50, written "磁盘快满", query weight 0.80`)
	rs = bm25.Score(gapped, query(gapped, "磁盘满了"))
	require.Len(t, rs, 1)
	assert.NotContains(t, rs[0].Explain(gapped).String(), "written")
}
