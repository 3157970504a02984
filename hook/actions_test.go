package hook_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/recall"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// actingHandler is a handler with the action layer over a few facts and
// tools, at a fixed time.
func actingHandler(t *testing.T) (*hook.Handler, *time.Time) {
	t.Helper()
	mems := []recall.Memory{
		{ID: "m1", Text: "We deploy with fly.io, never with docker compose.", Scope: recall.ScopeUser, AgeDays: 3},
		{ID: "m2", Text: "Staging Postgres: host pg-staging.internal, port 6432, database app_staging.", Scope: recall.ScopeProject, AgeDays: 10},
	}
	tools := []recall.Tool{
		{Name: "port-procs", Description: "Show which processes are listening on a TCP port on this machine.", Risk: 0.05, Cost: 0.05},
		{Name: "drop-table", Description: "Drop a table in a Postgres database. Irreversible.", Risk: 0.95, Cost: 0.2},
	}
	l, err := action.NewLayer(mems, tools)
	require.NoError(t, err)
	now := time.Date(2026, 4, 1, 12, 0, 0, 0, time.UTC)
	h := newHandler(t)
	h.Actions = func(string) (*action.Layer, error) { return l, nil }
	h.Now = func() time.Time { return now }
	return h, &now
}

func submit(t *testing.T, h *hook.Handler, session, prompt string) (text string, res hook.Result) {
	t.Helper()
	res = h.Handle(context.Background(), event(t, map[string]any{
		"session_id": session, "hook_event_name": "UserPromptSubmit", "cwd": t.TempDir(), "prompt": prompt}))
	if res.Output == nil {
		return "", res
	}
	var out struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal(res.Output, &out))
	return out.HookSpecificOutput.AdditionalContext, res
}

func TestHookInjectsWhatTheActionLayerDecides(t *testing.T) {
	h, _ := actingHandler(t)
	cases := []struct {
		prompt   string
		contains string // "" for silence
	}{
		{"What's the staging DB host and port again?", "remembered fact (m2): Staging Postgres"},
		{"what's running on port 8080 right now?", `the declared tool "port-procs"`},
		{"Just delete the old ones.", "ask the user which one exactly"},
		{"帮我写单元测试，用 Jest mock 掉 axios 请求", `the skill "tester-expert"`},
		{"ok thanks, that's all", ""},
	}
	for _, c := range cases {
		text, res := submit(t, h, "s-"+c.prompt, c.prompt)
		if c.contains == "" {
			assert.Empty(t, text, c.prompt)
			assert.Contains(t, res.Reason, "action direct_answer", "silence says why")
			continue
		}
		assert.Contains(t, text, c.contains, c.prompt)
		assert.LessOrEqual(t, len(text), hook.MaxContext)
	}
	ts, warnings, err := action.ReadTrajectories(h.Store.Dir, time.Time{})
	require.NoError(t, err)
	assert.Empty(t, warnings)
	require.Len(t, ts, len(cases), "every decision is logged, silent ones too")
	for _, tr := range ts {
		assert.Equal(t, "feature", tr.Router)
		assert.Equal(t, action.FeatureVersion, tr.RouterVersion)
		assert.NotEmpty(t, tr.Input.Prompt, "what replay needs")
		assert.NotEmpty(t, tr.ID)
		assert.NotNil(t, tr.Decision.Breakdown)
	}
	assert.Equal(t, action.InjectMemory, ts[0].Decision.Action)
	assert.Equal(t, action.CallTool, ts[1].Decision.Action)
	assert.Equal(t, action.Clarify, ts[2].Decision.Action)

	// Replaying the log with the router that wrote it changes nothing.
	rep := action.Replay(ts, action.Feature{}, nil)
	assert.Equal(t, len(ts), rep.Identical)
}

