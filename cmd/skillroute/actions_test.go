package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/recall"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// routeJSON runs `route --json` and decodes it.
type routeOut struct {
	Skill     string            `json:"skill"`
	Action    string            `json:"action"`
	Steps     []action.Step     `json:"steps"`
	Question  string            `json:"question"`
	Breakdown *action.Breakdown `json:"breakdown"`
}

func routeJSON(t *testing.T, a *app, args ...string) routeOut {
	t.Helper()
	code, out, errs := runApp(t, a, append([]string{"route", "--json", "--catalog", "builtin"}, args...)...)
	require.Equal(t, 0, code, errs)
	var r routeOut
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	return r
}

// runHook handles one event as the hook command does, with a deadline
// that -race on a busy machine can meet (the real one is 200 ms).
func runHook(t *testing.T, a *app, ev map[string]any) string {
	t.Helper()
	data, err := json.Marshal(ev)
	require.NoError(t, err)
	var out bytes.Buffer
	a.hookRuntime(10*time.Second).Run(bytes.NewReader(data), &out)
	return out.String()
}

// hookPrompt runs the hook on a prompt and returns what it injects.
func hookPrompt(t *testing.T, a *app, session, prompt string) string {
	t.Helper()
	out := runHook(t, a, map[string]any{"session_id": session, "hook_event_name": "UserPromptSubmit", "cwd": a.cwd, "prompt": prompt})
	if strings.TrimSpace(out) == "" {
		return ""
	}
	var o struct {
		HookSpecificOutput struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &o), out)
	return o.HookSpecificOutput.AdditionalContext
}

// withSkills installs the built-in skills, as `skillroute install` does,
// so that the hook has a catalog.
func withSkills(t *testing.T) *app {
	t.Helper()
	a := withBuiltin(t)
	code, _, errs := runApp(t, a, "skills", "install")
	require.Equal(t, 0, code, errs)
	return a
}

var (
	builtinOnce  sync.Once
	builtinCache string
)

// withBuiltin is a fresh machine whose cache already holds the built-in
// catalog's compiled index and rules (their stamp names no home, so one
// compile serves every test: under -race a compile takes seconds).
func withBuiltin(t *testing.T) *app {
	t.Helper()
	builtinOnce.Do(func() {
		a := isolate(t)
		if code, _, errs := runApp(t, a, "route", "--catalog", "builtin", "warm"); code != 0 {
			t.Fatal(errs)
		}
		builtinCache = a.cacheDir()
	})
	a := isolate(t)
	a.cwd = t.TempDir()
	files, err := filepath.Glob(filepath.Join(builtinCache, "*.bin"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(a.cacheDir(), 0o755))
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(a.cacheDir(), filepath.Base(f)), data, 0o644))
	}
	return a
}

// As a new user: remember how we deploy, and a deploying prompt gets the
// fact, with the devops skill where the router finds it; forget it, and
// it is gone.
func TestNewUserRemembersAndForgets(t *testing.T) {
	a := withSkills(t)
	code, out, errs := runApp(t, a, "remember", "we deploy with fly.io, never with docker compose")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "remembered m1 (user, every project)")

	code, out, _ = runApp(t, a, "memories")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "m1")
	assert.Contains(t, out, "fly.io")

	r := routeJSON(t, a, "how do we deploy this service?")
	assert.Equal(t, action.InjectMemory, r.Action)
	assert.Equal(t, []action.Step{{Action: action.InjectMemory, Ref: "m1"}}, r.Steps)
	r = routeJSON(t, a, "write the deploy step of our CI pipeline")
	assert.Equal(t, action.Composite, r.Action, "the fact and the devops skill")
	assert.Equal(t, []action.Step{{Action: action.InjectMemory, Ref: "m1"}, {Action: action.LoadSkill, Ref: "devops-expert"}}, r.Steps)
	assert.Equal(t, "devops-expert", r.Skill)

	injected := hookPrompt(t, a, "s1", "how do we deploy this service?")
	assert.Contains(t, injected, "remembered fact (m1): we deploy with fly.io, never with docker compose")
	injected = hookPrompt(t, a, "s1", "write the deploy step of our CI pipeline")
	assert.Contains(t, injected, "fly.io")
	assert.Contains(t, injected, `the skill "devops-expert"`)

	code, out, errs = runApp(t, a, "memories", "forget", "m1")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "forgot m1")
	code, out, _ = runApp(t, a, "memories", "list")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "nothing remembered")
	assert.NotContains(t, hookPrompt(t, a, "s1", "how do we deploy this service?"), "fly.io")
	assert.Equal(t, action.LoadSkill, routeJSON(t, a, "write the deploy step of our CI pipeline").Action)

	code, _, errs = runApp(t, a, "memories", "forget", "m1")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `no memory "m1"`)
}

