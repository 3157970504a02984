package eval_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/recall"
	"github.com/skillroute/skillroute/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readLines(t *testing.T, lines ...string) (*eval.File, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return eval.Read(path)
}

func TestReadActionLabels(t *testing.T) {
	f, err := readLines(t,
		`{"query": "What's the staging DB host?", "action": "inject_memory", "expected": "none", "memory": "m3", "lang": "en", "kind": "plain"}`,
		`{"query": "Ship main the usual way.", "action": "composite_action", "expected": "devops-expert", "steps": [{"action": "inject_memory", "ref": "m1"}, {"action": "load_skill", "ref": "devops-expert"}]}`,
		`{"query": "React 页面加载慢", "expected": "performance-expert"}`)
	require.NoError(t, err)
	require.Len(t, f.Cases, 3)
	assert.Equal(t, "m3", f.Cases[0].Memory)
	assert.Equal(t, []action.Step{{Action: "inject_memory", Ref: "m1"}, {Action: "load_skill", Ref: "devops-expert"}}, f.Cases[1].Steps)
	assert.Empty(t, f.Cases[2].Action, "a line without action labels is a skill case as before")
	assert.True(t, eval.HasActions(f.Cases))
	assert.False(t, eval.HasActions(f.Cases[2:]))
}

func TestReadActionLabelErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"query": "q", "expected": "none", "action": "inject_fact"}`, `cases.jsonl:1: action "inject_fact" is none of`},
		{`{"query": "q", "expected": "none", "memory": "m1"}`, `"action", which is missing`},
		{`{"query": "q", "expected": "none", "action": "call_tool", "memory": "m1"}`, `"memory" labels inject_memory, not call_tool`},
		{`{"query": "q", "expected": "none", "action": "inject_memory", "tool": "x"}`, `"tool" labels call_tool`},
		{`{"query": "q", "expected": "none", "action": "load_skill", "steps": [{"action": "load_skill", "ref": "a"}]}`, `"steps" label composite_action`},
		{`{"query": "q", "expected": "none", "action": "composite_action", "steps": [{"action": "load_skill", "ref": "a"}]}`, "at least two"},
		{`{"query": "q", "expected": "none", "action": "composite_action", "steps": [{"action": "load_skill", "ref": "a"}, {"action": "load_skill", "ref": "b"}]}`, "load_skill appears twice"},
		{`{"query": "q", "expected": "none", "action": "composite_action", "steps": [{"action": "clarify", "ref": "a"}, {"action": "load_skill", "ref": "b"}]}`, `not "clarify"`},
		{`{"query": "q", "expected": "none", "action": "composite_action", "steps": [{"action": "inject_memory"}, {"action": "load_skill", "ref": "b"}]}`, `step inject_memory has no "ref"`},
	} {
		_, err := readLines(t, c.line)
		assert.ErrorContains(t, err, c.want, c.line)
	}
}

func TestActionReport(t *testing.T) {
	outs := []eval.ActionOutcome{
		{Case: eval.Case{Query: "a", Expected: "none", Action: action.InjectMemory, Memory: "m1"},
			Decision: action.Decision{Action: action.InjectMemory, Steps: []action.Step{{Action: action.InjectMemory, Ref: "m1"}}}},
		{Case: eval.Case{Query: "b", Expected: "none", Action: action.InjectMemory, Memory: "m2"},
			Decision: action.Decision{Action: action.InjectMemory, Steps: []action.Step{{Action: action.InjectMemory, Ref: "m1"}}}},
		{Case: eval.Case{Query: "c", Expected: "none", Action: action.Clarify},
			Decision: action.Decision{Action: action.DirectAnswer}},
		{Case: eval.Case{Query: "d", Expected: "none", Action: action.DirectAnswer},
			Decision: action.Decision{Action: action.DirectAnswer}},
	}
	rep := eval.SummarizeActions(outs)
	assert.Equal(t, 4, rep.N)
	assert.Equal(t, 0.75, rep.Accuracy(), "right action, whatever it uses")
	assert.Equal(t, 0.5, rep.RefAccuracy(), "m2 was wanted, m1 injected")
	assert.Equal(t, 1, rep.Confusion[action.Clarify][action.DirectAnswer])
	require.Len(t, rep.Misses, 1)

	var b strings.Builder
	rep.Write(&b, "title", true)
	out := b.String()
	assert.Contains(t, out, "action accuracy 75.0% (3/4)")
	assert.Contains(t, out, "confusion (rows: labelled, columns: decided)")
	assert.Contains(t, out, "[clarify -> direct_answer] c")
	b.Reset()
	rep.Write(&b, "title", false)
	assert.NotContains(t, b.String(), "confusion", "the matrix is for -v")
}

func TestActionsOnTheDevSet(t *testing.T) {
	dir := shared + "eval/actions/"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("../shared (design data) is absent")
	}
	f, err := eval.Read(dir + "prompts.jsonl")
	require.NoError(t, err)
	mems, err := recall.ReadMemories(dir + "memories.jsonl")
	require.NoError(t, err)
	tools, err := recall.ReadTools(dir + "tools.yaml")
	require.NoError(t, err)
	l, err := action.NewLayer(mems, tools)
	require.NoError(t, err)
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	outs := eval.RouteCases(r, f.Cases)
	eval.HookLines(outs, l, action.Feature{}, time.Now())
	feature := eval.SummarizeActions(eval.Actions(outs))
	eval.HookLines(outs, l, action.Rule{}, time.Now())
	rule := eval.SummarizeActions(eval.Actions(outs))
	t.Logf("action accuracy: feature %.1f%%, rule %.1f%%", 100*feature.Accuracy(), 100*rule.Accuracy())
	assert.Equal(t, 120, feature.N)
	assert.GreaterOrEqual(t, feature.Accuracy(), 0.85)
	assert.Greater(t, feature.Accuracy(), rule.Accuracy())
}

// The hook's line is the action layer's decision after the router's: a
// routed skill the layer withholds (a quick question that wants an answer
// from knowledge) counts as no skill injected, and the figures say so
// beside the router's.
func TestHookLines(t *testing.T) {
	l, err := action.NewLayer(nil, nil)
	require.NoError(t, err)
	routed := func(query, expected string, confidence float64) eval.Outcome {
		d := router.Decision{Query: query, Skill: "devops-expert", Confidence: confidence, Level: router.Medium,
			Candidates: []router.Candidate{{Skill: "devops-expert", Score: 3, Confidence: confidence}}}
		return eval.Outcome{Case: eval.Case{Query: query, Expected: expected}, Routed: d.Skill, Decision: d}
	}
	outs := []eval.Outcome{
		routed("set up the deploy pipeline for the api", "devops-expert", 0.8),
		routed("quick question, in one sentence: what does a deploy pipeline do?", "devops-expert", 0.45),
		routed("in one sentence, what is blue-green deployment?", eval.None, 0.45),
		{Case: eval.Case{Query: "thanks!", Expected: eval.None}},
	}
	eval.HookLines(outs, l, action.Feature{}, time.Unix(0, 0))
	assert.Equal(t, []string{"devops-expert", "", "", ""}, []string{outs[0].Injected, outs[1].Injected, outs[2].Injected, outs[3].Injected})
	s := eval.Summarize(outs).Summary
	require.NotNil(t, s.HookTop1)
	assert.Equal(t, 1.0, s.Top1, "the router's skill was right both times")
	assert.Equal(t, 0.5, *s.HookTop1, "the hook's line named it once")
	assert.Equal(t, 0.5, s.NoneCorrect)
	assert.Equal(t, 1.0, *s.HookNone, "no skill injected for either none prompt")
	assert.Nil(t, eval.Summarize(outs[:0]).Summary.HookTop1, "not worked out: no figure")
}
