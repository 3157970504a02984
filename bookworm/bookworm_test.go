package bookworm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/bookworm"
	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// shared is the design data folder holding the bookworm router's files.
const shared = "../../shared/bookworm/"

// TestIs protects how a loader picks the reader of a file the user named:
// by its .json name, and by content only when the name has no extension.
func TestIs(t *testing.T) {
	tests := []struct {
		path string
		data string
		want bool
	}{
		{"skills-index.json", "", true},
		{"/data/Synonyms.JSON", "", true},
		{"rules/disambiguation.yaml", "{}", false},
		{"builtin:rules/synonyms.yaml", "", false},
		{"my-rules.yml", "rules: []", false},
		{"/dev/fd/63", "  \n{\"rules\": []}", true},
		{"/dev/stdin", "rules:\n  - id: x\n", false},
		{"-", "", false},
		{"folder.d/rules", "{", true},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			assert.Equal(t, tt.want, bookworm.Is(tt.path, []byte(tt.data)))
		})
	}
}

const indexJSON = `{
 "_note": "test",
 "version": "reconstructed-1",
 "skills": [
  {
   "name": "vue-expert",
   "description": "Vue 3 专家",
   "maturity": "stable",
   "keywords": [
    {"keyword": "Vue", "weight": 2, "tier": "core", "tfidfWeight": 7.6},
    {"keyword": "pinia", "weight": 1.5, "tier": "strong"},
    {"keyword": "组件", "weight": 1, "tier": "extended"},
    {"keyword": "  ", "weight": 1, "tier": "extended"},
    {"keyword": "nuxt", "weight": 1, "tier": "knowledge"}
   ],
   "composable": {"enhances": ["frontend-expert"]}
  },
  {
   "name": "ai-ml-expert",
   "description": "AI/机器学习专家",
   "keywords": [{"keyword": "AI", "weight": 2, "tier": "CORE"}]
  }
 ]
}`

// TestCatalog protects reading a skills-index.json: weights as given,
// tiers by name, tfidfWeight ignored, skills sorted by name.
func TestCatalog(t *testing.T) {
	file := filepath.Join(t.TempDir(), "skills-index.json")
	require.NoError(t, os.WriteFile(file, []byte(indexJSON), 0o644))

	cat, err := bookworm.Catalog(file)
	require.NoError(t, err)
	assert.Equal(t, []string{"ai-ml-expert", "vue-expert"}, cat.Names())
	vue, ok := cat.Lookup("vue-expert")
	require.True(t, ok)
	assert.Equal(t, skills.Skill{
		Name:        "vue-expert",
		Description: "Vue 3 专家",
		Maturity:    "stable",
		Enhances:    []string{"frontend-expert"},
		Source:      file + "#vue-expert",
		Keywords: []skills.Keyword{
			{Text: "Vue", Tier: skills.Core, Weight: 2},
			{Text: "pinia", Tier: skills.Strong, Weight: 1.5},
			{Text: "组件", Tier: skills.Extended, Weight: 1},
			{Text: "nuxt", Tier: skills.Extended, Weight: 1},
		},
	}, *vue)
	ai, _ := cat.Lookup("ai-ml-expert")
	assert.Equal(t, []skills.Keyword{{Text: "AI", Tier: skills.Core, Weight: 2}}, ai.Keywords)
}

