package action

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Clear candidates of each type: each clears its bar with room to spare,
// and each matched other words of the prompt.
var (
	fMemory = Candidate{Type: TypeMemory, Ref: "m1", Confidence: 0.7, SuccessRate: 0.5, Freshness: 0.9, Cost: 0.3,
		Evidence: []string{"deploy"}, Text: "We deploy with fly.io.", Tokens: 20}
	fSkill = Candidate{Type: TypeSkill, Ref: "devops-expert", Confidence: 0.7, SuccessRate: 0.5, Freshness: 1, Cost: 0.2,
		Evidence: []string{"pipeline"}, Tokens: 30}
	fTool = Candidate{Type: TypeTool, Ref: "ci-checks", Confidence: 0.9, SuccessRate: 0.5, Freshness: 1, Cost: 0.1, Risk: 0.05,
		Evidence: []string{"checks"}, Text: "Show CI runs.", Tokens: 25}
	fRisky = Candidate{Type: TypeTool, Ref: "drop-table", Confidence: 0.8, SuccessRate: 0.5, Freshness: 1, Cost: 0.1, Risk: 0.95,
		Evidence: []string{"table"}, Tokens: 25}
)

func decideFeature(prompt string, cands ...Candidate) Decision {
	return Feature{}.Decide(Input{Prompt: prompt, Candidates: cands})
}

func scoreOf(t *testing.T, d Decision, typ, ref string) Scored {
	t.Helper()
	for _, s := range d.Breakdown.Scores {
		if s.Type == typ && s.Ref == ref {
			return s
		}
	}
	t.Fatalf("no score for %s %s in %+v", typ, ref, d.Breakdown.Scores)
	return Scored{}
}

func TestFeatureSingleActions(t *testing.T) {
	cases := []struct {
		name   string
		prompt string
		cands  []Candidate
		want   string
		reason string
	}{
		{"a memory alone", "how do we deploy", []Candidate{fMemory}, InjectMemory, "single_type_cleared"},
		{"a skill alone", "set up the pipeline", []Candidate{fSkill}, LoadSkill, "single_type_cleared"},
		{"a tool alone", "did the checks pass", []Candidate{fTool}, CallTool, "single_type_cleared"},
		{"nothing clears: answer directly", "what is a monad", []Candidate{{Type: TypeSkill, Ref: "x", Confidence: 0.3, SuccessRate: 0.5}}, DirectAnswer, "nothing_cleared"},
		{"destructive and unnamed: ask", "delete the old ones", []Candidate{fSkill}, Clarify, "destructive_unspecified"},
		{"only a risky tool fits: ask", "wipe that thing", nil, Clarify, "destructive_unspecified"},
		{"a risky tool, no destructive verb: ask", "the table from the old migration", []Candidate{fRisky}, Clarify, "risky_tool_only"},
		{"a preference nothing stored: ask", "format it the way I like", nil, Clarify, "preference_not_stored"},
		{"a preference a memory holds", "deploy it the way I usually do", []Candidate{fMemory}, InjectMemory, "single_type_cleared"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := decideFeature(c.prompt, c.cands...)
			assert.Equal(t, c.want, d.Action)
			assert.Contains(t, d.Breakdown.Reasons, c.reason)
			if d.Action == Clarify {
				assert.NotEmpty(t, d.Question, "a clarification suggests its question")
				assert.NotContains(t, d.Question, "\n", "in one line")
			}
		})
	}
}

func TestFeatureClosingTurn(t *testing.T) {
	d := Feature{}.Decide(Input{Prompt: "thanks, that's all", Closing: true, Candidates: []Candidate{fSkill}})
	assert.Equal(t, DirectAnswer, d.Action)
	assert.Equal(t, []string{"closing_turn"}, d.Breakdown.Reasons)
}

func TestFeatureNamedTargetIsNoClarification(t *testing.T) {
	d := decideFeature("delete the branch tp-231-push-retry", fSkill)
	assert.Equal(t, LoadSkill, d.Action, "the target is named: nothing to ask")
}

func TestFeatureRiskGate(t *testing.T) {
	d := decideFeature("drop it", fRisky, fTool)
	for _, s := range d.Steps {
		assert.NotEqual(t, "drop-table", s.Ref, "a tool above the risk gate is never suggested")
	}
	s := scoreOf(t, decideFeature("show the table", fRisky), TypeTool, "drop-table")
	assert.False(t, s.Passed)
	assert.Contains(t, s.Reasons, "risk_gate")
}

func TestFeatureComposite(t *testing.T) {
	d := decideFeature("deploy through the pipeline once the checks pass", fTool, fSkill, fMemory)
	assert.Equal(t, Composite, d.Action)
	assert.Equal(t, []Step{{InjectMemory, "m1"}, {LoadSkill, "devops-expert"}, {CallTool, "ci-checks"}}, d.Steps,
		"steps in order: the fact, the procedure, the tool")
	assert.Contains(t, d.Breakdown.Reasons, "types_cleared_together")
}

