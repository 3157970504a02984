package recall

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillroute/skillroute/tokenize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var facts = []Memory{
	{ID: "m1", Text: "Locally the API listens on port 8787 and the web dev server on 3100."},
	{ID: "m2", Text: "Logging uses structlog JSON; no emails or other personal data in logs."},
	{ID: "m3", Text: "We deploy the API to Fly.io with fly deploy, only from main."},
	{ID: "m4", Text: "Code comments and commit messages stay in English."},
	{ID: "m5", Text: "Production runs in the Fly region fra; Postgres is on RDS in eu-central-1."},
}

func search(t *testing.T, x *Index, prompt string) []Hit {
	t.Helper()
	return x.Search(tokenize.NewText(prompt), 0)
}

func TestSearchFindsTheFact(t *testing.T) {
	x, err := Build(MemoryDocs(facts))
	require.NoError(t, err)
	cases := []struct{ prompt, want string }{
		{"which port does the API listen on locally?", "m1"},
		{"本地 API 跑在哪个端口？", "m1"}, // 本地, 端口: the glossary bridges the languages
		{"日志里能打用户邮箱吗？", "m2"},    // 日志 log, 邮箱 email
		{"给这个函数加注释", "m4"},       // 注释 comment
		{"how do we deploy the api?", "m3"},
		{"生产环境在哪个 region？", "m5"},
	}
	for _, c := range cases {
		hits := search(t, x, c.prompt)
		require.NotEmpty(t, hits, c.prompt)
		assert.Equal(t, c.want, facts[hits[0].Doc].ID, c.prompt)
		assert.Greater(t, hits[0].Confidence, 0.0)
		assert.LessOrEqual(t, hits[0].Confidence, 1.0)
		assert.NotEmpty(t, hits[0].Matched, "a hit says which words matched")
	}
	assert.Empty(t, search(t, x, "what is a monad"), "nothing in common, no hit")
}

func TestSearchConfidenceReadsCoverage(t *testing.T) {
	x, err := Build(MemoryDocs(facts))
	require.NoError(t, err)
	focused := search(t, x, "which port does the API listen on locally?")[0]
	passing := search(t, x, "write a React hook that fetches the user list from the API, with paging, retries and a loading spinner")
	require.NotEmpty(t, passing)
	assert.Greater(t, focused.Confidence, passing[0].Confidence+0.2,
		"a question the fact answers beats a long request that names the API in passing")
}

func TestSearchIgnoresIDsAndSmallNumbers(t *testing.T) {
	x, err := Build(MemoryDocs(facts))
	require.NoError(t, err)
	for _, h := range search(t, x, "bge-m3 embeddings") {
		assert.NotEqual(t, "m3", facts[h.Doc].ID, "a memory's id is no word of it")
	}
	assert.Empty(t, search(t, x, "10 of 14"), "short numbers match by chance, so not at all")
	hits := search(t, x, "is 8787 free?")
	require.NotEmpty(t, hits)
	assert.Equal(t, "m1", facts[hits[0].Doc].ID, "a port number identifies")
}

func TestSearchOneFact(t *testing.T) {
	// A user's first memory: IDF over one fact says nothing, so it counts
	// as over MinCollection, and a prompt about the fact still finds it
	// confidently.
	x, err := Build(MemoryDocs([]Memory{{ID: "m1", Text: "we deploy with fly.io, never with docker compose"}}))
	require.NoError(t, err)
	hits := search(t, x, "how do we deploy this service?")
	require.Len(t, hits, 1)
	assert.Greater(t, hits[0].Confidence, 0.4)
}

func TestToolSearch(t *testing.T) {
	tools := []Tool{
		{Name: "port-procs", Description: "Show which processes are listening on a TCP port on this machine."},
		{Name: "git-state", Description: "Read the current git branch and uncommitted changes."},
		{Name: "time-now", Description: "Current date and time in a timezone or city."},
	}
	x, err := Build(ToolDocs(tools))
	require.NoError(t, err)
	for prompt, want := range map[string]string{
		"what's running on port 8080":        "port-procs",
		"which branch am I on?":              "git-state",
		"现在纽约几点？":                            "time-now",
		"看看哪个进程占用了 3000 端口":                  "port-procs",
		"is anything uncommitted in my repo": "git-state",
	} {
		hits := search(t, x, prompt)
		require.NotEmpty(t, hits, prompt)
		assert.Equal(t, want, tools[hits[0].Doc].Name, prompt)
	}
}

