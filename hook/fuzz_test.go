package hook_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/skillroute/skillroute/hook"
)

// FuzzHandle feeds the hook arbitrary bytes: it must never panic, and what
// it prints is either nothing or the documented JSON object.
func FuzzHandle(f *testing.F) {
	for _, seed := range []string{
		`{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"React 页面加载慢"}`,
		`{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Skill","tool_input":{"skill":"a:b"}}`,
		`{"hook_event_name":"SessionStart","session_id":"../x","source":"clear"}`,
		`{"hook_event_name":"UserPromptExpansion","command_name":"","expansion_type":"slash_command"}`,
		`{"hook_event_name":"UserPromptSubmit","prompt":"\xff\xfe 不要用"}`,
		`[]`, `{`, ``, `null`,
	} {
		f.Add([]byte(seed))
	}
	h := &hook.Handler{Store: &hook.Store{Dir: f.TempDir()}, Open: builtinRouter}
	f.Fuzz(func(t *testing.T, input []byte) {
		res := h.Handle(context.Background(), input)
		if res.Output == nil {
			return
		}
		var out struct {
			HookSpecificOutput struct {
				HookEventName     string `json:"hookEventName"`
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(res.Output, &out); err != nil || out.HookSpecificOutput.HookEventName != "UserPromptSubmit" ||
			out.HookSpecificOutput.AdditionalContext == "" || len(out.HookSpecificOutput.AdditionalContext) > hook.MaxContext {
			t.Fatalf("output %q for input %q", res.Output, input)
		}
	})
}