func TestRememberProjectScope(t *testing.T) {
	a := withBuiltin(t)
	a.cwd = filepath.Join(t.TempDir(), "app")
	require.NoError(t, os.MkdirAll(a.cwd, 0o755))
	code, out, errs := runApp(t, a, "remember", "--scope", "project", "staging Postgres is pg-staging port 6432")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "(project, "+a.cwd+")")
	assert.Equal(t, action.InjectMemory, routeJSON(t, a, "what's the staging postgres port again?").Action)
	a.cwd = t.TempDir()
	assert.NotEqual(t, action.InjectMemory, routeJSON(t, a, "what's the staging postgres port again?").Action,
		"another project does not recall it")

	code, _, errs = runApp(t, a, "remember", "--scope", "team", "x")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `scope "team"`)
	code, _, _ = runApp(t, a, "remember")
	assert.Equal(t, 2, code, "nothing to remember is a usage error")
}

// README writes `remember TEXT [--scope user|project]`: the flag after the
// text is a flag, not words of the fact; after "--" every word is text.
func TestRememberFlagsAfterText(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		wantText  string
		wantScope string
	}{
		{"flag after the text", []string{"staging db is pg-staging", "--scope", "project"}, "staging db is pg-staging", recall.ScopeProject},
		{"flag between words", []string{"staging", "--scope=project", "db is pg-staging"}, "staging db is pg-staging", recall.ScopeProject},
		{"flag first", []string{"--scope", "project", "staging db is pg-staging"}, "staging db is pg-staging", recall.ScopeProject},
		{"words after --", []string{"--", "always", "pass", "-race", "--scope", "project"}, "always pass -race --scope project", recall.ScopeUser},
		{"flag, then words after --", []string{"--scope", "project", "go", "--", "test", "-race"}, "go test -race", recall.ScopeProject},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := isolate(t)
			a.cwd = t.TempDir()
			code, _, errs := runApp(t, a, append([]string{"remember"}, tc.args...)...)
			require.Equal(t, 0, code, errs)
			mems, err := recall.ReadMemories(a.memoriesPath())
			require.NoError(t, err)
			require.Len(t, mems, 1)
			assert.Equal(t, tc.wantText, mems[0].Text)
			assert.Equal(t, tc.wantScope, mems[0].Scope)
		})
	}
}

func writeTools(t *testing.T, a *app) {
	t.Helper()
	tools := `- name: port-procs
  description: "Show which processes (PID, command, user) are listening on a TCP port on this machine. Read-only."
  risk: 0.05
  cost: 0.05
- name: restart-service
  description: "Restart a service in a given environment. Drops in-flight requests."
  risk: 0.8
  cost: 0.4
`
	require.NoError(t, os.MkdirAll(a.stateDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(a.stateDir, "tools.yaml"), []byte(tools), 0o644))
}

// A question about current state, with a declared tool that answers it,
// gets a tool hint.
func TestNewUserToolHint(t *testing.T) {
	a := withSkills(t)
	assert.Equal(t, action.DirectAnswer, routeJSON(t, a, "what's running on port 8080").Action, "no tool declared yet")
	writeTools(t, a)
	r := routeJSON(t, a, "what's running on port 8080")
	assert.Equal(t, action.CallTool, r.Action)
	assert.Equal(t, []action.Step{{Action: action.CallTool, Ref: "port-procs"}}, r.Steps)
	assert.Contains(t, hookPrompt(t, a, "s", "what's running on port 8080"), `the declared tool "port-procs"`)

	other := filepath.Join(t.TempDir(), "tools.yaml")
	require.NoError(t, os.WriteFile(other, []byte("- name: lsof-port\n  description: list processes listening on a port\n  risk: 0\n"), 0o644))
	r = routeJSON(t, a, "--tools", other, "what's running on port 8080")
	assert.Equal(t, []action.Step{{Action: action.CallTool, Ref: "lsof-port"}}, r.Steps, "--tools FILE replaces the state folder's")
}