func TestHookAttachesToolEvents(t *testing.T) {
	h, now := actingHandler(t)
	ctx := context.Background()
	text, _ := submit(t, h, "s1", "what's running on port 8080 right now?")
	require.Contains(t, text, "port-procs")

	*now = now.Add(time.Minute)
	h.Handle(ctx, []byte(`{"hook_event_name":"PostToolUseFailure","session_id":"s1","tool_name":"mcp__local__port-procs","tool_input":{},"error":"lsof not found"}`))
	h.Handle(ctx, []byte(`{"hook_event_name":"PostToolUse","session_id":"s1","tool_name":"Skill","tool_input":{"skill":"devops-expert"},"tool_response":{"success":true}}`))
	h.Handle(ctx, []byte(`{"hook_event_name":"PostToolUse","session_id":"other","tool_name":"mcp__local__port-procs","tool_input":{}}`))
	ts, _, err := action.ReadTrajectories(h.Store.Dir, time.Time{})
	require.NoError(t, err)
	require.Len(t, ts, 1)
	require.Len(t, ts[0].Events, 2, "the session's calls attach to its decision; a session with none has nothing to attach to")
	assert.False(t, ts[0].Events[0].OK)
	assert.Equal(t, "mcp__local__port-procs", ts[0].Events[0].Tool)
	assert.Equal(t, "devops-expert", ts[0].Events[1].Ref)
	assert.False(t, ts[0].Outcomes()[0].Adopted, "the suggested tool failed: no adoption")

	// The failed tool pays the failure penalty on the session's next prompt.
	*now = now.Add(time.Minute)
	text, _ = submit(t, h, "s1", "what's running on port 8080 right now?")
	assert.NotContains(t, text, "port-procs", "just failed in this session")
	ts, _, err = action.ReadTrajectories(h.Store.Dir, time.Time{})
	require.NoError(t, err)
	require.Len(t, ts, 2)
	assert.Equal(t, []string{"tool:port-procs"}, ts[1].Input.Failures)
	text, _ = submit(t, h, "s2", "what's running on port 8080 right now?")
	assert.Contains(t, text, "port-procs", "another session is not penalised")
}

func TestHookKeepsTheSkillLineWhenTheLayerFails(t *testing.T) {
	h := newHandler(t)
	h.Actions = func(string) (*action.Layer, error) { return nil, errors.New("tools.yaml:3: tool without a name") }
	text, res := submit(t, h, "s", "帮我写单元测试，用 Jest mock 掉 axios 请求")
	assert.Contains(t, text, "tester-expert")
	assert.Equal(t, "action layer: tools.yaml:3: tool without a name", res.Reason, "said whole, with no dangling separator")
	_, res = submit(t, h, "s", "hello there")
	assert.Contains(t, res.Reason, "tools.yaml:3", "the reason reaches hook.log")
	assert.Regexp(t, `^action layer: tools.yaml:3: tool without a name; abstained`, res.Reason)
}

// A prompt's side work, the action layer's reading and the logs, runs on
// the handler's goroutine: a goroutine of its own cost a hook process more
// page faults than its overlap with the router saved (recovered).
func TestPromptSideWorkOnHandlersGoroutine(t *testing.T) {
	h, _ := actingHandler(t)
	open := h.Actions
	var theirs string
	h.Actions = func(cwd string) (*action.Layer, error) {
		theirs = goroutine()
		return open(cwd)
	}
	text, _ := submit(t, h, "s-one", "What's the staging DB host and port again?")
	assert.Contains(t, text, "remembered fact (m2)")
	assert.Equal(t, goroutine(), theirs)
}

// A panic while the action layer is read costs the layer, not the line.
func TestPanickingActionLayerKeepsSkillLine(t *testing.T) {
	h, _ := actingHandler(t)
	h.Actions = func(string) (*action.Layer, error) { panic("damaged memories") }
	text, res := submit(t, h, "s-panic", "帮我写单元测试，用 Jest mock 掉 axios 请求")
	assert.Contains(t, text, `the skill "tester-expert"`)
	assert.Contains(t, res.Reason, "action layer: panic: damaged memories")
}

// goroutine names the calling goroutine ("goroutine 7").
func goroutine() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	name, _, _ := strings.Cut(string(buf), " [")
	return name
}