// TestCatalogErrors protects users pointing at a broken index: the error
// names the file and, for JSON errors, the line.
func TestCatalogErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, data string
		want       []string
	}{
		{"syntax", "{\n \"skills\": [\n  {\"name\": \"a\",}\n ]\n}", []string{"line 3"}},
		{"type", "{\n \"skills\": {}\n}", []string{"line 2"}},
		{"no name", `{"skills": [{"name": "a"}, {"description": "x"}]}`, []string{"skills[1] has no name"}},
		{"duplicate", `{"skills": [{"name": "a"}, {"name": "a"}]}`, []string{`skill "a" is already defined`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, tt.name+".json")
			require.NoError(t, os.WriteFile(file, []byte(tt.data), 0o644))
			_, err := bookworm.Catalog(file)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), file), err.Error())
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
	_, err := bookworm.Catalog(filepath.Join(dir, "missing.json"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestSynonyms protects reading synonyms.json: the first three words of
// a group expand at 0.7, the rest at 0.4, under the group's id.
func TestSynonyms(t *testing.T) {
	data := `{
  "version": "v6.5",
  "groups": [
    {"id": "frontend", "words": ["前端", "frontend", "客户端", "ui", "界面"]}
  ]
}`
	syn, err := bookworm.Synonyms("synonyms.json", []byte(data))
	require.NoError(t, err)
	weights := func(term string) map[string]float64 {
		out := map[string]float64{}
		for _, e := range syn.Expand(term) {
			assert.Equal(t, "frontend", e.Group)
			out[e.Term] = e.Weight
		}
		return out
	}
	assert.Equal(t, map[string]float64{"frontend": 0.7, "客户端": 0.7, "ui": 0.4, "界面": 0.4}, weights("前端"))
	assert.Equal(t, map[string]float64{"前端": 0.7, "frontend": 0.7, "客户端": 0.7, "ui": 0.4}, weights("界面"))
}

// TestSynonymsErrors protects users pointing at a broken synonyms.json:
// every error names the file, and the line for malformed JSON.
func TestSynonymsErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"truncated", "{\n \"groups\": [", "syn.json: line 2: unexpected end of JSON input"},
		{"groups not a list", "{\n \"groups\": 3\n}", "syn.json: line 2: "},
		{"one word", `{"groups": [{"id": "solo", "words": ["only", " "]}]}`, "syn.json: group solo: needs at least two words"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			syn, err := bookworm.Synonyms("syn.json", []byte(tt.data))
			require.Error(t, err)
			assert.Nil(t, syn)
			assert.True(t, strings.HasPrefix(err.Error(), tt.want), err.Error())
		})
	}
}

var catalogNames = []string{"debugger-expert", "performance-expert", "tester-expert"}

func known(name string) bool {
	for _, n := range catalogNames {
		if n == name {
			return true
		}
	}
	return false
}

