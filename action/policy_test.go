package action

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPolicyPosteriors(t *testing.T) {
	var nilPolicy *Policy
	assert.Equal(t, 0.5, nilPolicy.SuccessRate("deploy", LoadSkill, "x"), "no policy: the prior's mean")
	assert.GreaterOrEqual(t, nilPolicy.SuccessRate("deploy", LoadSkill, "x"), RuleSkillSuccess, "the prior passes the rule router's skill gate")

	var outs []Outcome
	for i := 0; i < 8; i++ {
		outs = append(outs, Outcome{Category: "deploy", Action: LoadSkill, Success: true})
	}
	outs = append(outs, Outcome{Category: "deploy", Action: LoadSkill, Success: false},
		Outcome{Category: "debug", Action: CallTool, Success: false}, Outcome{Category: "debug", Action: CallTool, Success: false})
	p := BuildPolicy(outs, nil, time.Unix(0, 0))
	assert.Equal(t, 11, p.Outcomes)
	assert.InDelta(t, (2.0+8)/(4+9), p.SuccessRate("deploy", LoadSkill, ""), 1e-12, "Beta(2+8, 2+1) mean")
	assert.InDelta(t, 2.0/6, p.SuccessRate("debug", CallTool, ""), 1e-12, "Beta(2, 2+2) mean")
	assert.Equal(t, 0.5, p.SuccessRate("docs", LoadSkill, ""), "an unseen cell keeps the prior")
	assert.False(t, p.Enabled, "a built policy starts off")
	assert.Zero(t, p.Explore, "exploration is off by default")
	assert.Equal(t, p.Version, BuildPolicy(outs, nil, time.Unix(99, 0)).Version, "the version fingerprints the cells, not the time")
	assert.NotEqual(t, p.Version, BuildPolicy(outs[:5], nil, time.Unix(0, 0)).Version)
}

func TestPolicySkillRates(t *testing.T) {
	cat := []Outcome{{Category: "deploy", Action: LoadSkill, Success: true}, {Category: "deploy", Action: LoadSkill, Success: true}}
	var fb []SkillOutcome
	for i := 0; i < 6; i++ {
		fb = append(fb, SkillOutcome{Skill: "acme:orchestrator", Success: false, Weight: 0.5})
	}
	fb = append(fb, SkillOutcome{Skill: "devops-expert", Success: true, Weight: 1})
	p := BuildPolicy(cat, fb, time.Unix(0, 0))
	category := p.SuccessRate("deploy", LoadSkill, "tester-expert")
	assert.InDelta(t, 4.0/6, category, 1e-12, "a skill with no verdicts of its own: its category's rate")
	assert.InDelta(t, (SkillPriorWeight*category+0)/(SkillPriorWeight+3), p.SuccessRate("deploy", LoadSkill, "orchestrator"), 1e-12,
		"six implicit corrections at half weight pull a skill down, from its category's rate")
	assert.Greater(t, p.SuccessRate("deploy", LoadSkill, "devops-expert"), category)
	assert.Equal(t, p.Cells[cellKey("deploy", InjectMemory)].Mean(), p.SuccessRate("deploy", InjectMemory, "orchestrator"),
		"a skill's verdicts say nothing about facts")
	assert.NotEqual(t, p.Version, BuildPolicy(cat, nil, time.Unix(0, 0)).Version, "the version covers the skills' cells")
}

func TestPolicySaveLoad(t *testing.T) {
	dir := t.TempDir()
	p := BuildPolicy([]Outcome{{Category: "deploy", Action: LoadSkill, Success: true}}, nil, time.Unix(0, 0))
	path := filepath.Join(dir, PolicyFile)
	require.NoError(t, p.Save(path))
	got, err := LoadEnabledPolicy(dir)
	require.NoError(t, err)
	assert.Nil(t, got, "saved but not enabled: the hook does not use it")

	p.Enabled, p.Explore = true, 0.05
	require.NoError(t, p.Save(path))
	got, err = LoadEnabledPolicy(dir)
	require.NoError(t, err)
	require.NotNil(t, got)
	assert.Equal(t, p.Cells, got.Cells)
	assert.Equal(t, 0.05, got.Explore)

	p.Explore = 0.5
	assert.ErrorContains(t, p.Save(path), "outside [0, 0.1]", "exploration is bounded")
	require.NoError(t, os.WriteFile(path, []byte(`{"enabled":true,"explore":0.9}`), 0o644))
	_, err = LoadEnabledPolicy(dir)
	assert.ErrorContains(t, err, "outside [0, 0.1]", "a hand-edited rate is refused, not used")

	none, err := LoadEnabledPolicy(t.TempDir())
	assert.NoError(t, err)
	assert.Nil(t, none)
}

func TestLayerUsesPolicySuccessRates(t *testing.T) {
	l := &Layer{Policy: BuildPolicy([]Outcome{{Category: "deploy", Action: InjectMemory, Success: false}}, nil, time.Unix(0, 0))}
	in := l.Input("deploy it", routed("devops-expert", 0.8), Context{})
	require.NotEmpty(t, in.Candidates)
	assert.Equal(t, "deploy", in.Category)
	assert.Equal(t, 0.5, in.Candidates[0].SuccessRate, "load_skill in deploy: unseen, the prior")
}

func TestExploration(t *testing.T) {
	near := fTool
	near.Confidence = 0.68 // under the tool bar, inside the exploration band
	in := Input{Prompt: "the report", Candidates: []Candidate{fSkill, near}}

	off := Feature{}.Decide(in)
	assert.Equal(t, LoadSkill, off.Action)
	assert.Zero(t, off.Propensity, "not exploring: no propensity")

	explored, kept := 0, 0
	for i := 0; i < 2000; i++ {
		in.ID = fmt.Sprintf("decision-%d", i)
		d := Feature{Explore: MaxExplore}.Decide(in)
		again := Feature{Explore: MaxExplore}.Decide(in)
		require.Equal(t, string(d.Marshal()), string(again.Marshal()), "drawn from the id: replay repeats it")
		switch d.Action {
		case Composite:
			explored++
			assert.Equal(t, MaxExplore, d.Propensity)
			assert.Contains(t, d.Breakdown.Reasons, "explore:tool")
		case LoadSkill:
			kept++
			assert.InDelta(t, 1-MaxExplore, d.Propensity, 1e-9)
		default:
			t.Fatalf("unexpected %s", d.Action)
		}
	}
	assert.InDelta(t, MaxExplore, float64(explored)/2000, 0.02, "explores at its rate")

	capped := 0
	for i := 0; i < 2000; i++ {
		in.ID = fmt.Sprintf("decision-%d", i)
		if (Feature{Explore: 0.9}).Decide(in).Action == Composite {
			capped++
		}
	}
	assert.InDelta(t, MaxExplore, float64(capped)/2000, 0.02, "never above MaxExplore")

	risky := fRisky
	risky.Confidence = 0.3
	for i := 0; i < 200; i++ {
		d := Feature{Explore: MaxExplore}.Decide(Input{ID: fmt.Sprint(i), Prompt: "the report", Candidates: []Candidate{fSkill, risky}})
		assert.Equal(t, LoadSkill, d.Action, "a tool above the risk gate is never tried")
	}
	far := fTool
	far.Confidence = 0.1
	for i := 0; i < 200; i++ {
		d := Feature{Explore: MaxExplore}.Decide(Input{ID: fmt.Sprint(i), Prompt: "the report", Candidates: []Candidate{fSkill, far}})
		assert.Equal(t, LoadSkill, d.Action, "only near misses are tried")
		assert.Zero(t, d.Propensity, "no choice was made")
	}
}
