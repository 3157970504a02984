package skills_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/skills"
)

func TestListingEntry(t *testing.T) {
	cases := []struct {
		name  string
		skill skills.Skill
		want  string
		size  int
	}{
		{"description only", skills.Skill{Name: "a", Description: "Does x."}, "- a: Does x.", 12},
		{"with when_to_use", skills.Skill{Name: "a", Description: "Does x.", WhenToUse: `"x it"`}, `- a: Does x. - "x it"`, 21},
		{"routing fields are not listed", skills.Skill{Name: "a", Description: "Does x.", Triggers: "lots of words",
			Keywords: []skills.Keyword{{Text: "x"}}}, "- a: Does x.", 12},
		{"Chinese counts double", skills.Skill{Name: "a", Description: "首屏慢"}, "- a: 首屏慢", 5 + 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, skills.ListingEntry(c.skill))
			assert.Equal(t, c.size, skills.ListingSize([]skills.Skill{c.skill}))
		})
	}
	long := skills.Skill{Name: "a", Description: strings.Repeat("x", 2000)}
	assert.Equal(t, len("- a: ")+skills.ListingMaxDesc, skills.ListingSize([]skills.Skill{long}), "capped like Claude Code")
	two := []skills.Skill{{Name: "a", Description: "x"}, {Name: "b", Description: "y"}}
	assert.Equal(t, 2*len("- a: x")+1, skills.ListingSize(two), "one newline between entries")
}

// The built-in skills must leave most of Claude Code's skill listing to
// the user's own skills: over the budget, Claude Code lists skills by bare
// name, which defeats the routing. Their descriptions are one short line;
// trigger phrases go to triggers, which the listing does not show.
func TestBuiltinFitsListingBudget(t *testing.T) {
	cat, err := skills.Builtin()
	require.NoError(t, err)
	size := skills.ListingSize(cat.Skills)
	assert.LessOrEqual(t, size+skills.ClaudeCodeListing, skills.ListingBudget/2,
		"the built-in skills (%d chars) and Claude Code's own (%d) must leave half the budget free", size, skills.ClaudeCodeListing)
	for _, sk := range cat.Skills {
		assert.Empty(t, sk.WhenToUse, "%s: trigger phrases belong in triggers, which the listing does not count", sk.Name)
		assert.LessOrEqual(t, len(skills.ListingEntry(sk)), 200, "%s: one short line", sk.Name)
		assert.NotEmpty(t, sk.Triggers, sk.Name)
	}
}

// Claude Code lists the user's command files with the skills.
func TestPlacesCommands(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	write(filepath.Join(home, ".claude", "commands", "standup.md"), "---\ndescription: Write my standup notes\n---\nbody\n")
	write(filepath.Join(project, ".claude", "commands", "release.md"), "Cut a release of this project.\n\nSteps follow.\n")
	write(filepath.Join(project, ".claude", "commands", "notes.txt"), "not a command")
	// Hostile files are left out, and never block the hook: a FIFO no
	// one writes to, a link to an endless device.
	require.NoError(t, syscall.Mkfifo(filepath.Join(project, ".claude", "commands", "hang.md"), 0o644))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(project, ".claude", "commands", "zero.md")))
	done := make(chan []skills.Skill, 1)
	go func() { done <- skills.Places{Home: home, ProjectDir: project}.Commands() }()
	var cmds []skills.Skill
	select {
	case cmds = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Commands blocked on a hostile command file")
	}
	require.Len(t, cmds, 2)
	assert.Equal(t, "- standup: Write my standup notes", skills.ListingEntry(cmds[0]))
	assert.Equal(t, "- release: Cut a release of this project.", skills.ListingEntry(cmds[1]))
}
