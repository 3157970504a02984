package action

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// routed is a router decision recommending a skill.
func routed(skill string, confidence float64) router.Decision {
	return router.Decision{Skill: skill, Confidence: confidence, Level: router.LevelOf(confidence),
		Candidates: []router.Candidate{{Skill: skill, Confidence: confidence, Evidence: []string{"deploy"}}}}
}

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// logged writes a decision made by r on the input, as the hook does.
func logged(t *testing.T, dir, id, session string, at time.Time, in Input, r Router) Trajectory {
	t.Helper()
	in.ID = id
	d := r.Decide(in)
	tr := Trajectory{ID: id, Session: session, Time: at, Router: r.Name(), RouterVersion: r.Version(), Input: in, Decision: d, Tokens: Tokens(d, in)}
	require.NoError(t, LogDecision(context.Background(), dir, tr))
	return tr
}

func event(t *testing.T, dir, decision, session, tool, ref string, ok bool, at time.Time) {
	t.Helper()
	require.NoError(t, LogToolEvent(context.Background(), dir, ToolEvent{Decision: decision, Session: session, Tool: tool, Ref: ref, OK: ok, Time: at}))
}

func TestTrajectoriesJoinToolEvents(t *testing.T) {
	dir := t.TempDir()
	in := Input{Prompt: "set up the pipeline", Category: "deploy", Candidates: []Candidate{fSkill}}
	logged(t, dir, "d1", "s1", t0, in, Feature{})
	event(t, dir, "d1", "s1", "Skill", "devops-expert", true, t0.Add(time.Second))
	logged(t, dir, "d2", "s1", t0.Add(time.Hour), in, Feature{})
	event(t, dir, "d2", "s1", "mcp__ci__ci-checks", "", false, t0.Add(time.Hour+time.Second))
	event(t, dir, "gone", "s1", "Skill", "x", true, t0) // its decision rotated away: dropped

	// A torn line (a crash mid-write) costs a warning, not the log.
	f, err := os.OpenFile(filepath.Join(dir, TrajectoryFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"kind":"decision","id":"d3","inp` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	ts, warnings, err := ReadTrajectories(dir, time.Time{})
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0].Error(), TrajectoryFile+":6")
	require.Len(t, ts, 2)
	assert.Equal(t, "d1", ts[0].ID)
	require.Len(t, ts[0].Events, 1)
	assert.Equal(t, "devops-expert", ts[0].Events[0].Ref)
	assert.Equal(t, "feature", ts[0].Router)
	assert.Equal(t, FeatureVersion, ts[0].RouterVersion)
	assert.Equal(t, in.Prompt, ts[0].Input.Prompt, "what replay needs is logged")
	require.Len(t, ts[1].Events, 1)
	assert.False(t, ts[1].Events[0].OK)

	later, _, err := ReadTrajectories(dir, t0.Add(time.Minute))
	require.NoError(t, err)
	require.Len(t, later, 1)
	assert.Equal(t, "d2", later[0].ID, "--since keeps the later decisions")
}

func TestTrajectoryRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, TrajectoryFile)
	in := Input{Prompt: "set up the pipeline", Candidates: []Candidate{fSkill}}
	logged(t, dir, "old", "s", t0, in, Feature{})
	// Grow the file past the limit, then log: the old file moves to
	// trajectories-1.jsonl (store.Log's numbered rotation).
	require.NoError(t, os.Truncate(path, MaxTrajectoryBytes+1))
	logged(t, dir, "new", "s", t0.Add(time.Minute), in, Feature{})
	_, err := os.Stat(filepath.Join(dir, "trajectories-1.jsonl"))
	require.NoError(t, err)
	ts, _, err := ReadTrajectories(dir, time.Time{})
	require.NoError(t, err)
	ids := []string{}
	for _, tr := range ts {
		ids = append(ids, tr.ID)
	}
	assert.Equal(t, []string{"old", "new"}, ids, "both files are read, the rotated one first")
}

func TestRecentFailures(t *testing.T) {
	dir := t.TempDir()
	now := t0.Add(time.Hour)
	event(t, dir, "d", "s1", "mcp__ports__port-procs", "", false, now.Add(-10*time.Minute))
	event(t, dir, "d", "s1", "mcp__ci__ci-checks", "", true, now.Add(-5*time.Minute))                // succeeded
	event(t, dir, "d", "s2", "mcp__git__git-state", "", false, now.Add(-5*time.Minute))              // another session
	event(t, dir, "d", "s1", "mcp__logs__tail-logs", "", false, now.Add(-FailureWindow-time.Minute)) // too long ago
	event(t, dir, "d", "s1", "Skill", "acme:devops-expert", false, now.Add(-time.Minute))
	got := FailureKeys(RecentFailures(dir, "s1", now), []string{"port-procs", "ci-checks", "git-state", "tail-logs"})
	assert.Equal(t, []string{"tool:port-procs", "skill:devops-expert"}, got)
	assert.Empty(t, RecentFailures(t.TempDir(), "s1", now), "no log, no failures")
}

