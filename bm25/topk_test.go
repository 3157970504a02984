package bm25_test

import (
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/tokenize"
)

const shared = "../../shared"

// prompts reads every prompt of an eval file, session turns included.
func prompts(t testing.TB, path string) []string {
	f, err := eval.Read(path)
	require.NoError(t, err)
	return f.Prompts()
}

// generated writes a synthetic catalog once per test binary.
var generated = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "skillroute-topk-")
	if err != nil {
		return "", err
	}
	_, err = synth.Write(filepath.Join(dir, "cat"), synth.Options{Skills: 1500, Seed: 5, Queries: 300})
	return filepath.Join(dir, "cat"), err
})

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := generated(); err == nil {
		os.RemoveAll(filepath.Dir(dir))
	}
	os.Exit(code)
}

// promptSet is a catalog and the prompts to compare on.
type promptSet struct {
	name    string
	opt     loader.Config
	prompts func(t *testing.T) []string
}

func sharedFile(file string) func(t *testing.T) []string {
	return func(t *testing.T) []string {
		if _, err := os.Stat(shared); err != nil {
			t.Skip("../shared (design data) is absent")
		}
		return prompts(t, filepath.Join(shared, file))
	}
}

// pasted are prompts with pasted material (logs, stack traces, URLs,
// paths), whose terms meet keywords only, and overlapping cuts (a path
// and its parts, a Chinese phrase and its windows), which count once.
var pasted = []string{
	"the build fails:\n2024-05-01T10:00:00Z ERROR [main] java.lang.NullPointerException at com.acme.App.run(App.java:42)\nhow do I fix it",
	"see https://github.com/acme/web/pull/123/files, the react component re-renders too often",
	"tests/conftest.py fixture is slow, pytest takes 40s on src/app/models/user_profile.py",
	"Traceback (most recent call last):\n  File \"/usr/lib/python3.11/site-packages/django/db/backends/utils.py\", line 89, in _execute\npsycopg2.errors.DeadlockDetected: deadlock detected",
	"帮我看看这个报错 Error: Cannot find module 'webpack-cli' at /home/u/app/node_modules/.bin/webpack 加载慢",
	"kubectl logs pod/api-7d9f: OOMKilled, exit code 137, 部署之后内存一直涨",
	"/var/log/nginx/error.log 里全是 upstream timed out (110: Connection timed out) while reading response header",
	"用户测试补几个测试，数据库存储加载慢查询优化",
}

func promptSets() []promptSet {
	builtin := loader.Config{Catalog: loader.Builtin}
	return []promptSet{
		{"dev", builtin, sharedFile("eval/dev.jsonl")},
		{"sessions", builtin, sharedFile("eval/sessions-dev.jsonl")},
		{"actions", builtin, sharedFile("eval/actions/prompts.jsonl")},
		{"real-dev", loader.Config{Catalog: filepath.Join(shared, "eval/real-dev/skills")}, sharedFile("eval/real-dev/prompts.jsonl")},
		{"bookworm", loader.Config{Catalog: filepath.Join(shared, "bookworm/skills-index.json"), Synonyms: filepath.Join(shared, "bookworm/synonyms.json")},
			sharedFile("bookworm/golden-dev.jsonl")},
		{"pasted", builtin, func(*testing.T) []string { return pasted }},
		{"pasted real-dev", loader.Config{Catalog: filepath.Join(shared, "eval/real-dev/skills")}, func(t *testing.T) []string {
			if _, err := os.Stat(shared); err != nil {
				t.Skip("../shared (design data) is absent")
			}
			return pasted
		}},
		{"generated", loader.Config{}, func(t *testing.T) []string {
			dir, err := generated()
			require.NoError(t, err)
			return prompts(t, filepath.Join(dir, "queries.jsonl"))
		}},
	}
}

func openSet(t *testing.T, set promptSet) (*index.Index, []string) {
	list := set.prompts(t)
	opt := set.opt
	if set.name == "generated" {
		opt.Catalog, _ = generated()
	}
	ix, err := loader.OpenIndex(opt)
	require.NoError(t, err)
	return ix, list
}

// want is what TopK must return: ScoreWith's results, the first k and
// those of the skills in also.
func want(all []bm25.Result, k int, also []int) []bm25.Result {
	var out []bm25.Result
	for i, r := range all {
		if i < k || slices.Contains(also, r.Skill) {
			out = append(out, r)
		}
	}
	return out
}

// alsoFor picks skills a later stage might need: one the prompt reaches
// outside the top k, one chosen by the prompt's hash (usually unmatched),
// and an id that names no skill.
func alsoFor(prompt string, all []bm25.Result, k, n int) []int {
	h := fnv.New32a()
	h.Write([]byte(prompt))
	also := []int{int(h.Sum32() % uint32(n)), n + 3}
	if len(all) > k+2 {
		also = append(also, all[len(all)-1].Skill)
	}
	return also
}

// learned is an adjuster with deltas on every skill and keyword it is
// asked about, derived from their names: up to +0.5 and down to -1.
type learned struct{}

func delta(s string) float64 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return float64(h.Sum32()%150)/100 - 1
}

func (learned) KeywordDelta(skill, term string) float64 { return delta(skill + "\x00" + term) }
func (learned) SkillDelta(skill string) float64         { return delta(skill) / 2 }

// boundedLearned says how far its deltas go, so TopK prunes with it.
type boundedLearned struct{ learned }

