package disambig_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/tokenize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A rule set loaded from the cache fires exactly as the parsed one, with
// the same matched lengths (the cache carries each branch's guarded
// expression, which the parsed set works out itself), so the hook's fast
// path never routes differently from `skillroute route`. That holds for a
// set that matches one prompt, as in a hook process (each branch compiles
// only the alternatives the prompt can match), and for one that matches
// them all (the whole expressions, after the first few).
func TestCacheRoundTrip(t *testing.T) {
	parsed, path := builtinCache(t)
	cached, _, err := disambig.LoadCached(path)
	require.NoError(t, err)
	require.Len(t, cached.Rules, len(parsed.Rules))

	var prompts []string
	for _, r := range parsed.Rules {
		prompts = append(prompts, r.Examples...)
	}
	prompts = append(prompts, "你好", "thanks", "react 页面加载慢", "")
	// The examples again with the words of other rules' examples
	// around them: literals of many alternatives at once.
	for i := range len(prompts) - 1 {
		prompts = append(prompts, prompts[i]+" "+prompts[i+1], prompts[i+1]+"，"+prompts[i])
	}
	fired := 0
	for _, p := range prompts {
		lower := tokenize.NewText(p).Lower
		a, b := ids(parsed.Fired(tokenize.NewText(p))), ids(cached.Fired(tokenize.NewText(p)))
		assert.Equal(t, a, b, "prompt %q", p)
		assert.Equal(t, disambig.Specificity(parsed, lower), disambig.Specificity(cached, lower), "prompt %q", p)
		once, _, err := disambig.LoadCached(path)
		require.NoError(t, err)
		assert.Equal(t, disambig.Specificity(parsed, lower), disambig.Specificity(once, lower), "prompt %q, a set of its own", p)
		fired += len(a)
	}
	assert.Greater(t, fired, len(parsed.Rules), "the examples fire their rules")

	// A damaged cache is an error, never a panic or a half set.
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, raw[:len(raw)/2], 0o644))
	_, _, err = disambig.LoadCached(path)
	assert.Error(t, err)
}

// A set parsed in process skips, by its rule index, the rules whose
// screens a prompt misses, and fires exactly the rules that trying every
// rule fires, with the same lengths; after Restrict has dropped rules
// (renumbering the rest) too.
func TestScreensFireAsEveryRule(t *testing.T) {
	parsed, _ := builtinCache(t)
	var prompts []string
	for _, r := range parsed.Rules {
		prompts = append(prompts, r.Examples...)
	}
	prompts = append(prompts, "你好", "thanks", "react 页面加载慢", "")
	for i := range len(prompts) - 1 {
		prompts = append(prompts, prompts[i]+" "+prompts[i+1])
	}
	check := func(set *disambig.Set) {
		every := disambig.Unscreened(set)
		fired := 0
		for _, p := range prompts {
			lower := tokenize.NewText(p).Lower
			want := disambig.Specificity(every, lower)
			assert.Equal(t, want, disambig.Specificity(set, lower), "prompt %q", p)
			fired += len(want)
		}
		assert.Greater(t, fired, len(set.Rules), "the examples fire their rules")
	}
	check(parsed)

	// Every third boost skill gone: its rules are dropped, the others
	// move up, and the index built for the first numbering must go.
	gone := map[string]bool{}
	for i, r := range parsed.Rules {
		if i%3 == 0 {
			gone[r.Boost] = true
		}
	}
	before := len(parsed.Rules)
	parsed.Restrict(func(s string) (string, bool) { return s, !gone[s] })
	require.Less(t, len(parsed.Rules), before)
	check(parsed)
}

// builtinCache parses the shipped rules and writes their cache file.
func builtinCache(tb testing.TB) (*disambig.Set, string) {
	tb.Helper()
	data, err := os.ReadFile("../rules/disambiguation.yaml")
	require.NoError(tb, err)
	set, problems, err := disambig.Parse("rules.yaml", data, func(string) bool { return true })
	require.NoError(tb, err)
	path := filepath.Join(tb.TempDir(), "rules.bin")
	require.NoError(tb, set.Save(path, problems))
	return set, path
}

