package loader

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/skills"
)

// TestStampsPreloadFrontCache protects the frontmatter cache loaded
// beside the stamps: the first compile from them takes it, with what the
// stamp saw of the skill folders; any later one, or one of another
// catalog, loads its own (a cache is read and saved by one compile).
func TestStampsPreloadFrontCache(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, ".claude", "skills", "alpha")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\ndescription: Alpha.\n---\nBody.\n"), 0o644))
	cfg := Config{Catalog: Installed, Places: skills.Places{Home: home}, CacheDir: t.TempDir(), Glossary: NoGlossary}
	_, err := Compile(cfg)
	require.NoError(t, err)

	st, err := TakeStamps(cfg)
	require.NoError(t, err)
	require.NotNil(t, st.fronts)
	other := cfg
	other.Catalog = filepath.Join(home, ".claude", "skills")
	for _, tc := range []struct {
		name      string
		cfg       Config
		preloaded bool
	}{
		{"another catalog loads its own", other, false},
		{"the first compile takes it", cfg, true},
		{"a second loads its own", cfg, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := st.frontCache(tc.cfg)
			<-st.fronts.done // the preload's result, read once it is there
			assert.Equal(t, tc.preloaded, fc == st.fronts.fc)
			assert.Equal(t, tc.cfg.Catalog == Installed, fc.Loaded(), "the last compile's headers")
		})
	}
	assert.Contains(t, st.seen.dirs, filepath.Join(home, ".claude", "skills"), "the folder listed once")
	assert.Len(t, st.seen.files, 1)
}