// Only the log's end is read: a failure further back than failureTail
// is not seen, one among the decisions at the end is, and the line the
// cut runs through is skipped.
func TestRecentFailuresReadsTheTail(t *testing.T) {
	dir := t.TempDir()
	now := t0.Add(time.Hour)
	event(t, dir, "d", "s1", "mcp__ci__ci-checks", "", false, now.Add(-2*time.Minute)) // cut off
	in := Input{Prompt: strings.Repeat("the pipeline fails again ", 40), Category: "deploy", Candidates: []Candidate{fSkill}}
	size := func() int64 {
		info, err := os.Stat(filepath.Join(dir, TrajectoryFile))
		require.NoError(t, err)
		return info.Size()
	}
	for i := 0; size() < failureTail+10000; i++ {
		logged(t, dir, fmt.Sprintf("d%d", i), "s1", now.Add(-time.Minute), in, Feature{})
	}
	event(t, dir, "d", "s1", "mcp__ports__port-procs", "", false, now.Add(-time.Minute))
	for i := range 10 {
		logged(t, dir, fmt.Sprintf("e%d", i), "s1", now.Add(-time.Minute), in, Feature{})
	}
	event(t, dir, "d", "s1", "mcp__logs__tail-logs", "", false, now.Add(-time.Second))
	got := FailureKeys(RecentFailures(dir, "s1", now), []string{"port-procs", "ci-checks", "tail-logs"})
	assert.Equal(t, []string{"tool:port-procs", "tool:tail-logs"}, got)

	// RecentFailures passes over decision lines by their opening.
	data, err := os.ReadFile(filepath.Join(dir, TrajectoryFile))
	require.NoError(t, err)
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		assert.True(t, bytes.HasPrefix(line, decisionKind) != bytes.HasPrefix(line, []byte(`{"kind":"tool"`)), "%.80s", line)
	}
}

func TestToolMatches(t *testing.T) {
	cases := []struct {
		called, declared string
		want             bool
	}{
		{"port-procs", "port-procs", true},
		{"mcp__ports__port-procs", "port-procs", true},
		{"/port-procs", "port-procs", true},
		{"/acme:port-procs", "port-procs", true},
		{"mcp__ports__port-procs", "/port-procs", true},
		{"mcp__ports__port-procs-all", "port-procs", false},
		{"Bash", "port-procs", false},
		{"", "port-procs", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, ToolMatches(c.called, c.declared), "%s vs %s", c.called, c.declared)
	}
}

func TestOutcomes(t *testing.T) {
	tr := Trajectory{Input: Input{Category: "deploy"}, Decision: Decision{Action: Composite, Steps: []Step{
		{InjectMemory, "m1"}, {LoadSkill, "devops-expert"}, {CallTool, "ci-checks"}}}}
	tr.Events = []ToolEvent{
		{Tool: "Skill", Ref: "acme:devops-expert", OK: true},
		{Tool: "mcp__ci__ci-checks", OK: true},
		{Tool: "mcp__x__other", OK: false},
	}
	got := tr.Outcomes()
	require.Len(t, got, 3)
	assert.Equal(t, StepOutcome{Step: Step{InjectMemory, "m1"}, Known: true}, got[0], "a failed call in the turn: the fact's step failed")
	assert.Equal(t, StepOutcome{Step: Step{LoadSkill, "devops-expert"}, Known: true, Adopted: true}, got[1], "adopted, a failure followed")
	assert.Equal(t, StepOutcome{Step: Step{CallTool, "ci-checks"}, Known: true, Adopted: true}, got[2])

	quiet := Trajectory{Decision: Decision{Action: InjectMemory, Steps: []Step{{InjectMemory, "m1"}}}}
	assert.False(t, quiet.Outcomes()[0].Known, "a turn without tool calls says nothing of a fact")
	unused := Trajectory{Decision: Decision{Action: LoadSkill, Steps: []Step{{LoadSkill, "devops-expert"}}}}
	assert.Equal(t, StepOutcome{Step: Step{LoadSkill, "devops-expert"}, Known: true}, unused.Outcomes()[0], "not used: known, not adopted")

	samples := PolicyOutcomes([]Trajectory{tr, quiet, unused})
	assert.Len(t, samples, 4, "one sample per known step, each credited on its own")
	for _, s := range samples {
		assert.False(t, s.Success)
	}
}

