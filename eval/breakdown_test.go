package eval_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/eval"
)

// The report breaks accuracy down by the labels a file gives its prompts:
// a skill prompt is right when routed to its skill, a none prompt when the
// router abstained.
func TestBreakdownByLabel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join([]string{
		`{"query": "a", "expected": "db", "lang": "en", "kind": "direct"}`,
		`{"query": "b", "expected": "db", "lang": "zh", "kind": "paraphrase"}`,
		`{"query": "c", "expected": "web", "lang": "zh", "kind": "paraphrase"}`,
		`{"query": "d", "expected": "none", "lang": "zh", "kind": "none"}`,
		`{"query": "e", "expected": "none", "lang": "en", "kind": "none"}`,
	}, "\n")), 0o644))
	f, err := eval.Read(path)
	require.NoError(t, err)
	require.Len(t, f.Cases, 5)
	assert.Equal(t, eval.Case{Query: "b", Expected: "db", Lang: "zh", Kind: "paraphrase"}, f.Cases[1])

	routed := []string{"db", "web", "", "", "db"} // right, wrong, abstained on a skill, right abstention, wrong injection
	var outs []eval.Outcome
	for i, c := range f.Cases {
		outs = append(outs, eval.Outcome{Case: c, Routed: routed[i]})
	}
	rep := eval.Summarize(outs)
	assert.Equal(t, map[string]eval.Slice{
		"en": {N: 2, Right: 0.5, SkillN: 1, Top1: 1, NoneN: 1, NoneCorrect: 0},
		"zh": {N: 3, Right: 1.0 / 3, SkillN: 2, Top1: 0, NoneN: 1, NoneCorrect: 1},
	}, rep.Summary.ByLang)
	assert.Equal(t, eval.Slice{N: 2, Right: 0.5, SkillN: 0, NoneN: 2, NoneCorrect: 0.5}, rep.Summary.ByKind["none"])

	var b strings.Builder
	rep.Write(&b, "t", false)
	assert.Contains(t, b.String(), "by lang")
	assert.Contains(t, b.String(), "zh             3 prompts: right  33.3%  top-1   0.0% of 2  abstained 100.0% of 1")

	plain := eval.Summarize([]eval.Outcome{{Case: eval.Case{Query: "a", Expected: "db"}, Routed: "db"}})
	assert.Nil(t, plain.Summary.ByLang, "no labels, no breakdown")
}