// A memories or tools file named with --memories or --tools must be
// there: a missing --memories (a typo) routed with no memories at all,
// silently, while a missing --tools was an error.
func TestRouteNamedActionFilesMustExist(t *testing.T) {
	a := withBuiltin(t)
	missing := filepath.Join(t.TempDir(), "memories.jsonl")
	for _, flag := range []string{"--memories", "--tools"} {
		code, out, errOut := runApp(t, a, "route", flag, missing, "how do we deploy this service?")
		assert.Equal(t, 1, code, flag+": "+out)
		assert.Contains(t, errOut, missing, flag)
		assert.Contains(t, errOut, "no such file", flag)
	}
	// The state folder's files may be absent: nothing remembered yet.
	code, _, errOut := runApp(t, a, "route", "how do we deploy this service?")
	assert.Equal(t, 0, code, errOut)
}

// An ambiguous, risky request with weak candidates gets a one-line
// suggestion to ask first.
func TestNewUserClarifyingSuggestion(t *testing.T) {
	a := withSkills(t)
	writeTools(t, a)
	for _, prompt := range []string{"restart it, it's stuck again", "Just delete the old ones."} {
		r := routeJSON(t, a, prompt)
		assert.Equal(t, action.Clarify, r.Action, prompt)
		assert.NotEmpty(t, r.Question)
		injected := hookPrompt(t, a, "s", prompt)
		assert.Regexp(t, `(ask|confirm with) the user`, injected)
		assert.NotContains(t, injected, "\n", "one line")
		assert.NotContains(t, injected, "restart-service", "a tool above the risk gate is never suggested")
	}
}

func TestRouteJSONKeepsTheSkill(t *testing.T) {
	a := withBuiltin(t)
	r := routeJSON(t, a, "React 页面加载慢，Lighthouse 只有 40 分")
	assert.Equal(t, "performance-expert", r.Skill)
	assert.Equal(t, action.LoadSkill, r.Action)
	require.NotNil(t, r.Breakdown)
	assert.Equal(t, "feature", r.Breakdown.Router)
	require.NotEmpty(t, r.Breakdown.Scores)
	assert.NotEmpty(t, r.Breakdown.Scores[0].Features, "each feature's contribution")

	closing := routeJSON(t, a, "thanks, see you tomorrow")
	assert.Equal(t, "", closing.Skill)
	assert.Equal(t, action.DirectAnswer, closing.Action)

	rule := routeJSON(t, a, "--router", "rule", "React 页面加载慢，Lighthouse 只有 40 分")
	assert.Equal(t, "rule", rule.Breakdown.Router)
	assert.Equal(t, "performance-expert", rule.Skill, "the action router never changes the routed skill")

	code, out, _ := runApp(t, a, "route", "--catalog", "builtin", "--explain", "React 页面加载慢，Lighthouse 只有 40 分")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "action: load_skill: load_skill performance-expert")
	assert.Contains(t, out, "action router feature")
	assert.Contains(t, out, "confidence")

	code, _, errs := runApp(t, a, "route", "--router", "llm", "x")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "unknown action router")
}

