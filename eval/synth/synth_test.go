package synth_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeterministic protects benchmark tables: the same seed writes the
// same catalog and prompts, byte for byte; another seed another catalog.
func TestDeterministic(t *testing.T) {
	a, err := synth.Generate(synth.Options{Skills: 300, Seed: 7})
	require.NoError(t, err)
	b, err := synth.Generate(synth.Options{Skills: 300, Seed: 7})
	require.NoError(t, err)
	assert.Equal(t, a, b)
	c, err := synth.Generate(synth.Options{Skills: 300, Seed: 8})
	require.NoError(t, err)
	assert.NotEqual(t, a.Files[0].Data, c.Files[0].Data)
	assert.Len(t, a.Queries, synth.DefaultQueries)
}

// TestCatalogShape protects the realism the benchmarks rely on: every file
// parses as a SKILL.md, names are unique and new, tiers are about the
// built-ins' sizes, bodies are 1–3 KB, keywords are Chinese and English,
// and the vocabulary has a Zipf-like spread (a few words reach a large
// share of the catalog, most words few skills).
func TestCatalogShape(t *testing.T) {
	const n = 2000
	set, err := synth.Generate(synth.Options{Skills: n, Seed: 1})
	require.NoError(t, err)
	require.Len(t, set.Files, n)
	builtin, err := skills.Builtin()
	require.NoError(t, err)

	names := map[string]bool{}
	df := map[string]int{}
	var tiers [3]int
	han, total := 0, 0
	for _, f := range set.Files {
		sk, err := skills.Parse(f.Name+"/SKILL.md", f.Name, f.Data)
		require.NoError(t, err)
		require.Equal(t, f.Name, sk.Name)
		require.False(t, names[sk.Name], "duplicate name %s", sk.Name)
		names[sk.Name] = true
		_, shadows := builtin.Lookup(sk.Name)
		require.False(t, shadows, "%s shadows a built-in skill", sk.Name)
		require.Regexp(t, `^[a-z0-9]+(-[a-z0-9]+)*$`, sk.Name)
		require.NotEmpty(t, sk.Description)
		assert.GreaterOrEqual(t, len(sk.Body), synth.MinBody-200, sk.Name) // the last line may fall short of the target
		assert.LessOrEqual(t, len(sk.Body), synth.MaxBody, sk.Name)
		for _, k := range sk.Keywords {
			tiers[k.Tier]++
			df[k.Text]++
			total++
			for _, r := range k.Text {
				if unicode.Is(unicode.Han, r) {
					han++
					break
				}
			}
		}
		for _, e := range sk.Enhances {
			assert.True(t, names[e], "%s enhances %s, generated before it", sk.Name, e)
		}
	}
	// Tiers near the built-ins' per skill, scaled 0.7–1.0.
	var builtinTiers [3]int
	for _, sk := range builtin.Skills {
		for _, k := range sk.Keywords {
			builtinTiers[k.Tier]++
		}
	}
	for tier, count := range builtinTiers {
		want := float64(count) / float64(len(builtin.Skills))
		per := float64(tiers[tier]) / n
		t.Logf("tier %d: built-in %.1f per skill, generated %.1f", tier, want, per)
		assert.InDelta(t, 0.85*want, per, 0.3*want, "tier %d per skill", tier)
	}
	assert.InDelta(t, 0.45, float64(han)/float64(total), 0.15, "share of Chinese keywords")

	most, rare := 0, 0
	for _, c := range df {
		most = max(most, c)
		if c <= n/100 {
			rare++
		}
	}
	assert.Greater(t, most, n/2, "the commonest keyword reaches half the catalog")
	assert.Greater(t, float64(rare)/float64(len(df)), 0.5, "most keywords reach at most 1 %% of skills")
}

// A skill's own keywords name it alone, as a router matches them: no two
// skills' English name keywords stem alike ("naming user", "naming
// users"), and the name's parts are content words, no stop word
// ("readability where") and no conversational Chinese word ("看看前端").
// Otherwise a prompt that names its skill names another as well.
func TestOwnKeywordsAreDistinct(t *testing.T) {
	const n = 3000
	set, err := synth.Generate(synth.Options{Skills: n, Seed: 1})
	require.NoError(t, err)
	seen := map[string]string{}
	for _, f := range set.Files {
		sk, err := skills.Parse(f.Name+"/SKILL.md", f.Name, f.Data)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(sk.Keywords), 2)
		en, zh := sk.Keywords[0].Text, sk.Keywords[1].Text
		key := tokenize.Normalize(en)
		assert.Empty(t, seen[key], "%s and %s both name %q", seen[key], sk.Name, key)
		seen[key] = sk.Name
		for _, w := range strings.Fields(en) {
			assert.False(t, tokenize.IsStopWord(w), "%s: %q", sk.Name, en)
		}
		// 看看 ("have a look") is a built-in keyword, and conversational.
		assert.False(t, strings.HasPrefix(zh, "看看") || strings.HasSuffix(zh, "看看"), "%s: %q", sk.Name, zh)
	}
}

// TestWriteAndRoute protects `skillroute bench gen`: the folder is a
// catalog the router loads, queries.jsonl is eval input naming its skills,
// its prompts are answerable, and an existing folder is never overwritten.
func TestWriteAndRoute(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cat")
	set, err := synth.Write(dir, synth.Options{Skills: 200, Seed: 3, Queries: 120})
	require.NoError(t, err)

	cat, err := skills.LoadDir(dir)
	require.NoError(t, err)
	require.Len(t, cat.Skills, 200)

	f, err := os.Open(filepath.Join(dir, "queries.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	var queries []synth.Query
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q synth.Query
		require.NoError(t, json.Unmarshal(sc.Bytes(), &q))
		queries = append(queries, q)
	}
	require.Equal(t, set.Queries, queries)

	r, err := loader.Open(loader.Config{Catalog: dir})
	require.NoError(t, err)
	hits, none := 0, 0
	for _, q := range queries {
		if q.Expected == "none" {
			none++
			continue
		}
		_, ok := cat.Lookup(q.Expected)
		require.True(t, ok, "expected skill %s is in the catalog", q.Expected)
		if r.Route(q.Query, router.Session{}).Skill == q.Expected {
			hits++
		}
	}
	assert.Positive(t, none, "some prompts are small talk")
	assert.GreaterOrEqual(t, float64(hits)/float64(len(queries)-none), 0.9, "top-1 on the generated prompts")

	_, err = synth.Write(dir, synth.Options{Skills: 5, Seed: 3})
	require.Error(t, err)
	assert.Contains(t, err.Error(), dir)
	_, err = synth.Generate(synth.Options{Skills: 0})
	assert.Error(t, err)
}

// Sizes past what generation can hold are refused before anything is
// made: `bench gen --skills 100000000` ran out of memory (a crash, not an
// error). A folder in use is refused first, before a catalog is
// generated in memory only to be thrown away.
func TestWriteRefusesBeforeGenerating(t *testing.T) {
	for _, opt := range []synth.Options{{Skills: synth.MaxSkills + 1, Seed: 1}, {Skills: 3, Queries: synth.MaxQueries + 1, Seed: 1}} {
		_, err := synth.Write(filepath.Join(t.TempDir(), "out"), opt)
		assert.ErrorContains(t, err, "at most")
	}
	used := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(used, "x"), nil, 0o644))
	_, err := synth.Write(used, synth.Options{Skills: synth.MaxSkills + 1, Seed: 1})
	assert.ErrorContains(t, err, "not empty")
}
