package hook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	openOnce sync.Once
	shared   *router.Router
	openErr  error
)

// builtinRouter opens the built-in catalog once for all tests.
func builtinRouter() (*router.Router, error) {
	openOnce.Do(func() { shared, openErr = loader.Open(loader.Config{Catalog: loader.Builtin}) })
	return shared, openErr
}

func newHandler(t *testing.T) *hook.Handler {
	t.Helper()
	return &hook.Handler{Store: &hook.Store{Dir: t.TempDir()}, Open: builtinRouter}
}

func event(t *testing.T, fields map[string]any) []byte {
	t.Helper()
	data, err := json.Marshal(fields)
	require.NoError(t, err)
	return data
}

func TestPromptSubmitContract(t *testing.T) {
	h := newHandler(t)
	res := h.Handle(context.Background(), event(t, map[string]any{
		"session_id": "s1", "hook_event_name": "UserPromptSubmit", "cwd": t.TempDir(),
		"prompt": "帮我写单元测试，用 Jest mock 掉 axios 请求", "permission_mode": "default", "unknown_field": 1,
	}))
	require.NotNil(t, res.Output, res.Reason)
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal(res.Output, &out))
	assert.Equal(t, "UserPromptSubmit", out.HookSpecificOutput.HookEventName)
	assert.Contains(t, out.HookSpecificOutput.AdditionalContext, `"tester-expert"`)
	assert.Less(t, len(out.HookSpecificOutput.AdditionalContext), 1000)

	// The decision is recorded, with a hash instead of the prompt.
	data, err := os.ReadFile(filepath.Join(h.Store.Dir, "decisions.jsonl"))
	require.NoError(t, err)
	var d map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(string(data))), &d))
	for _, k := range []string{"id", "session", "prompt_hash", "skill", "confidence", "time"} {
		assert.Contains(t, d, k)
	}
	assert.Equal(t, "tester-expert", d["skill"])
	assert.NotContains(t, string(data), "Jest")
}

