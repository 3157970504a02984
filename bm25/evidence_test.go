package bm25_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/skills"
)

// A core keyword is what a skill is for, and a core hit outweighs what
// other skills' lesser evidence adds up to:
//   - two words that most skills' bodies use say little, however often
//     one long body repeats them;
//   - two extended keywords of another skill lose to the skill the prompt
//     names, however often the named skill's text repeats its word and
//     other skills' bodies mention it: saturation caps that word's score,
//     and the core tier's boost lifts it back over the two (without it,
//     1.43 against 1.46; "Vue 项目里…页面跳转之前统一拦一下" went to the
//     mini-program skill on "页面" and "跳转").
func TestCoreKeywordOutweighs(t *testing.T) {
	generic := strings.Repeat("check the service and restart the service, then check again. ", 12)
	tests := []struct {
		name         string
		named, rival skills.Skill
		filler       string // the body of four unrelated skills
		prompt       string
	}{
		{"two generic body words",
			skills.Skill{Name: "grafana-dashboards", Keywords: core("grafana"), Body: "panels, variables and rows of a dashboard"},
			skills.Skill{Name: "ops-playbook", Keywords: core("playbook"), Body: generic + strings.Repeat("escalate and page the owner. ", 10)},
			"check the service status. ", "grafana service check"},
		{"two extended keywords",
			skills.Skill{Name: "vue-expert", Keywords: core("vue"), Description: "Vue components and the Vue router.", Body: "Vue single-file components."},
			skills.Skill{Name: "miniprogram-expert", Keywords: append(core("wechat"), extended("redirect", "page")...), Description: "Page redirects of a WeChat mini program."},
			"works with vue. ", "vue: redirect to the login page first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := []skills.Skill{tt.named, tt.rival}
			for _, name := range []string{"a", "b", "c", "d"} {
				list = append(list, skills.Skill{Name: name, Keywords: core(name + "-tool"), Body: tt.filler + name})
			}
			ix := compile(t, nil, list...)
			rs := byName(bm25.Score(ix, query(ix, tt.prompt)))
			assert.Greater(t, rs[tt.named.Name].Score, rs[tt.rival.Name].Score, "%v vs %v", rs[tt.named.Name].Score, rs[tt.rival.Name].Score)
		})
	}
}

// Words cut from overlapping stretches of the prompt confirm one another:
// "测试" inside "补几个测试" adds OverlapShare of its score, not all of it.
func TestOverlappingTermsCountOnce(t *testing.T) {
	ix := compile(t, nil,
		skills.Skill{Name: "tester", Keywords: append(core("补几个测试"), skills.Keyword{Text: "测试", Tier: skills.Extended, Weight: skills.ExtendedWeight})},
		skills.Skill{Name: "other", Keywords: core("部署")},
	)
	rs := bm25.Score(ix, query(ix, "给列表页补几个测试"))
	require.NotEmpty(t, rs)
	r := rs[0]
	require.Equal(t, "tester", r.Name)
	var whole, inner *bm25.Match
	for i := range r.Matches {
		switch r.Matches[i].Term {
		case "补几个测试":
			whole = &r.Matches[i]
		case "测试":
			inner = &r.Matches[i]
		}
	}
	require.NotNil(t, whole)
	require.NotNil(t, inner)
	assert.False(t, whole.Overlap)
	assert.True(t, inner.Overlap)
	full := formula(ix, "tester", 1, inner.TF)
	assert.InDelta(t, full*bm25.OverlapShare, inner.Score, 1e-9)
	assert.InDelta(t, whole.Score+inner.Score, r.Score, 1e-9)
	assert.Contains(t, r.Explain(ix).String(), "overlaps a better match")
}

// Pasted material votes only through keywords: a stack of a log's words
// finds no skill by its body text, while a tool's name in it still counts.
func TestNoiseMeetsKeywordsOnly(t *testing.T) {
	ix := compile(t, nil,
		skills.Skill{Name: "python-tests", Keywords: core("pytest")},
		skills.Skill{Name: "sessions", Keywords: core("cookie"), Body: "session not found, fixture available in the cache"},
	)
	prompt := "why does this fail\nE       fixture 'db_session' not found\n>       available fixtures: cache, capsys, pytest"
	rs := byName(bm25.Score(ix, query(ix, prompt)))
	assert.NotContains(t, rs, "sessions", "the log's words meet no body text")
	assert.Contains(t, rs, "python-tests", "a tool named in the log still counts")

	rs = byName(bm25.Score(ix, query(ix, "the session cache is not found")))
	assert.Contains(t, rs, "sessions", "the same words written as prose do count")
}

