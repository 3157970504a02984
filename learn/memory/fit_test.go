package memory_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/loader"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const shared = "../../../shared/"

// fitSet is a labelled prompt file and the catalog it is routed over.
type fitSet struct {
	name string
	file string
	cfg  loader.Config
	// tight: the set's prompts are whole requests, for which one-word
	// changes must stay near (bookworm's are keyword lists of three or
	// four words, where one word is a third of the prompt).
	tight bool
}

var fitSets = []fitSet{
	{"dev", shared + "eval/dev.jsonl", loader.Config{Catalog: loader.Builtin}, true},
	{"real-dev", shared + "eval/real-dev/prompts.jsonl", loader.Config{Catalog: shared + "eval/real-dev/skills"}, true},
	{"bookworm", shared + "bookworm/golden-dev.jsonl", loader.Config{Catalog: shared + "bookworm/skills-index.json", Synonyms: shared + "bookworm/synonyms.json"}, false},
}

// swapClauses moves a prompt's first clause to its end: the same request
// in another order.
func swapClauses(q string) string {
	for _, sep := range []string{"，", ", ", "；", "。"} {
		if i := strings.Index(q, sep); i > 0 && i+len(sep) < len(q) {
			return strings.TrimSpace(q[i+len(sep):]) + sep + q[:i]
		}
	}
	w := strings.Fields(q)
	return strings.Join(append(w[len(w)/2:], w[:len(w)/2]...), " ")
}

// changeWord replaces one word of a prompt: two characters in the middle
// of its longest Chinese run, else its longest English word.
func changeWord(q string) string {
	r := []rune(q)
	at, longest := 0, 0
	for i := 0; i < len(r); {
		j := i
		for j < len(r) && unicode.Is(unicode.Han, r[j]) {
			j++
		}
		if j-i > longest {
			at, longest = i, j-i
		}
		i = max(j, i+1)
	}
	if longest >= 4 {
		m := at + longest/2
		return string(r[:m-1]) + "东西" + string(r[m+1:])
	}
	w := strings.Fields(q)
	best := 0
	for i := range w {
		if len(w[i]) > len(w[best]) {
			best = i
		}
	}
	w[best] = "stuff"
	return strings.Join(w, " ")
}

func quantile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(p*float64(len(s)-1))]
}

func share(xs []float64, atLeast float64) float64 {
	n := 0
	for _, x := range xs {
		if x >= atLeast {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

// TestThresholdFit is where Threshold and SameAt come from, and what keeps
// them honest: over three labelled sets, no two prompts labelled with
// different skills are as near as Threshold (a correction never moves a
// prompt about something else), while the same request in another order,
// or with one word changed, mostly is. Run with -v for the figures.
func TestThresholdFit(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared (design data) is absent")
	}
	for _, set := range fitSets {
		t.Run(set.name, func(t *testing.T) {
			f, err := eval.Read(set.file)
			require.NoError(t, err)
			r, err := loader.Open(set.cfg)
			require.NoError(t, err)
			tok := r.Index.Tokenizer()
			vec := func(q string) memory.Vector { return memory.Vectorize(r.Index, tok.Tokenize(q)) }
			cases := f.Cases
			vs := make([]memory.Vector, len(cases))
			for i, c := range cases {
				vs[i] = vec(c.Query)
			}
			var nearestOther, swapped, changed []float64
			for i, c := range cases {
				best := 0.0
				for j := range cases {
					if cases[j].Expected != c.Expected {
						best = max(best, memory.Cosine(vs[i], vs[j]))
					}
				}
				nearestOther = append(nearestOther, best)
				swapped = append(swapped, memory.Cosine(vs[i], vec(swapClauses(c.Query))))
				changed = append(changed, memory.Cosine(vs[i], vec(changeWord(c.Query))))
			}
			top := quantile(nearestOther, 1)
			t.Logf("%s: %d prompts; nearest prompt of another skill: median %.2f, p99 %.2f, max %.2f", set.name, len(cases),
				quantile(nearestOther, 0.5), quantile(nearestOther, 0.99), top)
			t.Logf("  clauses swapped: median %.2f, %.0f%% at or above Threshold %.2f, %.0f%% at or above SameAt %.2f",
				quantile(swapped, 0.5), 100*share(swapped, memory.Threshold), memory.Threshold, 100*share(swapped, memory.SameAt), memory.SameAt)
			t.Logf("  one word changed: median %.2f, %.0f%% at or above Threshold", quantile(changed, 0.5), 100*share(changed, memory.Threshold))
			assert.Less(t, top, memory.Threshold, "prompts about different skills must stay apart")
			if set.tight {
				assert.GreaterOrEqual(t, share(swapped, memory.Threshold), 0.9)
				assert.GreaterOrEqual(t, share(changed, memory.Threshold), 0.8)
				assert.GreaterOrEqual(t, quantile(swapped, 0.5), memory.SameAt, "most reorderings are the same prompt")
			}
		})
	}
}

// TestBuild remakes the memory from a feedback log: every verdict with its
// prompt, and those without (a log keeping only hashes) from the memory
// it rebuilds.
func TestBuild(t *testing.T) {
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	recs := feedbackRecords()
	s := memory.Build(recs, r.Index, nil, t0)
	assert.Equal(t, r.Index.SourceHash, s.Catalog)
	require.Len(t, s.Entries, 2, "two prompts; the abstention confirmed is no verdict on a skill")
	assert.Equal(t, 3, s.Events())

	// The log no longer holds the prompts: the vectors come from before.
	for i := range recs {
		recs[i].Query = ""
	}
	again := memory.Build(recs, r.Index, s, t0)
	assert.Equal(t, 3, again.Events())
	assert.Zero(t, memory.Build(recs, r.Index, nil, t0).Events(), "nothing to vectorize, nothing kept")

	path := filepath.Join(t.TempDir(), memory.File)
	require.NoError(t, s.Save(path))
	m, err := memory.Load(path)
	require.NoError(t, err)
	m.Now = t0
	tok := r.Index.Tokenizer()
	v := m.Recall(memory.Vectorize(r.Index, tok.Tokenize("把 Stripe 的 webhook 回调接到订单服务里")))
	assert.Equal(t, "backend-builder", v.Skill)
	assert.True(t, v.Pins())
}