func TestReplay(t *testing.T) {
	dir := t.TempDir()
	skill := fSkill
	skill.Confidence = 0.56 // clear with the prior's success rate, not with a poor one
	inputs := []Input{
		{Prompt: "the deploy pipeline", Category: "deploy", Candidates: []Candidate{skill}},
		{Prompt: "did the checks pass", Category: "question", Candidates: []Candidate{fTool}},
		{Prompt: "how do we deploy", Category: "deploy", Candidates: []Candidate{fMemory}},
		{Prompt: "what is a monad", Category: "question"},
		{Prompt: "deploy through the pipeline once the checks pass", Category: "deploy", Candidates: []Candidate{fMemory, fSkill, fTool}},
	}
	for i, in := range inputs {
		id := fmt.Sprintf("d%d", i)
		logged(t, dir, id, "s", t0.Add(time.Duration(i)*time.Minute), in, Feature{})
	}
	event(t, dir, "d0", "s", "Skill", "devops-expert", true, t0.Add(time.Second))
	event(t, dir, "d1", "s", "mcp__ci__ci-checks", "", true, t0.Add(time.Minute+time.Second))
	event(t, dir, "d1", "s", "mcp__ci__ci-checks", "", false, t0.Add(time.Minute+2*time.Second))
	ts, _, err := ReadTrajectories(dir, time.Time{})
	require.NoError(t, err)

	same := Replay(ts, Feature{}, nil)
	assert.Equal(t, 5, same.Decisions)
	assert.Equal(t, 1.0, same.Agreement)
	assert.Equal(t, 5, same.Identical, "same router, same inputs: byte-identical decisions")
	assert.Empty(t, same.Changed)
	lg := same.Logged
	assert.Equal(t, 0.8, lg.InjectionRate, "four of five injected something")
	assert.Equal(t, 4, lg.Recommended, "two single steps and the composite's skill and tool")
	assert.Equal(t, 0.5, lg.Adoption, "the first skill and the first tool were used, the composite's not")
	assert.Equal(t, 0.5, lg.SuccessAfterAdoption, "the tool's turn then failed")
	assert.Equal(t, map[string]int{LoadSkill: 1, CallTool: 1, InjectMemory: 1, DirectAnswer: 1, Composite: 1}, lg.Actions)
	assert.Equal(t, fTool.Tokens, lg.TokensP50, "nearest rank: 0 20 25 30 75")
	assert.Equal(t, fMemory.Tokens+fSkill.Tokens+fTool.Tokens, lg.TokensP95)
	assert.Equal(t, lg, same.Replayed)

	rule := Replay(ts, Rule{}, nil)
	assert.Equal(t, 0.8, rule.Agreement, "the rule router never composes")
	assert.Zero(t, rule.Identical, "another router's breakdown differs")
	assert.Equal(t, []Change{{Category: "deploy", From: Composite, To: CallTool, Count: 1}}, rule.Changed)

	// With a policy, candidates take its success rates.
	bad := []Outcome{}
	for i := 0; i < 30; i++ {
		bad = append(bad, Outcome{Category: "deploy", Action: LoadSkill, Success: false})
	}
	p := BuildPolicy(bad, nil, t0)
	withPolicy := Replay(ts, Feature{}, p)
	assert.Equal(t, p.Version, withPolicy.Policy)
	assert.Contains(t, withPolicy.Changed, Change{Category: "deploy", From: LoadSkill, To: DirectAnswer, Count: 1},
		"a skill that never helped in deploy prompts is no longer loaded")
}

// A replayed decision that is the logged one injects what the logged one
// did: its tokens are the logged count (the hook's text, the skill line
// with its evidence), not the estimate from the candidates (a skill line
// a flat 30). `replay --compare` showed a router agreeing on every
// decision as injecting fewer tokens than logged (p50 30 against 31, p95
// 30 against 41 on a state folder of 90 hook decisions).
func TestReplayTokensOfTheSameDecision(t *testing.T) {
	dir := t.TempDir()
	skill := fSkill
	skill.Confidence = 0.6
	for i, in := range []Input{
		{Prompt: "the deploy pipeline", Category: "deploy", Candidates: []Candidate{skill}},
		{Prompt: "deploy through the pipeline once the checks pass", Category: "deploy", Candidates: []Candidate{fMemory, fSkill, fTool}},
	} {
		in.ID = fmt.Sprintf("d%d", i)
		d := Feature{}.Decide(in)
		est := Tokens(d, in)
		tr := Trajectory{ID: in.ID, Session: "s", Time: t0.Add(time.Duration(i) * time.Minute), Router: "feature", Input: in, Decision: d, Tokens: est + 11}
		require.NoError(t, LogDecision(context.Background(), dir, tr))
	}
	ts, _, err := ReadTrajectories(dir, time.Time{})
	require.NoError(t, err)
	same := Replay(ts, Feature{}, nil)
	require.Equal(t, 1.0, same.Agreement)
	assert.Equal(t, same.Logged.TokensP50, same.Replayed.TokensP50)
	assert.Equal(t, same.Logged.TokensP95, same.Replayed.TokensP95)
	rule := Replay(ts, Rule{}, nil)
	require.Less(t, rule.Agreement, 1.0, "the rule router never composes")
	// d0 it shares (logged: the estimate 30 + 11), d1 it changes to a
	// tool call, estimated (25): nearest ranks 25 and 41.
	assert.Equal(t, fTool.Tokens, rule.Replayed.TokensP50, "the decision it changes is estimated")
	assert.Equal(t, same.Logged.TokensP50, rule.Replayed.TokensP95, "the decision it shares counts as logged")
}
