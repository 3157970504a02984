package hook_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/hook"
)

// userSettings is a settings file as a user and other tools leave it: keys
// in no sorted order, groups whose "hooks" is an empty list, a string or
// missing, HTML characters in commands, numbers past float64's precision,
// escapes written as the user wrote them. Indented as Claude Code writes.
const userSettings = `{
  "model": "opus",
  "zeta": 1,
  "alpha": {
    "big": 12345678901234567890,
    "precise": 0.10000000000000000555,
    "exp": 1E+2
  },
  "hooks": {
    "Stop": [
      {
        "hooks": []
      },
      {
        "hooks": "not a list"
      },
      {
        "matcher": "x"
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "lint <src> && echo done > /tmp/log",
            "timeout": 30
          }
        ]
      }
    ],
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "echo 'not skillroute hook'"
          },
          {
            "type": "command",
            "command": "echo 'not skillroute hook'",
            "statusMessage": "skillroute: routing"
          },
          {
            "type": "command",
            "command": "/usr/local/bin/skillroute hook"
          }
        ]
      }
    ]
  },
  "env": {
    "GREETING": "caf\u00e9 \"quoted\" <b>"
  }
}
`

// The settings file is edited as the user wrote it: install adds our four
// entries and changes nothing else (no key sorted, no list turned into
// null, no <>& escaped, no number rounded, no escape rewritten), and
// uninstall gives back the very same bytes.
func TestInstallEditsSettingsAsWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(path, []byte(userSettings), 0o644))
	_, err := hook.Install(path, "/opt/my tools/skillroute", false)
	require.NoError(t, err)
	installed, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(installed)
	for _, kept := range []string{
		`"hooks": []`, `"hooks": "not a list"`, `"matcher": "x"`,
		`12345678901234567890`, `0.10000000000000000555`, `1E+2`,
		`lint <src> && echo done > /tmp/log`, `"caf\u00e9 \"quoted\" <b>"`,
	} {
		assert.Contains(t, text, kept)
	}
	assert.NotContains(t, text, "null")
	assert.NotContains(t, text, `\u003c`)
	order := []string{`"model"`, `"zeta"`, `"alpha"`, `"hooks"`, `"env"`}
	last := -1
	for _, key := range order {
		i := indexOf(text, key)
		assert.Greater(t, i, last, "key %s keeps its place", key)
		last = i
	}
	events, cmd := hook.Installed(path)
	assert.Len(t, events, len(hook.Registrations))
	assert.Equal(t, `GOMAXPROCS=1 '/opt/my tools/skillroute' hook`, cmd)

	_, err = hook.Uninstall(path, false)
	require.NoError(t, err)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, userSettings, string(after), "install then uninstall gives the user's file back")
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// Uninstall removes only what install wrote, known by its status message
// and its command: a user's hook whose command merely ends in "skillroute
// hook", or carries our status message on another command, or runs
// skillroute by hand without our mark, stays.
func TestUninstallKeepsLookalikes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(path, []byte(userSettings), 0o644))
	changes, err := hook.Uninstall(path, false)
	require.NoError(t, err)
	assert.Empty(t, changes, "none of the file's entries is ours")
	after, _ := os.ReadFile(path)
	assert.Equal(t, userSettings, string(after))
	events, _ := hook.Installed(path)
	assert.Empty(t, events, "doctor does not take them for ours either")
}

func TestCommandBinary(t *testing.T) {
	cases := []struct {
		cmd, binary string
		ok          bool
	}{
		{"/usr/local/bin/skillroute hook", "/usr/local/bin/skillroute", true},
		{"GOMAXPROCS=1 /usr/local/bin/skillroute hook", "/usr/local/bin/skillroute", true},
		{"GOMAXPROCS=2 /usr/local/bin/skillroute hook", "", false},
		{"GOMAXPROCS=1 GOMAXPROCS=1 /usr/local/bin/skillroute hook", "", false},
		{`'/opt/my tools/skillroute' hook`, "/opt/my tools/skillroute", true},
		{`'/opt/it'\''s/skillroute' hook`, "/opt/it's/skillroute", true},
		{hook.Command("/a b/c'd&e"), "/a b/c'd&e", true},
		{"echo 'not skillroute hook'", "", false},
		{"echo skillroute hook", "", false},
		{"/bin/skillroute hook; rm -rf ~", "", false},
		{"'/x' y hook", "", false},
		{"' hook", "", false},
		{" hook", "", false},
		{"skillroute hook ", "", false},
	}
	for _, c := range cases {
		got, ok := hook.CommandBinary(c.cmd)
		assert.Equal(t, c.ok, ok, c.cmd)
		assert.Equal(t, c.binary, got, c.cmd)
	}
}

