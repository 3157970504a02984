package skills_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillroute/skillroute/skills"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A cloned repository can carry any file where a SKILL.md is expected:
// each hostile kind is left out with a warning naming it, quickly, and
// the good skills beside it still load.
func TestHostileSkillFolders(t *testing.T) {
	project := t.TempDir()
	dir := filepath.Join(project, ".claude", "skills")
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(p, 0o755))
		return filepath.Join(p, "SKILL.md")
	}
	require.NoError(t, os.WriteFile(mk("good"), []byte("---\ndescription: a fine skill\n---\n"), 0o644))
	require.NoError(t, os.Symlink("/dev/zero", mk("zero")))
	require.NoError(t, syscall.Mkfifo(mk("fifo"), 0o644))
	huge := "---\ndescription: huge\n---\n" + strings.Repeat("x", skills.MaxSkillBytes)
	require.NoError(t, os.WriteFile(mk("huge"), []byte(huge), 0o644))
	loop := mk("loop")
	require.NoError(t, os.Symlink(loop, loop))
	laughs := "---\ndescription: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n---\n"
	require.NoError(t, os.WriteFile(mk("laughs"), []byte(laughs), 0o644))

	start := time.Now()
	cat, warnings, err := skills.Discover(skills.Places{ProjectDir: project}, false)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Equal(t, []string{"good"}, cat.Names())
	var text []string
	for _, w := range warnings {
		text = append(text, w.Error())
	}
	joined := strings.Join(text, "\n")
	for _, name := range []string{"zero", "fifo", "huge", "loop", "laughs"} {
		assert.Contains(t, joined, filepath.Join(dir, name, "SKILL.md"), "a warning names %s", name)
	}

	// An explicit --catalog folder fails on the first hostile file, by name.
	_, err = skills.LoadDir(dir)
	require.Error(t, err)
}

// A project skill is named by its folder, which Claude Code invokes it
// by, whatever its header says; the header's name stays as its title.
func TestDiscoverNamesByFolder(t *testing.T) {
	project := t.TempDir()
	dir := filepath.Join(project, ".claude", "skills", "deploy-tool")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: Deploy Tool\ndescription: ship it\n---\n"), 0o644))
	cat, warnings, err := skills.Discover(skills.Places{ProjectDir: project}, false)
	require.NoError(t, err)
	require.Empty(t, warnings)
	assert.Equal(t, []string{"deploy-tool"}, cat.Names())
	assert.Equal(t, "Deploy Tool", cat.Skills[0].Title)
}