// An extended keyword an author wrote is a broad word ("config"), which
// pasted material writes on every line: pasted, it meets only core and
// strong keywords; written by the user, it counts.
func TestNoiseMeetsNoWrittenExtendedKeyword(t *testing.T) {
	ix := compile(t, nil,
		skills.Skill{Name: "helm", Keywords: append(core("helm"), skills.Keyword{Text: "config", Tier: skills.Extended, Weight: 0.3})},
		skills.Skill{Name: "other", Keywords: core("cookie")},
	)
	pasted := "what happened here\n2024-05-01 12:00:03 ERROR config reload failed: config missing"
	assert.NotContains(t, byName(bm25.Score(ix, query(ix, pasted))), "helm", "a pasted line's broad word")
	assert.Contains(t, byName(bm25.Score(ix, query(ix, pasted+"\nmy helm release"))), "helm", "a core keyword in the user's words")
	assert.Contains(t, byName(bm25.Score(ix, query(ix, "the config reload failed"))), "helm", "the same word written as prose")
}

// A partial match counts as much as the prompt's word is rare: "app"
// inside "app router" is worth little when most skills' texts say "app".
func TestPartialMatchWeighedByTheWordsRarity(t *testing.T) {
	list := []skills.Skill{
		{Name: "next", Keywords: core("app router", "vue router")},
	}
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		list = append(list, skills.Skill{Name: name, Keywords: core(name + "-tool"), Body: "build the app and ship it"})
	}
	ix := compile(t, nil, list...)
	score := func(prompt string) bm25.Match {
		rs := byName(bm25.Score(ix, query(ix, prompt)))
		require.Contains(t, rs, "next", prompt)
		for _, m := range rs["next"].Matches {
			if m.Partial {
				return m
			}
		}
		t.Fatalf("%q: no partial match", prompt)
		return bm25.Match{}
	}
	common, rare := score("app"), score("vue")
	assert.Equal(t, 1.0, rare.Rarity, "a word no text uses")
	assert.Less(t, common.Rarity, 0.5, "a word five of six texts use")
	assert.Less(t, common.Score, rare.Score)
}

// Of overlapping matches the best set of independent ones counts: a part
// that scores more than the word holding it.
func TestOverlapKeepsTheBestIndependentSet(t *testing.T) {
	ix := compile(t, nil,
		skills.Skill{Name: "ux", Keywords: append(core("测试"), skills.Keyword{Text: "用户测试", Tier: skills.Extended, Weight: 0.2})},
		skills.Skill{Name: "other", Keywords: core("部署")},
	)
	rs := bm25.Score(ix, query(ix, "做一次用户测试"))
	require.NotEmpty(t, rs)
	overlap := map[string]bool{}
	for _, m := range rs[0].Matches {
		overlap[m.Term] = m.Overlap
	}
	assert.Equal(t, map[string]bool{"测试": false, "用户测试": true}, overlap)
}

// A Chinese word made of words, met whole, is a phrase written without a
// break: it counts beside its words, as an English phrase does. The skill
// whose core keyword is the compound (its words strong ones) outranks a
// rival whose core keywords are the words, by the compound's score
// (packed against its two words, it added OverlapShare of it, and the
// rival won 4.19 to 2.69).
func TestWholeCompoundCountsBesideItsWords(t *testing.T) {
	list := []skills.Skill{
		{Name: "camera-mvp", Keywords: append(core("相机权限最小可行产品"), strong("相机权限", "最小可行产品")...)},
		{Name: "camera-crash", Keywords: core("相机权限", "最小可行产品")},
	}
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		list = append(list, skills.Skill{Name: name, Keywords: core(name+"-tool", "闪退")})
	}
	ix := compile(t, nil, list...)
	rs := bm25.Score(ix, query(ix, "相机权限最小可行产品一直闪退"))
	require.Len(t, rs, 7)
	assert.Equal(t, "camera-mvp", rs[0].Name, "%s %.3f, %s %.3f", rs[0].Name, rs[0].Score, rs[1].Name, rs[1].Score)
	total := 0.0
	for _, m := range rs[0].Matches {
		assert.False(t, m.Overlap, "%s: the compound and its word are both evidence", m.Term)
		if m.Term == "相机权限最小可行产品" {
			assert.True(t, m.Compound)
		}
		total += m.Score
	}
	assert.InDelta(t, total, rs[0].Score, 1e-9)
}