func TestSilence(t *testing.T) {
	cases := []struct {
		name  string
		input string
	}{
		{"empty stdin", ""},
		{"garbage", "}{ not json"},
		{"a JSON array", "[1,2,3]"},
		{"unknown event", `{"hook_event_name":"Stop","session_id":"s"}`},
		{"no event name", `{"prompt":"hello"}`},
		{"slash command", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"/deploy staging"}`},
		{"small talk", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"thanks, that's all"}`},
		{"empty prompt", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"   "}`},
		{"other tool", `{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Write","tool_input":{}}`},
		{"skill without name", `{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Skill","tool_input":{}}`},
		{"session start", `{"hook_event_name":"SessionStart","session_id":"s","source":"startup"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := newHandler(t).Handle(context.Background(), []byte(c.input))
			assert.Nil(t, res.Output)
			assert.NotEmpty(t, res.Reason, "silence is explained in the log")
		})
	}
}

// A broken session file must not stop routing: the prompt is routed
// without context, and the file is replaced.
func TestBrokenStateStillRoutes(t *testing.T) {
	h := newHandler(t)
	dir := filepath.Join(h.Store.Dir, "sessions")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "s1.json"), []byte("{torn"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(h.Store.Dir, "workflow.json"), []byte("nonsense"), 0o644))
	res := h.Handle(context.Background(), event(t, map[string]any{
		"session_id": "s1", "hook_event_name": "UserPromptSubmit", "prompt": "git rebase 之后冲突了，怎么解决"}))
	require.NotNil(t, res.Output, res.Reason)
	assert.Contains(t, string(res.Output), "git-operation-master")
	f, err := h.Store.SessionFile("s1")
	require.NoError(t, err)
	require.NotNil(t, f.Last)
	assert.Equal(t, "git-operation-master", f.Last.Skill)
}

func TestSkillUseFeedsContext(t *testing.T) {
	h := newHandler(t)
	ctx := context.Background()
	use := func(raw string) {
		res := h.Handle(ctx, []byte(raw))
		assert.Nil(t, res.Output)
	}
	use(`{"hook_event_name":"PostToolUse","session_id":"s1","tool_name":"Skill","tool_input":{"skill":"skillroute:performance-expert","args":""}}`)
	use(`{"hook_event_name":"UserPromptExpansion","session_id":"s1","expansion_type":"slash_command","command_name":"performance-expert"}`)
	use(`{"hook_event_name":"PostToolUse","session_id":"s1","tool_name":"Skill","tool_input":{"skill_name":"performance-expert"}}`)
	sess, err := h.Store.Session("s1")
	require.NoError(t, err)
	assert.Equal(t, []string{"performance-expert", "performance-expert", "performance-expert"}, sess.Recent, "kept by the catalog's name")

	// A follow-up that names no field goes where the session has been.
	res := h.Handle(ctx, event(t, map[string]any{"session_id": "s1", "hook_event_name": "UserPromptSubmit",
		"prompt": "字体也一样处理一下"}))
	require.NotNil(t, res.Decision)
	require.NotEmpty(t, res.Decision.Candidates)
	assert.Equal(t, "performance-expert", res.Decision.Candidates[0].Skill)

	// A fresh start forgets; a resume keeps.
	h.Handle(ctx, []byte(`{"hook_event_name":"SessionStart","session_id":"s1","source":"resume"}`))
	sess, _ = h.Store.Session("s1")
	assert.Len(t, sess.Recent, 3)
	h.Handle(ctx, []byte(`{"hook_event_name":"SessionStart","session_id":"s1","source":"clear"}`))
	sess, _ = h.Store.Session("s1")
	assert.Empty(t, sess.Recent)
}

// Several Claude Code sessions, and several hooks of one session, run at
// once: no use may be lost and no file torn.
func TestConcurrentHooksOnOneSession(t *testing.T) {
	h := newHandler(t)
	const n = 40
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if i%2 == 0 {
				skill := []string{"tester-expert", "debugger-expert", "devops-expert", "reviewer-expert"}[i%4]
				h.Handle(ctx, []byte(fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Skill","tool_input":{"skill":%q}}`, skill)))
			} else {
				h.Handle(ctx, []byte(`{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"Dockerfile 改成多阶段构建，镜像太大了"}`))
			}
		}(i)
	}
	wg.Wait()
	f, err := h.Store.SessionFile("s")
	require.NoError(t, err, "the session file is never torn")
	assert.Len(t, f.Recent, 10, "the window holds the last 10 of 20 uses")
	data, err := os.ReadFile(filepath.Join(h.Store.Dir, "decisions.jsonl"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	assert.Len(t, lines, n/2)
	for _, l := range lines {
		assert.True(t, json.Valid([]byte(l)), l)
	}
	wf, err := h.Store.Workflow()
	require.NoError(t, err)
	total := 0
	for _, next := range wf.Bigrams {
		for _, c := range next {
			total += c
		}
	}
	assert.Equal(t, n/2-1, total, "every use after the first adds one transition")
}

// A prompt's hook routes without the session's lock and then writes what
// it changed onto the file as it is by then: skill uses that land while
// prompts of the same session route are all kept, and the session's last
// decision is one of the prompts'.
func TestConcurrentPromptsKeepSkillUses(t *testing.T) {
	h := newHandler(t)
	skills := []string{"tester-expert", "debugger-expert", "devops-expert", "reviewer-expert"}
	const uses = 8 // fewer than the window: every one must be there
	var wg sync.WaitGroup
	for i := range 2 * uses {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if i%2 == 0 {
				h.Handle(ctx, []byte(fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Skill","tool_input":{"skill":%q}}`, skills[i/2%4])))
				return
			}
			res := h.Handle(ctx, []byte(fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt_id":"p%d","prompt":"Dockerfile 改成多阶段构建，镜像太大了"}`, i)))
			assert.NotNil(t, res.Output, res.Reason)
		})
	}
	wg.Wait()
	f, err := h.Store.SessionFile("s")
	require.NoError(t, err)
	var want []string
	for i := range uses {
		want = append(want, skills[i%4])
	}
	assert.ElementsMatch(t, want, f.Recent, "no skill use lost")
	require.NotNil(t, f.Last)
	assert.Regexp(t, `^p\d+$`, f.Last.ID)
	assert.Equal(t, "devops-expert", f.Last.Skill)
}

func TestInstallUninstallRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	original := `{
  "model": "opus",
  "hooks": {
    "PostToolUse": [
      { "matcher": "Edit|Write", "hooks": [ { "type": "command", "command": "/usr/local/bin/lint.sh", "timeout": 30 } ] }
    ],
    "UserPromptSubmit": [
      { "hooks": [ { "type": "command", "command": "echo hi" } ] }
    ]
  }
}`
	require.NoError(t, os.WriteFile(path, []byte(original), 0o644))
	changes, err := hook.Install(path, "/opt/my tools/skillroute", false)
	require.NoError(t, err)
	require.Len(t, changes, len(hook.Registrations))
	for _, c := range changes {
		assert.Equal(t, "added", c.Action, c.Event)
	}
	var s map[string]any
	data, _ := os.ReadFile(path)
	require.NoError(t, json.Unmarshal(data, &s))
	assert.Equal(t, "opus", s["model"])
	text := string(data)
	assert.Contains(t, text, `'/opt/my tools/skillroute' hook`)
	assert.Contains(t, text, "/usr/local/bin/lint.sh")
	assert.Contains(t, text, `"matcher": "Skill|mcp__.*"`)
	assert.Contains(t, text, `"timeout": 5`)
	backups, _ := filepath.Glob(path + ".skillroute-backup-*")
	assert.Len(t, backups, 1)

	// Idempotent: a second install changes nothing.
	changes, err = hook.Install(path, "/opt/my tools/skillroute", false)
	require.NoError(t, err)
	for _, c := range changes {
		assert.Equal(t, "already present", c.Action)
	}
	again, _ := os.ReadFile(path)
	assert.Equal(t, string(data), string(again))

	// Uninstall removes exactly ours.
	_, err = hook.Uninstall(path, false)
	require.NoError(t, err)
	var after, before map[string]any
	data, _ = os.ReadFile(path)
	require.NoError(t, json.Unmarshal(data, &after))
	require.NoError(t, json.Unmarshal([]byte(original), &before))
	assert.Equal(t, before, after)
}

func TestInstallRefusesBrokenSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(path, []byte("{ broken"), 0o644))
	_, err := hook.Install(path, "/bin/skillroute", false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	data, _ := os.ReadFile(path)
	assert.Equal(t, "{ broken", string(data), "a file we cannot read is left as it was")
}

func TestDryRunWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	changes, err := hook.Install(path, "/bin/skillroute", true)
	require.NoError(t, err)
	assert.NotEmpty(t, changes)
	_, err = os.Stat(path)
	assert.True(t, os.IsNotExist(err))
}

