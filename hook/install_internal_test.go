package hook

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Another program saving settings.json while an install computes its
// edit does not lose its change: the install starts over on the new file.
func TestInstallKeepsConcurrentEdit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"model": "opus"}`), 0o644))
	edits := 0
	beforeWrite = func(p string) {
		if edits++; edits == 1 { // Claude Code saves a setting meanwhile
			require.NoError(t, os.WriteFile(p, []byte(`{"model": "opus", "theme": "dark"}`), 0o644))
		}
	}
	t.Cleanup(func() { beforeWrite = nil })
	_, err := Install(path, "/bin/skillroute", false)
	require.NoError(t, err)
	assert.Equal(t, 2, edits, "started over once")
	var s map[string]any
	data, _ := os.ReadFile(path)
	require.NoError(t, json.Unmarshal(data, &s))
	assert.Equal(t, "dark", s["theme"], "the other program's change is kept")
	assert.Contains(t, s, "hooks")

	// A file that never stops changing is left alone, with an error.
	beforeWrite = func(p string) {
		edits++
		require.NoError(t, os.WriteFile(p, []byte(`{"n": `+string(rune('0'+edits%10))+`}`), 0o644))
	}
	_, err = Uninstall(path, false)
	assert.ErrorContains(t, err, "keeps changing")
}