// TestRules protects reading disambiguation-rules.json: rules written for
// a larger catalog are skipped and reported, not fatal; rules written for
// JavaScript regular expressions load and run on the backtracking engine;
// mutual exclusions are kept and honoured.
func TestRules(t *testing.T) {
	data := `{
  "_meta": {"version": "v2.2"},
  "rules": [
    {"id": "R01", "trigger": "bug|leak", "boost": "debugger-expert", "penalty": ["tester-expert", "graphql-architect"], "weight": 0.35,
     "mutual_exclusion": {"with": "R05", "on_keyword": "内存泄漏|memory\\s*leak|leak", "resolution": "R01 first"}},
    {"id": "R02", "trigger": "(?!foo)bar", "boost": "debugger-expert", "weight": 0.3},
    {"id": "R03", "trigger": "(?<!vue)路由分析", "boost": "debugger-expert", "weight": 0.3},
    {"id": "R04", "trigger": "mcp", "boost": "mcp-probe", "weight": 0.3},
    {"id": "R05", "trigger": "leak|性能", "boost": "performance-expert", "note": "perf", "weight": 0.3},
    {"id": "R06", "trigger": "x", "penalty": ["ghost"], "weight": 0.3}
  ]
}`
	set, problems, err := bookworm.Rules("bw.json", []byte(data), known)
	require.NoError(t, err)
	assert.True(t, set.Lenient)
	assert.Equal(t, "bw.json", set.Source)
	require.Len(t, set.Rules, 4)
	r01, r02, r03, r05 := set.Rules[0], set.Rules[1], set.Rules[2], set.Rules[3]
	assert.Equal(t, 6, set.Read)
	assert.Equal(t, "R01", r01.ID)
	assert.Equal(t, []string{"tester-expert"}, r01.Penalty)
	assert.Equal(t, "R05", r01.ExclusiveWith)
	assert.Equal(t, `内存泄漏|memory\s*leak|leak`, r01.OnKeyword)
	assert.Equal(t, "R05", r05.ID)
	assert.Equal(t, "perf", r05.Note)
	assert.Equal(t, "leak|性能", r05.Pattern)
	assert.Equal(t, "performance-expert", r05.Boost)
	assert.InDelta(t, 0.3, r05.Weight, 1e-12)
	assert.Equal(t, "R02", r02.ID)
	assert.Equal(t, disambig.Backtrack, r02.Branches[0].Engine)
	assert.Equal(t, "R03", r03.ID)
	assert.Equal(t, disambig.Backtrack, r03.Branches[0].Engine)

	reasons := map[string]string{}
	for _, p := range problems {
		assert.True(t, strings.HasPrefix(p.Error(), "bw.json: rule "+p.RuleID+": "), p.Error())
		reasons[p.RuleID] += p.Reason
	}
	assert.Contains(t, reasons["R01"], `penalty names unknown skill "graphql-architect"`)
	assert.Contains(t, reasons["R04"], `boost names unknown skill "mcp-probe"`)
	assert.Contains(t, reasons["R06"], `penalty names unknown skill "ghost"`)
	assert.Len(t, reasons, 3)
	assert.Equal(t, "6 rules: 4 loaded (1 of them trimmed), 2 skipped", disambig.Summary(set.Read, problems))

	// Both fire on "memory leak"; R01 declares the exclusion and wins.
	var fired []string
	for _, r := range set.Fired(tokenize.NewText("memory leak in the worker")) {
		fired = append(fired, r.ID)
	}
	assert.Equal(t, []string{"R01"}, fired)

	// The look-around rules fire as JavaScript would run them.
	fired = nil
	for _, r := range set.Fired(tokenize.NewText("做一次路由分析, foo bar")) {
		fired = append(fired, r.ID)
	}
	assert.Equal(t, []string{"R02", "R03"}, fired)
	assert.Empty(t, set.Fired(tokenize.NewText("vue路由分析")))
}

// TestRulesErrors protects users pointing at a file that is no rules
// file: the error names the file and the line.
func TestRulesErrors(t *testing.T) {
	for _, data := range []string{"{\"rules\": [", "{\n\"rules\": {\"id\": \"R01\"}\n}"} {
		set, problems, err := bookworm.Rules("bw.json", []byte(data), known)
		require.Error(t, err)
		assert.Nil(t, set)
		assert.Nil(t, problems)
		assert.True(t, strings.HasPrefix(err.Error(), "bw.json: line "), err.Error())
	}
}

// TestSharedData reads the bookworm router's own files, as the
// side-by-side comparison does: its 66 skills, 36 synonym groups, and
// 133 rules of which 109 load over its published catalog, 4 of them
// trimmed (the 24 skipped boost a skill absent from it, or penalise
// only such skills).
func TestSharedData(t *testing.T) {
	if _, err := os.Stat(shared + "skills-index.json"); err != nil {
		t.Skip("../shared/bookworm is not present; this test reads the bookworm router's files")
	}
	cat, err := bookworm.Catalog(shared + "skills-index.json")
	require.NoError(t, err)
	assert.Len(t, cat.Skills, 66)

	data, err := os.ReadFile(shared + "synonyms.json")
	require.NoError(t, err)
	require.True(t, bookworm.Is(shared+"synonyms.json", data))
	syn, err := bookworm.Synonyms(shared+"synonyms.json", data)
	require.NoError(t, err)
	assert.Equal(t, 36, syn.Groups.Len())

	data, err = os.ReadFile(shared + "disambiguation-rules.json")
	require.NoError(t, err)
	set, problems, err := bookworm.Rules(shared+"disambiguation-rules.json", data, func(s string) bool {
		_, ok := cat.Lookup(s)
		return ok
	})
	require.NoError(t, err)
	assert.Len(t, set.Rules, 109)
	assert.Equal(t, "133 rules: 109 loaded (4 of them trimmed), 24 skipped", disambig.Summary(set.Read, problems))
}