// Using a skill within five minutes of a routed prompt is the user's
// verdict on that route, recorded once.
func TestImplicitFeedback(t *testing.T) {
	h := newHandler(t)
	now := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	h.Now = func() time.Time { return now }
	ctx := context.Background()
	prompt := func(id, text string) {
		res := h.Handle(ctx, event(t, map[string]any{"session_id": id, "hook_event_name": "UserPromptSubmit", "prompt": text}))
		require.NotNil(t, res.Output, res.Reason)
	}
	use := func(id, skill string) {
		h.Handle(ctx, []byte(fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":%q,"tool_name":"Skill","tool_input":{"skill":%q}}`, id, skill)))
	}
	prompt("a", "git rebase 之后冲突了，怎么解决")
	now = now.Add(time.Minute)
	use("a", "skillroute:git-operation-master") // the routed skill, by its plugin name
	use("a", "git-operation-master")            // a second use says nothing new

	prompt("b", "帮我写单元测试，用 Jest mock 掉 axios")
	now = now.Add(2 * time.Minute)
	use("b", "debugger-expert") // another skill: an implicit correction

	prompt("c", "Dockerfile 改成多阶段构建，镜像太大了")
	now = now.Add(10 * time.Minute)
	use("c", "kubernetes-specialist") // too late to be about that prompt

	records, warnings, err := (&feedback.Log{Dir: h.Store.Dir}).Read()
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.Len(t, records, 2)
	assert.Equal(t, "git-operation-master", records[0].Routed)
	assert.Equal(t, "git-operation-master", records[0].Corrected, "a confirmation")
	assert.Equal(t, feedback.KindImplicit, records[0].Kind)
	assert.Equal(t, "tester-expert", records[1].Routed)
	assert.Equal(t, "debugger-expert", records[1].Corrected)
	assert.Contains(t, records[1].Query, "Jest")
	assert.Positive(t, records[1].Cost, "the injected tokens are kept for calibration")
}

// Expired sessions go with their locks; a live session's lock stays, and
// a long decisions log is rotated, not grown forever.
func TestStoreHousekeeping(t *testing.T) {
	h := newHandler(t)
	ctx := context.Background()
	now := time.Now()
	h.Handle(ctx, []byte(`{"hook_event_name":"PostToolUse","session_id":"old","tool_name":"Skill","tool_input":{"skill":"tester-expert"}}`))
	h.Handle(ctx, []byte(`{"hook_event_name":"PostToolUse","session_id":"live","tool_name":"Skill","tool_input":{"skill":"tester-expert"}}`))
	dir := filepath.Join(h.Store.Dir, "sessions")
	weekAgo := now.Add(-hook.SessionTTL - time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "old.json"), weekAgo, weekAgo))
	require.NoError(t, os.Chtimes(filepath.Join(dir, "live.json.lock"), weekAgo, weekAgo))
	// A killed writer's temp file is left by the prompts' writes and
	// cleaned with the expired sessions.
	temp := filepath.Join(dir, ".live.json.123.tmp")
	require.NoError(t, os.WriteFile(temp, []byte("partial"), 0o600))
	require.NoError(t, os.Chtimes(temp, weekAgo, weekAgo))
	h.Handle(ctx, []byte(`{"hook_event_name":"PostToolUse","session_id":"live","tool_name":"Skill","tool_input":{"skill":"tester-expert"}}`))
	h.Store.Expire(now)
	for name, want := range map[string]bool{"old.json": false, "old.json.lock": false, "live.json": true, "live.json.lock": true, ".live.json.123.tmp": false} {
		_, err := os.Stat(filepath.Join(dir, name))
		assert.Equal(t, want, err == nil, name)
	}

	path := filepath.Join(h.Store.Dir, "decisions.jsonl")
	require.NoError(t, os.WriteFile(path+".1", []byte("rotated by an older version\n"), 0o644))
	for i := range 2 {
		require.NoError(t, os.WriteFile(path, make([]byte, 2<<20), 0o644))
		require.NoError(t, h.Store.RecordDecision(ctx, hook.Decision{ID: "d", Session: "live", Time: now}))
		info, err := os.Stat(path)
		require.NoError(t, err)
		assert.Less(t, info.Size(), int64(1000), "rotated before the new line")
		rotated, _ := filepath.Glob(filepath.Join(h.Store.Dir, "decisions*.jsonl"))
		if old, _ := filepath.Glob(path + ".1"); len(old) > 0 {
			rotated = append(old, rotated...)
		}
		assert.Equal(t, []string{filepath.Join(h.Store.Dir, fmt.Sprintf("decisions-%d.jsonl", i+1)), path}, rotated,
			"one old file kept, numbered; the older version's .1 counts as older")
	}
}