func TestEvalActionLabels(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
		return p
	}
	mems := write("memories.jsonl", `{"id": "m1", "text": "Staging Postgres: host pg-staging.internal, port 6432.", "scope": "project", "age_days": 5}`+"\n")
	tools := write("tools.yaml", "- name: port-procs\n  description: Show which processes are listening on a TCP port.\n  risk: 0.05\n  cost: 0.05\n")
	cases := write("cases.jsonl", strings.Join([]string{
		`{"query": "What's the staging DB host and port again?", "action": "inject_memory", "expected": "none", "memory": "m1"}`,
		`{"query": "what's listening on port 5432 right now?", "action": "call_tool", "expected": "none", "tool": "port-procs"}`,
		`{"query": "Just delete the old ones.", "action": "clarify", "expected": "none"}`,
		`{"query": "React 页面加载慢，Lighthouse 只有 40 分", "action": "load_skill", "expected": "performance-expert"}`,
	}, "\n")+"\n")
	a := withBuiltin(t)
	code, out, errs := runApp(t, a, "eval", "--catalog", "builtin", "--memories", mems, "--tools", tools, "--json", "-v", cases)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "confusion (rows: labelled, columns: decided)")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var summary map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &summary))
	assert.Equal(t, 1.0, summary["action_acc"])
	assert.Equal(t, 1.0, summary["action_ref_acc"])
	assert.Equal(t, 4.0, summary["action_n"])
	assert.Equal(t, "feature", summary["action_router"])
	assert.Equal(t, 1.0, summary["top1"], "the skill figures are still there")

	code, out, errs = runApp(t, a, "eval", "--catalog", "builtin", "--router", "rule", "--memories", mems, "--tools", tools, "--json", cases)
	require.Equal(t, 0, code, errs)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &summary))
	assert.Equal(t, "rule", summary["action_router"])

	code, out, _ = runApp(t, a, "eval", "--catalog", "builtin", "--json", write("plain.jsonl", `{"query": "React 页面加载慢", "expected": "performance-expert"}`+"\n"))
	require.Equal(t, 0, code)
	assert.NotContains(t, out, "action_acc", "no action labels, no action figures")

	code, _, errs = runApp(t, a, "eval", "--catalog", "builtin", "--memories", filepath.Join(dir, "none.jsonl"), cases)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "none.jsonl: no such file")
}

// The hook logs decisions and the turn's tool calls; replay re-runs a
// router over them; policy learns from their outcomes.
func TestReplayAndPolicy(t *testing.T) {
	a := withSkills(t)
	writeTools(t, a)
	hook := func(ev map[string]any) { runHook(t, a, ev) }
	prompts := []string{"what's running on port 8080", "React 页面加载慢，Lighthouse 只有 40 分", "Just delete the old ones.", "ok, thanks"}
	for i, p := range prompts {
		session := fmt.Sprintf("s%d", i)
		hook(map[string]any{"session_id": session, "hook_event_name": "UserPromptSubmit", "cwd": a.cwd, "prompt": p})
		if i == 0 {
			hook(map[string]any{"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "mcp__sys__port-procs", "tool_input": map[string]any{}})
		}
		if i == 1 {
			hook(map[string]any{"session_id": session, "hook_event_name": "PostToolUse", "tool_name": "Skill", "tool_input": map[string]any{"skill": "performance-expert"}})
		}
	}
	code, out, errs := runApp(t, a, "replay", "--json")
	require.Equal(t, 0, code, errs)
	var rep action.ReplayReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, len(prompts), rep.Decisions)
	assert.Equal(t, 1.0, rep.Agreement)
	assert.Equal(t, len(prompts), rep.Identical, "same router, same logged inputs: byte-identical decisions")
	assert.Equal(t, 1.0, rep.Logged.Adoption, "the tool and the skill were used")
	assert.Equal(t, 0.75, rep.Logged.InjectionRate)

	code, out, errs = runApp(t, a, "replay", "--router", "rule")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "replayed 4 logged decisions with the rule router")
	assert.Contains(t, out, "tokens injected p50")

	code, out, _ = runApp(t, a, "replay", "--since", "1h", "--json")
	require.Equal(t, 0, code)
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, len(prompts), rep.Decisions)
	code, _, errs = runApp(t, a, "replay", "--since", "yesterday")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `--since "yesterday"`)
	code, _, errs = runApp(t, a, "replay", "--policy")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "run `skillroute policy` first")

	code, out, errs = runApp(t, a, "policy")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "from 3 outcomes of 4 logged decisions", "the tool's and the skill's steps, and the feedback log's confirmation")
	assert.Contains(t, out, "off (compare first")
	p, err := action.LoadPolicy(filepath.Join(a.stateDir, action.PolicyFile))
	require.NoError(t, err)
	assert.False(t, p.Enabled)
	assert.Equal(t, 3, p.Outcomes)
	assert.Equal(t, action.Cell{Successes: 1}, p.Skills["performance-expert"], "the skill's own verdict, from the feedback log")

	code, out, errs = runApp(t, a, "replay", "--policy", "--json")
	require.Equal(t, 0, code, errs)
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, p.Version, rep.Policy, "compared in replay before it is enabled")
	code, out, errs = runApp(t, a, "replay", "--compare")
	require.Equal(t, 0, code, errs)
	for _, row := range []string{"as logged", "rule ", "feature ", "feature + " + p.Version} {
		assert.Contains(t, out, row, "with both routers and the policy")
	}

	code, _, _ = runApp(t, a, "policy", "--enable", "--explore", "0.05")
	require.Equal(t, 0, code)
	p, err = action.LoadEnabledPolicy(a.stateDir)
	require.NoError(t, err)
	require.NotNil(t, p)
	assert.Equal(t, 0.05, p.Explore)
	code, _, errs = runApp(t, a, "policy", "--explore", "0.5")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "between 0 and 0.1")
	code, _, _ = runApp(t, a, "policy", "--disable")
	require.Equal(t, 0, code)
	p, err = action.LoadEnabledPolicy(a.stateDir)
	require.NoError(t, err)
	assert.Nil(t, p)
}