// The cache carries what a rules file was read into: rules whose triggers
// run on the backtracking engine, and the problems, rule by rule, so that
// the hook's warning counts the same rules as `rules lint`.
func TestCacheCarriesBacktrackingRules(t *testing.T) {
	specs := []disambig.RuleSpec{
		{ID: "R01", Trigger: "bug|报错", Boost: "debugger-expert", Penalty: []string{"ghost"}, Weight: 0.35},
		{ID: "R02", Trigger: "(?<!vue)路由分析|(?:slack).*(?:bot|机器人)(?!.*(?:搭建|开发))", Boost: "debugger-expert", Weight: 0.3},
		{ID: "R03", Trigger: `^自动(?!化)[\u4e00-\u9fa5a-z]{0,4}$`, Penalty: []string{"tester-expert"}, Weight: 0.3},
		{ID: "R04", Trigger: "mcp", Boost: "mcp-probe", Weight: 0.3},
	}
	set, problems, err := disambig.Build("bw.json", specs, known, disambig.BuildOptions{Lenient: true})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "rules.bin")
	require.NoError(t, set.Save(path, problems))
	cached, cachedProblems, err := disambig.LoadCached(path)
	require.NoError(t, err)
	assert.Equal(t, problems, cachedProblems)
	assert.Equal(t, set.Read, cached.Read)
	assert.Equal(t, "4 rules: 3 loaded (1 of them trimmed), 1 skipped", disambig.Summary(cached.Read, cachedProblems))
	require.Len(t, cached.Rules, 3)
	for i := range set.Rules {
		for j, b := range set.Rules[i].Branches {
			assert.Equal(t, b.Engine, cached.Rules[i].AllBranches()[j].Engine, "%s branch %d", set.Rules[i].ID, j)
		}
	}
	assert.Equal(t, disambig.Backtrack, cached.Rules[1].AllBranches()[0].Engine)
	assert.Equal(t, disambig.RE2, cached.Rules[0].AllBranches()[0].Engine)
	for _, p := range []string{"做路由分析", "vue路由分析", "slack bot 怎么接", "slack bot 搭建", "自动整理", "自动化", "有个 bug", ""} {
		assert.Equal(t, ids(set.Fired(tokenize.NewText(p))), ids(cached.Fired(tokenize.NewText(p))), p)
	}
	assert.Equal(t, []string{"R02"}, ids(cached.Fired(tokenize.NewText("做路由分析"))))
	assert.Equal(t, []string{"R03"}, ids(cached.Fired(tokenize.NewText("自动整理"))))
}

// A cached set decodes a rule's branches when a prompt first passes the
// rule's screen: routes running at once on one loaded set (eval's
// workers) fire as the parsed set does, whichever decodes first.
func TestCachedRulesDecodeOnceConcurrently(t *testing.T) {
	parsed, path := builtinCache(t)
	cached, _, err := disambig.LoadCached(path)
	require.NoError(t, err)
	var prompts []string
	for _, r := range parsed.Rules {
		prompts = append(prompts, r.Examples...)
	}
	want := make([][]string, len(prompts))
	for i, p := range prompts {
		want[i] = ids(parsed.Fired(tokenize.NewText(p)))
	}
	var wg sync.WaitGroup
	got := make([][][]string, 4)
	for w := range got {
		got[w] = make([][]string, len(prompts))
		wg.Go(func() {
			for k := range prompts {
				i := (k + w*len(prompts)/len(got)) % len(prompts) // each worker starts elsewhere
				got[w][i] = ids(cached.Fired(tokenize.NewText(prompts[i])))
			}
		})
	}
	wg.Wait()
	for w := range got {
		assert.Equal(t, want, got[w], "worker %d", w)
	}
}
