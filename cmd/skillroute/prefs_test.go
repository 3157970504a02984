package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/prefs"
)

// With log_prompts: false in settings.yaml, no file in the state folder
// holds a prompt's text, only its hash: not the session's last prompt, not
// the feedback a skill use or a correction records, not the decisions.
// Without it, the text is kept where corrections need it.
func TestLogPromptsOff(t *testing.T) {
	const routed = "git rebase 之后冲突了，怎么解决"
	const named = "the unit tests of the parser are flaky"
	for _, logPrompts := range []bool{true, false} {
		t.Run(map[bool]string{true: "default", false: "log_prompts false"}[logPrompts], func(t *testing.T) {
			a := isolate(t)
			code, _, errOut := runApp(t, a, "skills", "install")
			require.Equal(t, 0, code, errOut)
			if !logPrompts {
				require.NoError(t, os.WriteFile(filepath.Join(a.stateDir, prefs.File), []byte("# private\nlog_prompts: false\n"), 0o600))
			}
			hookEvent := func(event string) {
				b := *a
				b.stdin = strings.NewReader(event)
				code, _, errOut := runApp(t, &b, "hook")
				require.Equal(t, 0, code, errOut)
			}
			hookEvent(`{"hook_event_name":"UserPromptSubmit","session_id":"s1","prompt":"` + routed + `"}`)
			hookEvent(`{"hook_event_name":"PostToolUse","session_id":"s1","tool_name":"Skill","tool_input":{"skill":"debugger-expert"}}`)
			code, out, errOut := runApp(t, a, "correct", "tester-expert", "--session", "s1")
			require.Equal(t, 0, code, errOut)
			code, _, errOut = runApp(t, a, "correct", "tester-expert", "--query", named)
			require.Equal(t, 0, code, errOut)

			records, _, err := (&feedback.Log{Dir: a.stateDir}).Read()
			require.NoError(t, err)
			require.Len(t, records, 3, "an implicit verdict and two corrections")
			for _, r := range records {
				assert.NotEmpty(t, r.QueryHash, "the hash is always kept")
			}
			assert.Equal(t, prefs.Hash(routed), records[0].QueryHash, "the same hash as decisions.jsonl's prompt_hash")
			assert.Equal(t, prefs.Hash(named), records[2].QueryHash)

			var all strings.Builder
			require.NoError(t, filepath.WalkDir(a.stateDir, func(path string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() && !strings.Contains(path, string(filepath.Separator)+"cache"+string(filepath.Separator)) {
					data, _ := os.ReadFile(path)
					all.Write(data)
				}
				return err
			}))
			state := all.String()
			assert.Contains(t, state, prefs.Hash(routed))
			if logPrompts {
				assert.Contains(t, state, "rebase")
				assert.Contains(t, state, named)
				assert.Contains(t, out, "rebase")
				return
			}
			for _, text := range []string{"rebase", "冲突", "flaky", "parser"} {
				assert.NotContains(t, state, text, "no prompt text in the state folder")
			}
			assert.Contains(t, out, "the prompt "+prefs.Hash(routed))
			_, doctor, _ := runApp(t, a, "doctor")
			assert.Contains(t, doctor, "log_prompts: false: only prompt hashes are kept")
		})
	}
}

// A settings file skillroute cannot read is reported, and prompts are
// kept out of the files until it is fixed.
func TestBrokenSettingsReported(t *testing.T) {
	a := isolate(t)
	require.NoError(t, os.MkdirAll(a.stateDir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(a.stateDir, prefs.File), []byte("log_prompt: false\n"), 0o600))
	s, err := a.userSettings()
	assert.False(t, s.LogPrompts)
	require.Error(t, err)
	code, out, _ := runApp(t, a, "doctor")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL settings")
	assert.Contains(t, out, "field log_prompt not found")
}

// `correct --undo` names the prompt it takes the correction back from as
// `correct` named it: by its text, or with log_prompts: false by its hash,
// never as an empty quote.
func TestUndoNamesThePrompt(t *testing.T) {
	const prompt = "the unit tests of the parser are flaky"
	for _, tc := range []struct {
		name     string
		settings string
		want     string
	}{
		{"text kept", "", `undone: "` + prompt + `" is no longer corrected to tester-expert`},
		{"hashes only", "log_prompts: false\n", "undone: the prompt " + prefs.Hash(prompt) + " is no longer corrected to tester-expert"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := isolate(t)
			if tc.settings != "" {
				require.NoError(t, os.MkdirAll(a.stateDir, 0o700))
				require.NoError(t, os.WriteFile(filepath.Join(a.stateDir, prefs.File), []byte(tc.settings), 0o600))
			}
			correctQuery(t, a, "tester-expert", prompt, "--catalog", "builtin")
			code, out, errOut := runApp(t, a, "correct", "--undo", "--catalog", "builtin")
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, tc.want)
		})
	}
}