// A typed skill is a verdict on the routed prompt only when it is about
// the same request; any other slash command is no skill use at all.
func TestTypedSkillVerdict(t *testing.T) {
	const routed = "React 页面加载慢，首屏要 4 秒" // routes to performance-expert
	cases := []struct {
		name    string
		command string
		args    string
		verdict string // the corrected skill recorded, "" for none
		recent  bool   // recorded as a skill use
	}{
		{"bare skill right after", "debugger-expert", "", "debugger-expert", true},
		{"the routed skill, bare", "performance-expert", "", "performance-expert", true},
		{"same request restated", "debugger-expert", "首屏加载慢", "debugger-expert", true},
		{"same request in other words", "debugger-expert", "the React page: 首屏要 4 秒", "debugger-expert", true},
		{"a new task", "tester-expert", "add unit tests for the date parser", "", true},
		{"a new task in Chinese", "tester-expert", "给登录模块写单元测试", "", true},
		{"a plain command", "standup", "", "", false},
		{"skillroute's own command", "skillroute:wrong", "debugger-expert", "", false},
		{"an MCP prompt", "mcp__github__pr", "", "", false},
	}
	// With log_prompts: false the session keeps the prompt's term hashes,
	// not its text: a restatement is still told from a new task (before,
	// no typed skill with arguments was ever a verdict there).
	for _, hashed := range []bool{false, true} {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/hashed=%v", c.name, hashed), func(t *testing.T) {
				typedSkillVerdict(t, routed, c.command, c.args, c.verdict, c.recent, hashed)
			})
		}
	}
}

