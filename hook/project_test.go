package hook_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProjectSignal protects the project-type signal on the hook's path:
// the shipped table (rules/projects.yaml) favours golang-pro in a Go
// module, and detection stops before the Handler's home folder, whose
// stray go.mod is no project's.
func TestProjectSignal(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	proj := filepath.Join(home, "notes")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, "go.mod"), []byte("module x\n"), 0o644))

	tests := []struct {
		name string
		home string
		want bool
	}{
		{"go.mod above, no home", "", true},
		{"go.mod in the home folder", home, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(t)
			h.Home = tt.home
			res := h.Handle(context.Background(), event(t, map[string]any{
				"session_id": "s1", "hook_event_name": "UserPromptSubmit", "cwd": proj,
				"prompt": "帮我弄一下这个"}))
			require.NotNil(t, res.Decision, res.Reason)
			found := false
			for _, c := range res.Decision.Candidates {
				found = found || c.Skill == "golang-pro"
			}
			assert.Equal(t, tt.want, found, "golang-pro among %v", res.Decision.Candidates)
		})
	}
}