func TestOpenFromCache(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	memPath := filepath.Join(dir, MemoriesFile)
	created := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	stored := append([]Memory(nil), facts...)
	stored[0].Scope, stored[0].Project, stored[0].Created = ScopeProject, "/src/app", created
	stored[1].AgeDays = 12.5
	require.NoError(t, writeMemories(memPath, stored))
	assert.False(t, FileCached(memPath, cache))

	compiled, x, err := OpenMemories(memPath, cache)
	require.NoError(t, err)
	assert.True(t, FileCached(memPath, cache), "compiled once, kept for the next process")
	loaded, y, err := OpenMemories(memPath, cache)
	require.NoError(t, err)
	want, err := ReadMemories(memPath)
	require.NoError(t, err)
	assert.Equal(t, want, compiled)
	assert.Equal(t, want, loaded, "the cache carries every field: the file need not be parsed")
	prompt := "本地 API 跑在哪个端口？"
	assert.Equal(t, search(t, x, prompt), search(t, y, prompt), "the loaded index retrieves as the compiled one")

	// An edit compiles afresh.
	later := time.Now().Add(time.Minute)
	require.NoError(t, writeMemories(memPath, stored[:2]))
	require.NoError(t, os.Chtimes(memPath, later, later))
	assert.False(t, FileCached(memPath, cache))
	edited, _, err := OpenMemories(memPath, cache)
	require.NoError(t, err)
	assert.Len(t, edited, 2)

	toolPath := filepath.Join(dir, ToolsFile)
	require.NoError(t, os.WriteFile(toolPath, []byte("- name: k8s-pods\n  description: List pods.\n  risk: 0.05\n  cost: 0.1\n  requires: [memory]\n"), 0o644))
	for range 2 {
		tools, _, err := OpenTools(toolPath, cache, false)
		require.NoError(t, err)
		assert.Equal(t, []Tool{{Name: "k8s-pods", Description: "List pods.", Risk: 0.05, Cost: 0.1, Requires: []string{"memory"}}}, tools)
	}

	none, x, err := OpenMemories(filepath.Join(dir, "absent.jsonl"), cache)
	assert.NoError(t, err)
	assert.Nil(t, none)
	assert.Zero(t, x.Len())
	assert.True(t, FileCached(filepath.Join(dir, "absent.jsonl"), cache), "nothing to compile")
	_, _, err = OpenTools(filepath.Join(dir, "absent.yaml"), cache, false)
	assert.ErrorIs(t, err, fs.ErrNotExist, "a tools file asked for must exist")
	tools, _, err := OpenTools(filepath.Join(dir, "absent.yaml"), cache, true)
	assert.NoError(t, err, "the state folder's may be absent")
	assert.Empty(t, tools)

	require.NoError(t, os.WriteFile(toolPath, []byte("- name: a\n"), 0o644))
	_, _, err = OpenTools(toolPath, cache, false)
	assert.ErrorContains(t, err, "tools.yaml:1: tool a has no description", "errors name the file, not the cache")

	for i := 0; i < cacheKeep+3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("m%d.jsonl", i))
		require.NoError(t, writeMemories(p, facts[:1]))
		_, _, err := OpenMemories(p, cache)
		require.NoError(t, err)
	}
	files, _ := filepath.Glob(filepath.Join(cache, "recall-*.bin"))
	assert.LessOrEqual(t, len(files), cacheKeep, "old compiled files are pruned")
	sidecars, _ := filepath.Glob(filepath.Join(cache, ".recall-*.verified"))
	assert.LessOrEqual(t, len(sidecars), cacheKeep, "with their verification sidecars")

	for _, f := range files {
		require.NoError(t, os.WriteFile(f, []byte("junk"), 0o644))
	}
	again, _, err := OpenMemories(memPath, cache)
	assert.NoError(t, err, "a damaged cache file is compiled over")
	assert.Len(t, again, 2)
}

// TestSynonymsWeights: the glossary's words expand at GlossaryWeight, the
// router's at their own, and a bad group is an error naming the files.
func TestSynonymsWeights(t *testing.T) {
	router := []byte("groups:\n  - {id: k8s, words: [k8s, kubernetes]}\n")
	gloss := []byte("groups:\n  - {id: port, words: [端口, port]}\n")
	syn, err := Synonyms(router, gloss)
	require.NoError(t, err)
	assert.Equal(t, []tokenize.Expansion{{Term: "port", Weight: GlossaryWeight, Group: "port"}}, syn.Expand("端口"))
	assert.Equal(t, []tokenize.Expansion{{Term: "kubernet", Weight: tokenize.SynonymWeight, Group: "k8s"}}, syn.Expand("k8s"))

	_, err = Synonyms(router, []byte("groups:\n  - {id: lonely, words: [端口]}\n"))
	assert.ErrorContains(t, err, GlossaryName)
	assert.ErrorContains(t, err, "group lonely")
	_, err = Synonyms(router, []byte("groups:\n  - {id: port, word: [端口, port]}\n"))
	assert.ErrorContains(t, err, GlossaryName+": ", "a misspelt key names the glossary")
}