func typedSkillVerdict(t *testing.T, routed, command, args, verdict string, recent, hashed bool) {
	c := struct {
		command, args, verdict string
		recent                 bool
	}{command, args, verdict, recent}
	{
		{
			h := newHandler(t)
			h.Store.HashPrompts = hashed
			ctx := context.Background()
			res := h.Handle(ctx, event(t, map[string]any{"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": routed}))
			require.NotNil(t, res.Output, res.Reason)
			assert.Contains(t, string(res.Output), "performance-expert")
			expansion := map[string]any{"session_id": "s", "hook_event_name": "UserPromptExpansion",
				"expansion_type": "slash_command", "command_name": c.command, "command_args": c.args,
				"command_source": "userSettings", "prompt": strings.TrimSpace("/" + c.command + " " + c.args)}
			if strings.HasPrefix(c.command, "mcp__") {
				expansion["expansion_type"] = "mcp_prompt"
			}
			h.Handle(ctx, event(t, expansion))
			sess, err := h.Store.Session("s")
			require.NoError(t, err)
			if c.recent {
				assert.Equal(t, []string{c.command}, sess.Recent)
			} else {
				assert.Empty(t, sess.Recent, "not a skill use")
			}
			records, _, err := (&feedback.Log{Dir: h.Store.Dir}).Read()
			require.NoError(t, err)
			if c.verdict == "" {
				assert.Empty(t, records)
			} else {
				require.Len(t, records, 1)
				assert.Equal(t, "performance-expert", records[0].Routed)
				assert.Equal(t, c.verdict, records[0].Corrected)
				if hashed {
					assert.Empty(t, records[0].Query)
					assert.NotEmpty(t, records[0].QueryHash)
				} else {
					assert.Equal(t, routed, records[0].Query)
				}
			}

			// The model then calls a skill for the typed command: no
			// verdict on the routed prompt, which the command closed.
			h.Handle(ctx, []byte(`{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Skill","tool_input":{"skill":"sre-expert"}}`))
			after, _, err := (&feedback.Log{Dir: h.Store.Dir}).Read()
			require.NoError(t, err)
			assert.Len(t, after, len(records), "the route was closed")
		}
	}
}