// An English phrase met whole says its words stand together, which the
// words alone do not: it counts beside them. The skill whose core keyword
// is the phrase outranks one that merely lists both words, however strong
// each (packed against its words, the phrase lost to them).
func TestWholePhraseCountsBesideItsWords(t *testing.T) {
	list := []skills.Skill{
		{Name: "app-sqlalchemy", Keywords: append(core("app sqlalchemy"), skills.Keyword{Text: "app", Tier: skills.Extended, Weight: skills.ExtendedWeight}),
			Description: "SQLAlchemy models for the app."},
		{Name: "php-cdn", Keywords: append(core("app"), skills.Keyword{Text: "sqlalchemy", Tier: skills.Strong, Weight: skills.StrongWeight})},
	}
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		list = append(list, skills.Skill{Name: name, Keywords: core(name+"-tool", "app")})
	}
	ix := compile(t, nil, list...)
	rs := bm25.Score(ix, query(ix, "how do I set up app sqlalchemy with app?"))
	require.NotEmpty(t, rs)
	assert.Equal(t, "app-sqlalchemy", rs[0].Name)
	for _, m := range rs[0].Matches {
		if m.Term == "app sqlalchemi" {
			assert.False(t, m.Overlap, "the phrase is no overlap of its words")
		}
	}
}

// A prompt word that is a skill's own name, the word Claude Code invokes
// it by, outweighs two of another skill's keywords: "pptx" names the pptx
// skill, "deck" and "slides" are theme-factory's (without NameBoost,
// theme-factory scores 2.03 against 1.62). The pruned search scores a
// named skill whatever its bounds, and agrees.
func TestNameMatchWins(t *testing.T) {
	list := []skills.Skill{
		{Name: "pptx", Keywords: core("pptx", "presentation"), Description: "Create, edit and read presentation files",
			Body: strings.Repeat("layouts, speaker notes, charts and tables of a deck. ", 6)},
		{Name: "theme-factory", Keywords: append(core("theme"), strong("slides", "deck")...), Description: "Style slides: a theme for slides, decks and pages",
			Body: "Pick fonts and colors for the slides. Every slide gets the theme; slides share one palette."},
	}
	for _, name := range []string{"a", "b", "c", "d"} {
		list = append(list, skills.Skill{Name: name, Keywords: core(name + "-tool"), Body: "reports and pages. " + name})
	}
	ix := compile(t, nil, list...)
	q := query(ix, "a deck of slides in pptx")
	rs := bm25.Score(ix, q)
	require.NotEmpty(t, rs)
	assert.Equal(t, "pptx", rs[0].Name, "%v", names(rs))
	named := false
	for _, m := range rs[0].Matches {
		named = named || m.Named && m.Term == "pptx"
	}
	assert.True(t, named, "the match of its name is marked")
	assert.Equal(t, names(rs[:1]), names(bm25.TopKPruned(ix, q, nil, 1, nil)[:1]))
}

// TestVersionedNameWins: a skill named for one release of a tool
// ("pandas-3-0-3") is named by the tool's name, × NameBoost, as a skill
// named "pandas" is. Without it the DuckDB skill, whose text mentions
// pandas more often, took "pandas 3 broke this" from it.
func TestVersionedNameWins(t *testing.T) {
	list := []skills.Skill{
		{Name: "pandas-3-0-3", Description: "pandas 3.0.3 reference: DataFrame indexing, copy-on-write, groupby, resample.",
			Body: "Selecting with loc and iloc. Copy-on-write is the default. Chained assignment no longer writes through."},
		{Name: "duckdb-python-1-5-4", Description: "DuckDB Python client: SQL over Parquet, CSV and pandas DataFrames.",
			Body: strings.Repeat("Query a pandas DataFrame with SQL; return results as pandas. ", 3)},
	}
	for _, name := range []string{"jq-1-8-2", "yq-4-53-3", "ruff-0-15-18", "uv-0-11-23"} {
		list = append(list, skills.Skill{Name: name, Description: name + " reference", Body: "flags, options and examples."})
	}
	ix := compile(t, nil, list...)
	rs := bm25.Score(ix, query(ix, "after upgrading pandas this chained assignment does nothing"))
	require.NotEmpty(t, rs)
	assert.Equal(t, "pandas-3-0-3", rs[0].Name, "%v", names(rs))
	named := false
	for _, m := range rs[0].Matches {
		named = named || m.Named
	}
	assert.True(t, named, "pandas names pandas-3-0-3")
	q := query(ix, "after upgrading pandas this chained assignment does nothing")
	// A catalog past smallCatalog is pruned by bounds without the boost:
	// the skill the tool's name names is scored whatever its bounds.
	assert.Equal(t, names(rs[:1]), names(bm25.TopKPruned(ix, q, nil, 1, nil)[:1]), "pruning counts the name's boost")
}

