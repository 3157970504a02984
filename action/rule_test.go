package action

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Candidates built by hand, each just over (or under) the rule router's
// gates.
var (
	toolOK      = Candidate{Type: TypeTool, Ref: "port-procs", Confidence: 0.6, Risk: 0.7, SuccessRate: 0.5, Freshness: 1}
	toolWeak    = Candidate{Type: TypeTool, Ref: "port-procs", Confidence: 0.59, Risk: 0.1, SuccessRate: 0.5, Freshness: 1}
	toolRisky   = Candidate{Type: TypeTool, Ref: "drop-table", Confidence: 0.9, Risk: 0.71, SuccessRate: 0.5, Freshness: 1}
	memoryOK    = Candidate{Type: TypeMemory, Ref: "m1", Confidence: 0.65, Freshness: 0.3, SuccessRate: 0.5}
	memoryStale = Candidate{Type: TypeMemory, Ref: "m1", Confidence: 0.9, Freshness: 0.29, SuccessRate: 0.5}
	skillOK     = Candidate{Type: TypeSkill, Ref: "devops-expert", Confidence: 0.55, SuccessRate: 0.4, Freshness: 1}
	skillPoor   = Candidate{Type: TypeSkill, Ref: "devops-expert", Confidence: 0.9, SuccessRate: 0.39, Freshness: 1}
)

func TestRuleRouter(t *testing.T) {
	cases := []struct {
		name   string
		prompt string
		cands  []Candidate
		action string
		ref    string
		reason string
	}{
		{"Rule 2: realtime trigger and a tool at the gates", "check what is on port 8080", []Candidate{toolOK}, CallTool, "port-procs", "rule:realtime"},
		{"Rule 2 gate: confidence 0.59 is short", "check what is on port 8080", []Candidate{toolWeak}, Clarify, "", "rule:nothing_passed"},
		{"Rule 2 gate: risk above 0.7", "check the table", []Candidate{toolRisky}, Clarify, "", "rule:nothing_passed"},
		{"Rule 3: stable trigger and a fresh enough memory", "what is our staging host", []Candidate{memoryOK}, InjectMemory, "m1", "rule:stable"},
		{"Rule 3 gate: freshness under 0.3", "what is our staging host", []Candidate{memoryStale}, Clarify, "", "rule:nothing_passed"},
		{"Rule 4: workflow trigger and a skill at the gates", "fix the deploy pipeline", []Candidate{skillOK}, LoadSkill, "devops-expert", "rule:workflow"},
		{"Rule 4 gate: success rate under 0.4", "fix the deploy pipeline", []Candidate{skillPoor}, Clarify, "", "rule:nothing_passed"},
		{"Rule 1: reasoning without realtime trigger", "why is the sky blue", nil, DirectAnswer, "", "rule:reasoning"},
		{"Rule 1 yields to a strong tool trigger", "why is port 9229 in use, check it", []Candidate{toolOK}, CallTool, "port-procs", "rule:realtime"},
		{"Rule 5: a trigger fired and nothing passed", "list the pods", nil, Clarify, "", "rule:nothing_passed"},
		{"no trigger and nothing passed: nothing needed", "hello there", nil, DirectAnswer, "", "no_trigger"},
		{"untriggered candidate that passes is used", "hello there", []Candidate{skillOK}, LoadSkill, "devops-expert", "gate_passed_untriggered"},
		{"conflict order: tool over memory over skill", "check my deploy setup", []Candidate{skillOK, memoryOK, toolOK}, CallTool, "port-procs", "rule:realtime"},
		{"conflict order: memory over skill", "fix our deploy", []Candidate{skillOK, memoryOK}, InjectMemory, "m1", "rule:stable"},
		{"conflict order: skill over direct answer", "why does the deploy fail, fix it", []Candidate{skillOK}, LoadSkill, "devops-expert", "rule:workflow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Rule{}.Decide(Input{Prompt: c.prompt, Candidates: c.cands})
			assert.Equal(t, c.action, d.Action)
			assert.Equal(t, c.ref, firstRef(d))
			require.NotNil(t, d.Breakdown)
			assert.Equal(t, []string{c.reason}, d.Breakdown.Reasons)
			assert.Equal(t, "rule", d.Breakdown.Router)
		})
	}
}

func TestRuleRouterNeverComposes(t *testing.T) {
	d := Rule{}.Decide(Input{Prompt: "check our deploy workflow", Candidates: []Candidate{skillOK, memoryOK, toolOK}})
	assert.NotEqual(t, Composite, d.Action)
	assert.Len(t, d.Steps, 1)
}

func firstRef(d Decision) string {
	if len(d.Steps) == 0 {
		return ""
	}
	return d.Steps[0].Ref
}

func TestRouterNamed(t *testing.T) {
	for name, want := range map[string]string{"": "feature", "feature": "feature", "rule": "rule"} {
		r, err := RouterNamed(name)
		require.NoError(t, err)
		assert.Equal(t, want, r.Name())
	}
	_, err := RouterNamed("llm")
	assert.ErrorContains(t, err, `unknown action router "llm"`)
}