// A damaged policy.json (it is learned from the logs) is rebuilt by the
// policy command, with a warning naming it, instead of blocking every
// policy command (and, meanwhile, the hook's action layer) until the user
// deletes it by hand. One of a newer format is left for that version.
func TestPolicyRebuildsDamagedFile(t *testing.T) {
	cases := []struct {
		name, content string
		args          []string
		code          int
		enabled       bool
		errs          string
	}{
		{"rebuild", `{"skillroute":"policy","vers`, nil, 0, false, "damaged policy file"},
		{"disable", `{"skillroute":"policy","vers`, []string{"--disable"}, 0, false, "damaged policy file"},
		{"enable", "\x00\x00\x00", []string{"--enable"}, 0, true, "damaged policy file"},
		{"newer format", `{"skillroute":"policy","version":99,"data":{}}`, nil, 1, false, "upgrade skillroute"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := isolate(t)
			path := filepath.Join(a.stateDir, action.PolicyFile)
			require.NoError(t, os.MkdirAll(a.stateDir, 0o700))
			require.NoError(t, os.WriteFile(path, []byte(c.content), 0o600))
			code, _, errs := runApp(t, a, append([]string{"policy"}, c.args...)...)
			assert.Equal(t, c.code, code, errs)
			assert.Contains(t, errs, path)
			assert.Contains(t, errs, c.errs)
			if c.code != 0 {
				data, _ := os.ReadFile(path)
				assert.Equal(t, c.content, string(data), "left as it was")
				return
			}
			p, err := action.LoadPolicy(path)
			require.NoError(t, err, "rebuilt")
			assert.Equal(t, c.enabled, p.Enabled)
			_, err = a.actionLayer(actionFlags{})
			assert.NoError(t, err, "the hook's action layer opens again")
		})
	}
}

// --explore takes a rate from 0 to action.MaxExplore: NaN and -1 (the
// flag's "not given") were taken for no change and the command said
// nothing, the policy kept its rate.
func TestPolicyExploreBounds(t *testing.T) {
	for _, v := range []string{"NaN", "-1", "-0.5", "0.5", "+Inf"} {
		t.Run(v, func(t *testing.T) {
			a := isolate(t)
			code, _, errs := runApp(t, a, "policy", "--explore", v)
			assert.Equal(t, 1, code, errs)
			assert.Contains(t, errs, "--explore "+v+": the rate is between 0 and 0.1")
		})
	}
	a := isolate(t)
	code, out, errs := runApp(t, a, "policy", "--explore", "0.1")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "exploration 0.1")
}