func TestCommandArgsFromPrompt(t *testing.T) {
	h := newHandler(t)
	ctx := context.Background()
	h.Handle(ctx, event(t, map[string]any{"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "React 页面加载慢，首屏要 4 秒"}))
	// No command_args: the arguments are read from the prompt.
	h.Handle(ctx, event(t, map[string]any{"session_id": "s", "hook_event_name": "UserPromptExpansion",
		"command_name": "tester-expert", "prompt": "/tester-expert add unit tests for the date parser"}))
	records, _, err := (&feedback.Log{Dir: h.Store.Dir}).Read()
	require.NoError(t, err)
	assert.Empty(t, records, "a new task")
}

// A verdict the session gives (it used another skill right after the
// route) is remembered at once, by the prompt's terms alone: the next
// prompt like it already goes where the session went.
func TestVerdictsAreRemembered(t *testing.T) {
	dir := t.TempDir()
	cache := t.TempDir()
	h := &hook.Handler{Store: &hook.Store{Dir: dir}, Open: func() (*router.Router, error) {
		return loader.Open(loader.Config{Catalog: loader.Builtin, StateDir: dir, CacheDir: cache})
	}}
	ctx := context.Background()
	prompt := func(id, text string) *router.Decision {
		res := h.Handle(ctx, event(t, map[string]any{"session_id": id, "hook_event_name": "UserPromptSubmit", "prompt": text}))
		require.NotNil(t, res.Decision, res.Reason)
		return res.Decision
	}
	use := func(id, skill string) {
		h.Handle(ctx, []byte(fmt.Sprintf(`{"hook_event_name":"PostToolUse","session_id":%q,"tool_name":"Skill","tool_input":{"skill":%q}}`, id, skill)))
	}
	const jest = "帮我写单元测试，用 Jest mock 掉 axios"
	require.Equal(t, "tester-expert", prompt("a", jest).Skill)
	use("a", "debugger-expert")
	require.Equal(t, "git-operation-master", prompt("a", "git rebase 之后冲突了，怎么解决").Skill)
	use("a", "git-operation-master")

	m, err := memory.LoadDir(dir)
	require.NoError(t, err)
	set := m.Set()
	require.Len(t, set.Entries, 2)
	got := []memory.Event{set.Entries[0].Events[0], set.Entries[1].Events[0]}
	assert.Equal(t, "debugger-expert", got[0].Corrected)
	assert.Equal(t, "tester-expert", got[0].Routed)
	assert.False(t, got[0].Explicit)
	assert.False(t, got[1].IsCorrection(), "the route the session followed is confirmed")

	again := prompt("b", jest)
	assert.Equal(t, "debugger-expert", again.Skill)
	assert.Contains(t, again.Memory, "1 correction")
	session, err := h.Store.SessionFile("b")
	require.NoError(t, err)
	assert.NotEmpty(t, session.Last.Terms, "kept for the verdict on this route")
	raw, err := os.ReadFile(filepath.Join(dir, "sessions", "b.json"))
	require.NoError(t, err)
	assert.NotContains(t, string(raw[strings.Index(string(raw), `"terms"`):]), "Jest", "terms are hashes")
	journal, err := os.ReadFile(filepath.Join(dir, memory.JournalFile))
	require.NoError(t, err)
	assert.NotContains(t, string(journal), "Jest", "the memory keeps no prompt text")
	assert.NotContains(t, string(journal), "axios")
}

// A closing turn ("thanks, that's all") is never routed, so a skill the
// session uses after it is no verdict on it: recorded, it taught the
// learner that "thanks" belongs to that skill. A prompt the router
// abstained on is still one (the router missed a skill).
func TestClosingTurnTakesNoVerdict(t *testing.T) {
	cases := []struct {
		name, prompt string
		verdict      bool
	}{
		{"closing, English", "thanks, that's all", false},
		{"closing, Chinese", "好的，就这样，谢谢", false},
		{"routed", "git rebase 之后冲突了，怎么解决", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHandler(t)
			ctx := context.Background()
			res := h.Handle(ctx, event(t, map[string]any{"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": c.prompt}))
			require.NotNil(t, res.Decision, res.Reason)
			require.Equal(t, !c.verdict, res.Decision.Closing, "the case's premise")
			h.Handle(ctx, []byte(`{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Skill","tool_input":{"skill":"performance-expert"}}`))
			sess, err := h.Store.Session("s")
			require.NoError(t, err)
			assert.Equal(t, []string{"performance-expert"}, sess.Recent, "the use is recorded either way")
			records, _, err := (&feedback.Log{Dir: h.Store.Dir}).Read()
			require.NoError(t, err)
			if !c.verdict {
				assert.Empty(t, records)
				return
			}
			require.Len(t, records, 1)
			assert.Equal(t, c.prompt, records[0].Query)
		})
	}
}

// Two hook processes of one session can finish out of order: a slow one
// routing an earlier prompt writes after a quick one routing the next. The
// session's last decision, which a skill use, /skillroute:wrong or
// `correct` attaches to, stays the later prompt's; before, the older
// route overwrote it, and the next verdict went to the wrong prompt.
func TestOlderRouteKeepsNewerLast(t *testing.T) {
	h := newHandler(t)
	ctx := context.Background()
	t0 := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	route := func(at time.Time, prompt string) {
		h.Now = func() time.Time { return at }
		res := h.Handle(ctx, event(t, map[string]any{"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": prompt}))
		require.NotNil(t, res.Output, res.Reason)
	}
	route(t0.Add(2*time.Second), "给登录模块写单元测试") // the later prompt, written first
	route(t0, "React 页面加载慢，首屏要 4 秒")           // the earlier one, written last
	sess, err := h.Store.SessionFile("s")
	require.NoError(t, err)
	require.NotNil(t, sess.Last)
	assert.Equal(t, "给登录模块写单元测试", sess.Last.Query)
	assert.Equal(t, "tester-expert", sess.Last.Skill)

	// In order, the later prompt takes the place of the earlier one.
	route(t0.Add(3*time.Second), "React 页面加载慢，首屏要 4 秒")
	sess, err = h.Store.SessionFile("s")
	require.NoError(t, err)
	assert.Equal(t, "performance-expert", sess.Last.Skill)
}
