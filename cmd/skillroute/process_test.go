package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The built binary as Claude Code runs it: after a skill is added, the
// next prompt is not silent (the last index answers while a background
// compile runs), and once the compile lands the new skill is routed.
func TestHookProcessAfterCatalogChange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	a := isolate(t)
	bin := filepath.Join(t.TempDir(), "skillroute")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, string(out))
	env := append(os.Environ(), "HOME="+a.places.Home, "SKILLROUTE_HOME="+a.stateDir,
		"CLAUDE_PLUGIN_DATA=", "CLAUDE_PROJECT_DIR=", "CLAUDE_PLUGIN_ROOT=")
	runBin := func(stdin string, args ...string) string {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		require.NoError(t, err)
		return string(out)
	}
	runBin("", "skills", "install")
	const prompt = `{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"git rebase 之后冲突了，怎么解决"}`
	assert.Contains(t, runBin(prompt, "hook"), "git-operation-master")

	skill := filepath.Join(a.places.Home, ".claude", "skills", "invoice-helper", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(skill), 0o755))
	require.NoError(t, os.WriteFile(skill, []byte("---\ndescription: customer invoices, VAT lines and credit notes\n---\n"), 0o644))
	assert.Contains(t, runBin(prompt, "hook"), "git-operation-master", "the last index answers while the new one compiles")

	invoice := `{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"the VAT lines on this customer invoice are wrong, add a credit note"}`
	deadline := time.Now().Add(60 * time.Second)
	for {
		if st, ok := readStatus(a.cacheDir()); ok && st.State != "compiling" {
			require.Equal(t, "compiled", st.State, st.Error)
			assert.Equal(t, 51, st.Skills)
			break
		}
		require.True(t, time.Now().Before(deadline), "the background compile did not finish")
		time.Sleep(50 * time.Millisecond)
	}
	assert.Contains(t, runBin(invoice, "hook"), "invoice-helper")
}
