package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The plugin's entry script (bin/skillroute-hook), run as Claude Code runs
// it, without Claude Code: these need only sh and run with the unit tests.

// pluginEnv is an environment for the entry script: a plugin root, a data
// folder, a home, and a PATH holding only the tools it needs (no Go unless
// withGo).
func pluginEnv(t *testing.T, withGo bool) (env []string, data, home string) {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	tools := t.TempDir()
	names := []string{"cat", "mkdir", "dirname", "grep", "rmdir", "mv"}
	if withGo {
		names = append(names, "go")
	}
	for _, name := range names {
		path, err := exec.LookPath(name)
		require.NoError(t, err)
		require.NoError(t, os.Symlink(path, filepath.Join(tools, name)))
	}
	data, home = t.TempDir(), t.TempDir()
	env = []string{"PATH=" + tools, "HOME=" + home, "CLAUDE_PLUGIN_ROOT=" + root, "CLAUDE_PLUGIN_DATA=" + data}
	return env, data, home
}

func runEntry(t *testing.T, env []string, event string, args ...string) string {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	cmd := exec.Command("/bin/sh", append([]string{filepath.Join(root, "bin", "skillroute-hook")}, args...)...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"` + event + `","session_id":"s"}`)
	out, err := cmd.Output()
	require.NoError(t, err, "the entry script always exits 0")
	return string(out)
}

// systemMessage reads the message a hook output shows the user.
func systemMessage(t *testing.T, out string) string {
	t.Helper()
	line, _, _ := strings.Cut(out, "\n")
	if line == "" {
		return ""
	}
	var v struct {
		SystemMessage string `json:"systemMessage"`
	}
	require.NoError(t, json.Unmarshal([]byte(line), &v), out)
	return v.SystemMessage
}

// Without Go the plugin can never build its router: it says so once, at a
// session start, and is silent otherwise.
func TestEntryWithoutGo(t *testing.T) {
	env, data, _ := pluginEnv(t, false)
	assert.Empty(t, runEntry(t, env, "UserPromptSubmit"), "prompts stay silent")
	msg := systemMessage(t, runEntry(t, env, "SessionStart", "session-start"))
	assert.Contains(t, msg, "Go is not installed")
	assert.Contains(t, msg, "stays silent")
	assert.Empty(t, runEntry(t, env, "SessionStart", "session-start"), "said once")
	_, err := os.Stat(filepath.Join(data, "bin.lock"))
	assert.True(t, os.IsNotExist(err), "no build started")
}

// A build that fails leaves the plugin silent too: the next session start
// says where the build's log is.
func TestEntryBuildFails(t *testing.T) {
	env, data, _ := pluginEnv(t, false)
	tools := strings.TrimPrefix(env[0], "PATH=")
	// A stand-in for a Go that cannot build this module.
	require.NoError(t, os.WriteFile(filepath.Join(tools, "go"), []byte("#!/bin/sh\necho 'go: go.mod requires go >= 1.26.8' >&2\nexit 1\n"), 0o755))
	assert.Empty(t, runEntry(t, env, "UserPromptSubmit"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(data, "bin.lock")); os.IsNotExist(err) {
			break
		}
		require.True(t, time.Now().Before(deadline), "the background build never ended")
		time.Sleep(20 * time.Millisecond)
	}
	msg := systemMessage(t, runEntry(t, env, "SessionStart", "session-start"))
	assert.Contains(t, msg, "building the router failed")
	assert.Contains(t, msg, filepath.Join(data, "build.log"))
	assert.Empty(t, systemMessage(t, runEntry(t, env, "SessionStart", "session-start")), "said once")
}

// Installed both as the plugin and with `skillroute install`, every prompt
// gets two lines: the plugin says so once, then runs the hook as usual.
func TestEntryInstalledTwice(t *testing.T) {
	env, data, home := pluginEnv(t, false)
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	bin := filepath.Join(data, "bin", "skillroute")
	require.NoError(t, os.MkdirAll(filepath.Dir(bin), 0o755))
	// A stand-in for the built binary: it answers so the test sees it ran.
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\ncat >/dev/null\necho ran \"$1\"\n"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(data, "bin", "built-from"), []byte(root), 0o644))

	assert.Equal(t, "ran hook\n", runEntry(t, env, "SessionStart", "session-start"), "one installation: no message")

	settings := filepath.Join(home, ".claude", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(settings), 0o755))
	require.NoError(t, os.WriteFile(settings, []byte(`{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"/usr/local/bin/skillroute hook","statusMessage":"skillroute: routing"}]}]}}`), 0o644))
	out := runEntry(t, env, "SessionStart", "session-start")
	assert.Contains(t, systemMessage(t, out), "installed twice")
	assert.True(t, strings.HasSuffix(out, "ran hook\n"), out)
	assert.Equal(t, "ran hook\n", runEntry(t, env, "SessionStart", "session-start"), "said once")
	assert.Equal(t, "ran hook\n", runEntry(t, env, "UserPromptSubmit"))
}

// The plugin's files as Claude Code reads them: every hook carries the
// status message, SessionStart tells the entry script what it is, and
// /skillroute:wrong names the plugin's data folder, which its shell does
// not get in the environment.
func TestPluginFiles(t *testing.T) {
	data, err := os.ReadFile("../hooks/hooks.json")
	require.NoError(t, err)
	var hooks struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command       string `json:"command"`
				StatusMessage string `json:"statusMessage"`
				Timeout       int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(data, &hooks))
	require.Len(t, hooks.Hooks, 4)
	for event, groups := range hooks.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				assert.Equal(t, "skillroute: routing", h.StatusMessage, event)
				assert.Equal(t, 5, h.Timeout, event)
				assert.Equal(t, event == "SessionStart", strings.HasSuffix(h.Command, " session-start"), event)
			}
		}
	}
	wrong, err := os.ReadFile("../commands/wrong.md")
	require.NoError(t, err)
	assert.Contains(t, string(wrong), `correct --state "${CLAUDE_PLUGIN_DATA}"`)
}