// Files the editor cannot edit without guessing are refused with a
// message naming the file, and left as they were.
func TestInstallRefusesAmbiguousSettings(t *testing.T) {
	cases := map[string]string{
		"not an object":       `[1, 2]`,
		"hooks not an object": `{"hooks": [1]}`,
		"hooks twice":         `{"hooks": {}, "hooks": {}}`,
		"hooks escaped":       `{"hook\u0073": {}}`,
		"event not a list":    `{"hooks": {"UserPromptSubmit": "x"}}`,
		"event twice":         `{"hooks": {"SessionStart": [], "SessionStart": []}}`,
		"event escaped twice": `{"hooks": {"SessionStart": [], "Session\u0053tart": []}}`,
		"trailing garbage":    `{} {}`,
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "settings.json")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
			_, err := hook.Install(path, "/bin/skillroute", false)
			require.Error(t, err)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), "left untouched")
			data, _ := os.ReadFile(path)
			assert.Equal(t, content, string(data))
		})
	}
}

// A settings file that is not JSON is refused with the line and column
// where it stops being JSON (a comment, a trailing comma, a cut file), so
// that the user can find it in a file of hundreds of lines.
func TestSettingsNotJSONNamesLine(t *testing.T) {
	cases := []struct {
		name, content, where string
	}{
		{"comment", "{\n  // mine\n  \"model\": \"opus\"\n}\n", "line 2, column 3"},
		{"trailing comma", "{\n  \"model\": \"opus\",\n  \"hooks\": {},\n}\n", "line 4, column 1"},
		{"cut short", "{\n  \"model\": \"opus\",\n  \"hooks\": {", "line 3, column 13"},
		{"wide characters", "{\"名前\": \"値\",\n\"x\" 1}", "line 2, column 5"},
	}
	for _, c := range cases {
		for _, op := range []struct {
			name string
			run  func(path string) error
		}{
			{"install", func(p string) error { _, err := hook.Install(p, "/bin/skillroute", false); return err }},
			{"uninstall", func(p string) error { _, err := hook.Uninstall(p, false); return err }},
		} {
			t.Run(c.name+"/"+op.name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "settings.json")
				require.NoError(t, os.WriteFile(path, []byte(c.content), 0o644))
				err := op.run(path)
				require.Error(t, err)
				assert.Contains(t, err.Error(), path+": not valid JSON at "+c.where)
				assert.Contains(t, err.Error(), "left untouched")
				data, _ := os.ReadFile(path)
				assert.Equal(t, c.content, string(data))
			})
		}
	}
}

// An entry an earlier version wrote ("BINARY hook", no GOMAXPROCS=1) is
// still ours: installing again replaces it with the current command
// rather than adding a second entry, and the shell that runs the command
// gives the hook its one processor.
func TestInstallUpgradesCommandWithoutEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	old := `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"/usr/local/bin/skillroute hook","timeout":5,"statusMessage":"skillroute: routing"}]}]}}`
	require.NoError(t, os.WriteFile(path, []byte(old), 0o644))
	_, err := hook.Install(path, "/usr/local/bin/skillroute", false)
	require.NoError(t, err)
	events, cmd := hook.Installed(path)
	assert.Len(t, events, len(hook.Registrations))
	assert.Equal(t, "GOMAXPROCS=1 /usr/local/bin/skillroute hook", cmd)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, len(hook.Registrations), strings.Count(string(data), "skillroute: routing"), "one entry per event")

	out, err := exec.Command("sh", "-c", strings.TrimSuffix(hook.Command("/usr/bin/env"), " hook")).Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "GOMAXPROCS=1\n")
}