// TestSpelledNameWins: a prompt that spells a skill's name in words ("use
// test-driven development", with or without the hyphen) names that skill,
// as a one-word name does: the matches cut from those words score ×
// NameBoost. Without it, subagent-driven-development wins here on the
// other skill's own name: its text uses "driven development" most, so
// those words are its derived keywords, not test-driven-development's.
func TestSpelledNameWins(t *testing.T) {
	list := []skills.Skill{
		{Name: "test-driven-development", Description: "Use when implementing any feature or bugfix, before writing implementation code",
			Body: "# Test-Driven Development\n\nWrite the test first. Watch it fail. Write minimal code to pass. Refactor."},
		{Name: "subagent-driven-development", Description: "Use when executing implementation plans with independent tasks in this session",
			Body: strings.Repeat("Subagent-driven development: a fresh subagent per task, driven development reviewed task by task. ", 5)},
	}
	for i := range 70 {
		list = append(list, skills.Skill{Name: fmt.Sprintf("other-%02d", i), Description: fmt.Sprintf("tool%02d reports", i), Body: "reports and pages of a test build."})
	}
	ix := compile(t, nil, list...)
	for _, prompt := range []string{"use test-driven development for this", "use test driven development for this"} {
		q := query(ix, prompt)
		rs := bm25.Score(ix, q)
		require.NotEmpty(t, rs, prompt)
		assert.Equal(t, "test-driven-development", rs[0].Name, "%s: %v", prompt, names(rs))
		for _, m := range rs[0].Matches {
			inName := m.Pos >= strings.Index(prompt, "test") && m.End <= strings.Index(prompt, " for")
			assert.Equal(t, inName, m.Named, "%s: %q is the name's words", prompt, m.Term)
		}
		assert.Equal(t, names(rs[:1]), names(bm25.TopKPruned(ix, q, nil, 1, nil)[:1]), prompt)
	}
	// Words that do not spell it whole name nothing.
	for _, r := range bm25.Score(ix, query(ix, "the test is driven by development builds")) {
		for _, m := range r.Matches {
			assert.False(t, m.Named, "%s: %q", r.Name, m.Term)
		}
	}
}

// A small number in a prompt is a count or a size: it meets a skill's
// keywords, never a number its body's examples happen to hold, while a
// longer one (a status code) still meets the text. Both TopK and Score
// read it so.
func TestSmallNumbersMeetKeywordsOnly(t *testing.T) {
	ix := compile(t, nil,
		skills.Skill{Name: "dataframes", Keywords: core("polars"), Body: "df.head(25) shows 25 rows; a 502 from the proxy"},
		skills.Skill{Name: "wcag", Keywords: core("a11y", "25"), Body: "contrast"},
		skills.Skill{Name: "other", Keywords: core("deploy"), Body: "ship it"},
	)
	for _, tt := range []struct {
		prompt, skill string
		want          bool
	}{
		{"about 25 participants each", "dataframes", false},
		{"about 25 participants each", "wcag", true},
		{"the proxy returns 502", "dataframes", true},
	} {
		for name, rs := range map[string][]bm25.Result{
			"Score": bm25.Score(ix, query(ix, tt.prompt)),
			"TopK":  bm25.TopK(ix, query(ix, tt.prompt), nil, 3, nil),
		} {
			_, met := byName(rs)[tt.skill]
			assert.Equal(t, tt.want, met, "%s: %q meets %s", name, tt.prompt, tt.skill)
		}
	}
}
