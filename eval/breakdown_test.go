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
	assert.Equal(t, eval.Case{Query: "b", Expected: "db", Lang: "zh", Kind: "paraphrase", Line: 2}, f.Cases[1])

	routed := []string{"db", "web", "", "", "db"} // right, wrong, abstained on a skill, right abstention, wrong injection
	var outs []eval.Outcome
	for i, c := range f.Cases {
		outs = append(outs, eval.Outcome{Case: c, Routed: routed[i]})
	}
	rep := eval.Summarize(outs)
	en, zh := rep.Summary.ByLang["en"], rep.Summary.ByLang["zh"]
	assert.Equal(t, []int{1, 1}, []int{en.N, en.NoneN})
	assert.Equal(t, []float64{1, 0}, []float64{en.Top1, en.NoneCorrect})
	assert.Equal(t, []int{2, 1}, []int{zh.N, zh.NoneN})
	assert.Equal(t, []float64{0, 1}, []float64{zh.Top1, zh.NoneCorrect})
	none := rep.Summary.ByKind["none"]
	assert.Equal(t, []int{0, 2}, []int{none.N, none.NoneN})
	assert.Equal(t, 0.5, none.NoneCorrect)

	var b strings.Builder
	rep.Write(&b, "t", false)
	assert.Contains(t, b.String(), "lang zh           skill prompts   2 top-1   0.0%  none prompts   1 abstained 100.0%")

	plain := eval.Summarize([]eval.Outcome{{Case: eval.Case{Query: "a", Expected: "db"}, Routed: "db"}})
	assert.Nil(t, plain.Summary.ByLang, "no labels, no breakdown")
}

// Prompts lists a file's prompts in its order, session turns included:
// what the benchmarks and exactness tests route.
func TestFilePrompts(t *testing.T) {
	dir := t.TempDir()
	cases := filepath.Join(dir, "c.jsonl")
	require.NoError(t, os.WriteFile(cases, []byte(`{"query": "a", "expected": "db"}`+"\n"+`{"query": "b", "expected": "none"}`+"\n"), 0o644))
	sessions := filepath.Join(dir, "s.jsonl")
	require.NoError(t, os.WriteFile(sessions, []byte(`{"id": "s1", "turns": [{"query": "c", "expected": "db"}, {"query": "d", "expected": "db"}]}`+"\n"+
		`{"id": "s2", "turns": [{"query": "e", "expected": "web"}]}`+"\n"), 0o644))
	for path, want := range map[string][]string{cases: {"a", "b"}, sessions: {"c", "d", "e"}} {
		f, err := eval.Read(path)
		require.NoError(t, err)
		assert.Equal(t, want, f.Prompts())
	}
}

// Labels are mapped to the catalog's names ("none" stays); a label the
// catalog lacks is refused, naming every line that uses it, sessions'
// turns included.
func TestResolveLabels(t *testing.T) {
	catalog := map[string]string{"db": "db", "Database Expert": "db", "web": "web"}
	resolve := func(label string) (string, bool) { name, ok := catalog[label]; return name, ok }
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}

	good := write("good.jsonl", `{"query": "a", "expected": "Database Expert"}`+"\n"+`{"query": "b", "expected": "none"}`+"\n"+
		`{"id": "s1", "turns": [{"query": "c", "expected": "web"}]}`+"\n")
	f, err := eval.Read(good)
	require.NoError(t, err)
	require.NoError(t, f.ResolveLabels(resolve))
	assert.Equal(t, "db", f.Cases[0].Expected)
	assert.Equal(t, "none", f.Cases[1].Expected)
	assert.Equal(t, "web", f.Sessions[0].Turns[0].Expected)

	bad := write("bad.jsonl", `{"query": "a", "expected": "db"}`+"\n"+"# a comment\n"+`{"query": "b", "expected": "dba"}`+"\n"+
		`{"id": "s1", "turns": [{"query": "c", "expected": "web"}, {"query": "d", "expected": "mobile"}]}`+"\n")
	f, err = eval.Read(bad)
	require.NoError(t, err)
	err = f.ResolveLabels(resolve)
	require.Error(t, err)
	assert.Equal(t, bad+`:3: expected "dba": no such skill in the catalog`+"\n"+
		bad+`:4: turn 2: expected "mobile": no such skill in the catalog`, err.Error())

	var many strings.Builder
	for range 8 {
		many.WriteString(`{"query": "q", "expected": "gone"}` + "\n")
	}
	f, err = eval.Read(write("many.jsonl", many.String()))
	require.NoError(t, err)
	err = f.ResolveLabels(resolve)
	require.Error(t, err)
	assert.Len(t, strings.Split(err.Error(), "\n"), 6, "five lines, then how many more")
	assert.True(t, strings.HasSuffix(err.Error(), "and 3 more"), err.Error())
}

// The verbose report names each miss with its confidence, and marks the
// HIGH ones: a sure decision that was wrong is the miss a user sees.
func TestMissesShowConfidence(t *testing.T) {
	rep := eval.Summarize([]eval.Outcome{
		{Case: eval.Case{Query: "sure and wrong", Expected: "db"}, Routed: "web", Ranked: []string{"web", "db"}, Confidence: 0.72, High: true},
		{Case: eval.Case{Query: "unsure and wrong", Expected: "db"}, Routed: "", Ranked: []string{"web"}, Confidence: 0.31},
		{Case: eval.Case{Query: "right", Expected: "db"}, Routed: "db", Ranked: []string{"db"}, Confidence: 0.8, High: true},
	})
	var b strings.Builder
	rep.Write(&b, "t", true)
	out := b.String()
	assert.Contains(t, out, "[db -> web] sure and wrong  (confidence 0.72, HIGH; ranked web, db)")
	assert.Contains(t, out, "[db -> (abstain)] unsure and wrong  (confidence 0.31; ranked web)")
	assert.NotContains(t, out, "] right")
}
