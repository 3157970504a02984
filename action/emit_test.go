package action

import (
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/recall"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEmit(t *testing.T) {
	in := Input{Candidates: []Candidate{fMemory, fSkill, fTool}}
	const skillLine = `skillroute: the skill "devops-expert" matches this request.`
	cases := []struct {
		d    Decision
		want []string
	}{
		{Decision{Action: DirectAnswer}, nil},
		{Decision{Action: InjectMemory, Steps: []Step{{InjectMemory, "m1"}}}, []string{"skillroute: remembered fact (m1): We deploy with fly.io."}},
		{Decision{Action: LoadSkill, Steps: []Step{{LoadSkill, "devops-expert"}}}, []string{skillLine}},
		{Decision{Action: CallTool, Steps: []Step{{CallTool, "ci-checks"}}}, []string{`skillroute: the declared tool "ci-checks" can answer this from live state (Show CI runs).`}},
		{Decision{Action: Clarify, Question: questionDestructive}, []string{"skillroute: " + questionDestructive}},
		{Decision{Action: Composite, Steps: []Step{{InjectMemory, "m1"}, {LoadSkill, "devops-expert"}}},
			[]string{"skillroute: remembered fact (m1): We deploy with fly.io.", skillLine}},
	}
	for _, c := range cases {
		got := Emit(c.d, in, skillLine)
		assert.Equal(t, strings.Join(c.want, " "), got, c.d.String())
		assert.NotContains(t, got, "\n", "one line")
	}
	assert.Equal(t, fMemory.Tokens+fSkill.Tokens, Tokens(cases[5].d, in))
	assert.Zero(t, Tokens(Decision{Action: DirectAnswer}, in))
}

func TestLayerInput(t *testing.T) {
	mems := []recall.Memory{
		{ID: "m1", Text: "We deploy the API to Fly.io with fly deploy, only from main.", Scope: recall.ScopeUser, AgeDays: 90},
		{ID: "m2", Text: "Our other project deploys with Heroku.", Scope: recall.ScopeProject, Project: "/src/other"},
	}
	tools := []recall.Tool{{Name: "fly-status", Description: "Show the status of the Fly.io deploys of an app.", Risk: 0.1, Cost: 0.2, Requires: []string{"memory"}}}
	l, err := NewLayer(mems, tools)
	require.NoError(t, err)
	in := l.Input("how do we deploy to fly.io?", routed("devops-expert", 0.8), Context{ID: "d1", Cwd: "/src/app", Now: time.Now(), Failures: []string{"tool:x"}})
	assert.Equal(t, "d1", in.ID)
	assert.Equal(t, "deploy", in.Category)
	assert.Equal(t, "devops-expert", in.Skill)
	assert.Equal(t, []string{"tool:x"}, in.Failures)
	byType := map[string]Candidate{}
	for _, c := range in.Candidates {
		assert.NotEqual(t, "m2", c.Ref, "another project's memory is not recalled here")
		byType[c.Type] = c
		for _, v := range []float64{c.Confidence, c.SuccessRate, c.Cost, c.Freshness, c.Risk} {
			assert.True(t, v >= 0 && v <= 1, "features are in [0, 1]: %+v", c)
		}
		assert.Positive(t, c.Tokens)
	}
	require.Len(t, byType, 3)
	assert.InDelta(t, 0.5, byType[TypeMemory].Freshness, 1e-3, "half fresh at the half-life")
	assert.Equal(t, 0.8, byType[TypeSkill].Confidence, "a skill's confidence is the router's")
	assert.Equal(t, []string{"memory"}, byType[TypeTool].Preconditions)
	assert.Equal(t, 0.1, byType[TypeTool].Risk)

	abstained := l.Input("how do we deploy to fly.io?", routed("", 0), Context{})
	for _, c := range abstained.Candidates {
		assert.NotEqual(t, TypeSkill, c.Type, "the router abstained: no skill for the action layer to add")
	}
}