func (boundedLearned) MaxDeltas() (keyword, skill float64) { return 0.5, 0.25 }

// TestTopKExact protects routing at scale: pruned top-k scoring returns
// exactly what scoring every skill returns for the skills it keeps, on
// every dev prompt and on a generated catalog, with and without learned
// weights.
func TestTopKExact(t *testing.T) {
	adjusters := []struct {
		name string
		adj  bm25.Adjuster
	}{{"plain", nil}, {"learned", boundedLearned{}}, {"unbounded", learned{}}}
	for _, set := range promptSets() {
		t.Run(set.name, func(t *testing.T) {
			ix, list := openSet(t, set)
			require.NotEmpty(t, list)
			for _, a := range adjusters {
				if a.name == "unbounded" && set.name == "generated" {
					continue // scores everything: the shared sets cover it, faster
				}
				for _, p := range list {
					q := ix.Tokenizer().Tokenize(p)
					all := bm25.ScoreWith(ix, q, a.adj)
					for _, k := range []int{1, 5, 12} {
						also := alsoFor(p, all, k, ix.Skills.Len())
						got := bm25.TopK(ix, q, a.adj, k, also)
						require.Equal(t, want(all, k, also), got, "%s, k=%d: %q", a.name, k, p)
						if b, ok := a.adj.(bm25.Bounded); ok || a.adj == nil {
							// Pruned whatever the size: TopK scores a small catalog whole.
							got = bm25.TopKPruned(ix, q, b, k, also)
							require.Equal(t, want(all, k, also), got, "%s, pruned, k=%d: %q", a.name, k, p)
						}
					}
				}
			}
		})
	}
}

// TestTopKNothing protects the edges: no match, k of zero.
func TestTopKNothing(t *testing.T) {
	ix, err := loader.OpenIndex(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	assert.Empty(t, bm25.TopK(ix, ix.Tokenizer().Tokenize("zzzqqq"), nil, 5, []int{1}))
	q := ix.Tokenizer().Tokenize("React 页面加载慢")
	all := bm25.Score(ix, q)
	require.NotEmpty(t, all)
	assert.Empty(t, bm25.TopK(ix, q, nil, 0, nil))
	assert.Equal(t, all[:1], bm25.TopK(ix, q, nil, 0, []int{all[0].Skill}))
	assert.Equal(t, all, bm25.TopK(ix, q, nil, ix.Skills.Len(), nil))
}

// BenchmarkTopK compares pruned and exhaustive scoring on the prompts of a
// generated catalog (1,500 skills; BENCHMARKS.md has larger ones).
func BenchmarkTopK(b *testing.B) {
	dir, err := generated()
	require.NoError(b, err)
	ix, err := loader.OpenIndex(loader.Config{Catalog: dir})
	require.NoError(b, err)
	var qs []tokenize.Query
	for _, p := range prompts(b, filepath.Join(dir, "queries.jsonl")) {
		qs = append(qs, ix.Tokenizer().Tokenize(p))
	}
	b.Run("topk", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			bm25.TopK(ix, qs[i%len(qs)], nil, router.MaxCandidates, nil)
		}
	})
	b.Run("exhaustive", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			bm25.Score(ix, qs[i%len(qs)])
		}
	})
}

// BenchmarkTopKBuiltin compares the same on the 50 built-in skills and
// the dev prompts, where TopK scores every skill (smallCatalog).
func BenchmarkTopKBuiltin(b *testing.B) {
	if _, err := os.Stat(shared); err != nil {
		b.Skip("../shared (design data) is absent")
	}
	ix, err := loader.OpenIndex(loader.Config{Catalog: loader.Builtin})
	require.NoError(b, err)
	var qs []tokenize.Query
	for _, p := range prompts(b, filepath.Join(shared, "eval/dev.jsonl")) {
		qs = append(qs, ix.Tokenizer().Tokenize(p))
	}
	b.Run("pruned", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			bm25.TopKPruned(ix, qs[i%len(qs)], nil, router.MaxCandidates, nil)
		}
	})
	b.Run("topk", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			bm25.TopK(ix, qs[i%len(qs)], nil, router.MaxCandidates, nil)
		}
	})
}

// TestTopKConcurrent protects the sums TopK reuses between calls
// (calibration routes on every core at once): routes running together,
// on catalogs of different sizes, return what each returns alone.
func TestTopKConcurrent(t *testing.T) {
	dir, err := generated()
	require.NoError(t, err)
	big, err := loader.OpenIndex(loader.Config{Catalog: dir})
	require.NoError(t, err)
	small, err := loader.OpenIndex(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	list := prompts(t, filepath.Join(dir, "queries.jsonl"))[:60]
	type run struct {
		ix *index.Index
		q  tokenize.Query
	}
	var runs []run
	for _, p := range list {
		for _, ix := range []*index.Index{big, small} {
			runs = append(runs, run{ix, ix.Tokenizer().Tokenize(p)})
		}
	}
	want := make([][]bm25.Result, len(runs))
	for i, r := range runs {
		want[i] = bm25.TopK(r.ix, r.q, nil, 5, nil)
	}
	got := make([][]bm25.Result, len(runs))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(runs); i += 4 {
				got[i] = bm25.TopK(runs[i].ix, runs[i].q, nil, 5, nil)
			}
		}()
	}
	wg.Wait()
	for i := range runs {
		require.Equal(t, want[i], got[i], "prompt %d", i/2)
	}
}