func TestFeatureCompositeMargin(t *testing.T) {
	weak := fSkill
	weak.Confidence = 0.46 // clears the bar alone, not by the composite margin
	alone := decideFeature("the deploy pipeline", weak)
	require.Equal(t, LoadSkill, alone.Action)
	d := decideFeature("the deploy pipeline", weak, fMemory)
	assert.Equal(t, InjectMemory, d.Action, "a skill joins a fact only by the composite margin")
	assert.Contains(t, scoreOf(t, d, TypeSkill, "devops-expert").Reasons, "composite_margin")
}

func TestFeatureFailurePenalty(t *testing.T) {
	const prompt = "the ci checks of the branch"
	fresh := Feature{}.Decide(Input{Prompt: prompt, Candidates: []Candidate{fTool}})
	require.Equal(t, CallTool, fresh.Action)
	failed := Feature{}.Decide(Input{Prompt: prompt, Candidates: []Candidate{fTool}, Failures: []string{FailureKey(TypeTool, "ci-checks")}})
	before, after := scoreOf(t, fresh, TypeTool, "ci-checks"), scoreOf(t, failed, TypeTool, "ci-checks")
	assert.InDelta(t, FailurePenalty, before.Score-after.Score, 1e-9, "the seed's −0.5")
	assert.Contains(t, after.Reasons, "failure_penalty")
	assert.Equal(t, DirectAnswer, failed.Action)

	other := Feature{}.Decide(Input{Prompt: prompt, Candidates: []Candidate{fTool}, Failures: []string{FailureKey(TypeTool, "k8s-pods")}})
	assert.Equal(t, before.Score, scoreOf(t, other, TypeTool, "ci-checks").Score, "only the failed candidate pays")
}

func TestFeaturePreconditions(t *testing.T) {
	needs := fTool
	needs.Preconditions = []string{TypeMemory}
	d := decideFeature("did the checks pass", needs)
	assert.Equal(t, DirectAnswer, d.Action)
	assert.Contains(t, scoreOf(t, d, TypeTool, "ci-checks").Reasons, "precondition_failed:memory")

	d = decideFeature("did the checks pass for our deploy", needs, fMemory)
	assert.Equal(t, Composite, d.Action)
	assert.Equal(t, []Step{{InjectMemory, "m1"}, {CallTool, "ci-checks"}}, d.Steps)
}

func TestFeatureFactTheToolRepeats(t *testing.T) {
	same := fMemory
	same.Evidence = []string{"checks"} // found by the very words that found the tool
	d := decideFeature("did the checks pass", same, fTool)
	assert.Equal(t, CallTool, d.Action)
	assert.Contains(t, scoreOf(t, d, TypeMemory, "m1").Reasons, "redundant_with_tool")

	d = decideFeature("is port 5432 taken", fMemory, fTool)
	assert.Equal(t, CallTool, d.Action, "the prompt names the target: no fact needed")
	assert.Contains(t, scoreOf(t, d, TypeMemory, "m1").Reasons, "prompt_names_target")
}

func TestFeatureBreakdownAddsUp(t *testing.T) {
	d := Feature{}.Decide(Input{Prompt: "how do we deploy, did the checks pass", Candidates: []Candidate{fMemory, fSkill, fTool, fRisky},
		Failures: []string{FailureKey(TypeSkill, "devops-expert")}})
	for _, s := range d.Breakdown.Scores {
		sum := 0.0
		for _, f := range s.Features {
			sum += f.Contribution
			assert.InDelta(t, f.Value*f.Weight, f.Contribution, 1e-4, "%s %s", s.Ref, f.Feature)
		}
		assert.InDelta(t, s.Score, sum, 1e-3, "a score is its features' contributions: %s", s.Ref)
		assert.Equal(t, bar(s.Type), s.Bar)
	}
	// Each type weighs what the seed says it weighs most.
	weightOf := func(typ, f string) float64 {
		for _, w := range featureWeights(typ) {
			if w.feature == f {
				return w.w
			}
		}
		return 0
	}
	assert.Greater(t, weightOf(TypeMemory, fFreshness), weightOf(TypeSkill, fFreshness), "memory weighs freshness")
	assert.Greater(t, weightOf(TypeSkill, fSuccessRate), weightOf(TypeMemory, fSuccessRate), "skill weighs success rate")
	assert.Less(t, weightOf(TypeTool, fRisk), weightOf(TypeMemory, fRisk), "tool weighs risk")
}

// Replay rests on this: the same input gives the same bytes, also after
// the input went through the log as JSON.
func TestFeatureDeterministic(t *testing.T) {
	in := Input{ID: "d1", Prompt: "how do we deploy, did the checks pass", Category: "deploy",
		Candidates: []Candidate{fMemory, fSkill, fTool, fRisky}, Failures: []string{"skill:x"}}
	for _, r := range []Router{Feature{}, Feature{Explore: MaxExplore}, Rule{}} {
		first := r.Decide(in).Marshal()
		assert.Equal(t, string(first), string(r.Decide(in).Marshal()))
		data, err := json.Marshal(in)
		require.NoError(t, err)
		var back Input
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, string(first), string(r.Decide(back).Marshal()), "%s after a JSON round trip", r.Name())
	}
}
