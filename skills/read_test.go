package skills_test

import (
	"os"
	"path/filepath"
	"slices"
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

// TestDiscoverListedFolders protects a recompile's one listing of a skills
// folder: the loader lists it for its stamp, and discovery takes the
// names it was given (ReadDirNames: os.ReadDir's, sorted) instead of
// listing the folder again; a folder it was not given is listed.
func TestDiscoverListedFolders(t *testing.T) {
	project := t.TempDir()
	dir := filepath.Join(project, ".claude", "skills")
	for _, name := range []string{"gamma", "alpha", "beta"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte("---\ndescription: Skill "+name+".\n---\nBody.\n"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a skill"), 0o644))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var want []string
	for _, e := range entries {
		want = append(want, e.Name())
	}
	names, err := skills.ReadDirNames(dir)
	require.NoError(t, err)
	assert.Equal(t, want, names)
	_, err = skills.ReadDirNames(filepath.Join(project, "missing"))
	assert.Error(t, err)

	for _, tc := range []struct {
		name     string
		listings map[string][]string
		found    []string
	}{
		{"listed now", nil, []string{"alpha", "beta", "gamma"}},
		{"as listed before", map[string][]string{dir: {"README.md", "alpha", "gamma"}}, []string{"alpha", "gamma"}},
		{"another folder listed", map[string][]string{filepath.Join(project, "other"): {"alpha"}}, []string{"alpha", "beta", "gamma"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := skills.LoadFrontCache(filepath.Join(t.TempDir(), "front.bin"), "bin")
			fc.Listings = tc.listings
			cat, warnings, err := skills.DiscoverCached(skills.Places{ProjectDir: project}, false, fc)
			require.NoError(t, err)
			assert.Empty(t, warnings)
			assert.Equal(t, tc.found, cat.Names())
		})
	}
}

// Claude Code keeps a plugin's superseded versions in its cache, marked
// with an .orphaned_at file, until it sweeps them weeks later: their
// skills are not loaded, so none of them is routed to, and a skill the
// installed version still has is read from that version.
func TestDiscoverSkipsOrphanedPluginVersions(t *testing.T) {
	home := t.TempDir()
	plugin := filepath.Join(home, ".claude", "plugins", "cache", "market", "acme")
	write := func(version, skill, desc string) {
		p := filepath.Join(plugin, version, "skills", skill, "SKILL.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("---\nname: "+skill+"\ndescription: "+desc+"\n---\n"), 0o644))
	}
	// 1.9.0 sorts after 1.10.0 by name.
	write("1.9.0", "deploy", "deploy with capistrano")
	write("1.9.0", "legacy-db", "migrate the oracle database")
	write("1.10.0", "deploy", "deploy to kubernetes with argo")
	enablePlugin(t, home, "acme@market")
	for _, tc := range []struct {
		name     string
		orphaned []string
		dirs     []string
		skills   map[string]string // name: description; nil: not checked
	}{
		{"no version orphaned", nil, []string{"1.10.0", "1.9.0"}, nil},
		{"the old version orphaned", []string{"1.9.0"}, []string{"1.10.0"},
			map[string]string{"acme:deploy": "deploy to kubernetes with argo"}},
		{"every version orphaned", []string{"1.9.0", "1.10.0"}, nil, map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range []string{"1.9.0", "1.10.0"} {
				require.NoError(t, os.RemoveAll(filepath.Join(plugin, v, ".orphaned_at")))
			}
			for _, v := range tc.orphaned {
				require.NoError(t, os.WriteFile(filepath.Join(plugin, v, ".orphaned_at"), []byte("1778282953517"), 0o644))
			}
			places := skills.Places{Home: home}
			var dirs []string
			for _, d := range places.Dirs() {
				if d.Prefix != "" {
					assert.Equal(t, "acme:", d.Prefix)
					dirs = append(dirs, filepath.Base(filepath.Dir(d.Path)))
				}
			}
			assert.Equal(t, tc.dirs, dirs)
			if tc.skills == nil {
				return
			}
			cat, warnings, err := skills.Discover(places, false)
			require.NoError(t, err)
			assert.Empty(t, warnings)
			got := map[string]string{}
			for _, s := range cat.Skills {
				got[s.Name] = s.Description
			}
			assert.Equal(t, tc.skills, got)
		})
	}
}

// TestUserOnlySkillsLeftOut: a skill whose header says
// disable-model-invocation: true is the user's alone (/NAME): Claude Code
// lists it not to the model, so no route may name it. It still shadows a
// project's skill of its name, as Claude Code's personal skill does; read
// afresh, from the frontmatter cache, or as a --catalog folder alike.
func TestUserOnlySkillsLeftOut(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	write := func(root, skill, extra string) {
		p := filepath.Join(root, ".claude", "skills", skill, "SKILL.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("---\nname: "+skill+"\ndescription: "+skill+" things\n"+extra+"---\n"), 0o644))
	}
	write(home, "deploy", "disable-model-invocation: true\n")
	write(home, "commit", "disable-model-invocation: True\n")
	write(home, "review", "disable-model-invocation: false\n")
	write(home, "lint", "disable-model-invocation: yes\n") // YAML 1.2: a string, not true
	write(project, "deploy", "")
	write(project, "release", "")
	want := []string{"lint", "release", "review"}
	cachePath := filepath.Join(t.TempDir(), "front.bin")
	for _, pass := range []string{"read afresh", "from the cache"} {
		fc := skills.LoadFrontCache(cachePath, "bin")
		cat, warnings, err := skills.DiscoverCached(skills.Places{Home: home, ProjectDir: project}, false, fc)
		require.NoError(t, err, pass)
		assert.Empty(t, warnings, pass)
		assert.Equal(t, want, cat.Names(), pass)
		assert.ElementsMatch(t, []string{"deploy (disable-model-invocation)", "commit (disable-model-invocation)"}, cat.LeftOut, pass)
		require.NoError(t, fc.Save(cachePath), pass)
	}
	cat, err := skills.LoadDir(filepath.Join(home, ".claude", "skills"))
	require.NoError(t, err)
	assert.Equal(t, []string{"lint", "review"}, cat.Names())
}

// TestPathsField: Claude Code's paths, as a list or one comma-separated
// string, is read into Skill.Paths, afresh and from the frontmatter cache
// alike; a shape it cannot be is an error on its line; and changing the
// globs changes the skill's sum, so the index is compiled again.
func TestPathsField(t *testing.T) {
	home := t.TempDir()
	write := func(skill, extra string) {
		p := filepath.Join(home, ".claude", "skills", skill, "SKILL.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("---\nname: "+skill+"\ndescription: "+skill+" things\n"+extra+"---\n"), 0o644))
	}
	write("sql", "paths: [\"db/**/*.sql\", \" *.sql \"]\n")
	write("web", "paths: \"src/**/*.tsx, src/**/*.css\"\n")
	write("any", "")
	cachePath := filepath.Join(t.TempDir(), "front.bin")
	for _, pass := range []string{"read afresh", "from the cache"} {
		fc := skills.LoadFrontCache(cachePath, "bin")
		cat, warnings, err := skills.DiscoverCached(skills.Places{Home: home}, false, fc)
		require.NoError(t, err, pass)
		assert.Empty(t, warnings, pass)
		got := map[string][]string{}
		for _, s := range cat.Skills {
			got[s.Name] = s.Paths
		}
		assert.Equal(t, map[string][]string{"sql": {"db/**/*.sql", "*.sql"}, "web": {"src/**/*.tsx", "src/**/*.css"}, "any": nil}, got, pass)
		require.NoError(t, fc.Save(cachePath), pass)
	}

	_, err := skills.Parse("x/SKILL.md", "x", []byte("---\nname: x\ndescription: d\npaths: {src: x}\n---\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "x/SKILL.md:4")
	assert.Contains(t, err.Error(), "paths takes globs")

	a, err := skills.Parse("x/SKILL.md", "x", []byte("---\nname: x\ndescription: d\npaths: \"*.sql\"\n---\nbody\n"))
	require.NoError(t, err)
	b, err := skills.Parse("x/SKILL.md", "x", []byte("---\nname: x\ndescription: d\npaths: \"*.py\"\n---\nbody\n"))
	require.NoError(t, err)
	c, err := skills.Parse("x/SKILL.md", "x", []byte("---\nname: x\ndescription: d\n---\nbody\n"))
	require.NoError(t, err)
	assert.NotEqual(t, a.ContentSum(), b.ContentSum())
	assert.NotEqual(t, a.ContentSum(), c.ContentSum())
}

// TestPersonalSkillOutranksProject: as in Claude Code, of two skills of
// one name the personal one (~/.claude/skills) is the one loaded, not the
// project's; the project's other skills stay.
func TestPersonalSkillOutranksProject(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	write := func(root, skill, desc string) {
		p := filepath.Join(root, ".claude", "skills", skill, "SKILL.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("---\nname: "+skill+"\ndescription: "+desc+"\n---\n"), 0o644))
	}
	write(home, "deploy", "deploy the way I always do")
	write(project, "deploy", "deploy this project to its cluster")
	write(project, "release-notes", "write this project's release notes")
	cat, warnings, err := skills.Discover(skills.Places{Home: home, ProjectDir: project}, false)
	require.NoError(t, err)
	assert.Empty(t, warnings)
	got := map[string]string{}
	for _, s := range cat.Skills {
		got[s.Name] = s.Description
	}
	assert.Equal(t, map[string]string{"deploy": "deploy the way I always do", "release-notes": "write this project's release notes"}, got)
}

// A skills folder that is there but cannot be listed is named in a
// warning: its skills were dropped without a word, and doctor then said
// "catalog has no skills: run `skillroute skills install`". A folder
// that is not there is normal, and says nothing.
func TestDiscoverWarnsOfUnlistableFolders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T, dir string)
		warned bool
	}{
		{"no folder", func(t *testing.T, dir string) {}, false},
		{"a file where the folder goes", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(dir, []byte("not a folder"), 0o644))
		}, true},
		{"a folder it may not read", func(t *testing.T, dir string) {
			if os.Geteuid() == 0 {
				t.Skip("root reads any folder")
			}
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "deploy"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "deploy", "SKILL.md"), []byte("---\ndescription: ship it\n---\n"), 0o644))
			require.NoError(t, os.Chmod(dir, 0))
			t.Cleanup(func() { os.Chmod(dir, 0o755) })
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, project := t.TempDir(), t.TempDir()
			good := filepath.Join(home, ".claude", "skills", "good", "SKILL.md")
			require.NoError(t, os.MkdirAll(filepath.Dir(good), 0o755))
			require.NoError(t, os.WriteFile(good, []byte("---\ndescription: a fine skill\n---\n"), 0o644))
			require.NoError(t, os.MkdirAll(filepath.Join(project, ".claude"), 0o755))
			dir := filepath.Join(project, ".claude", "skills")
			tc.make(t, dir)
			cat, warnings, err := skills.Discover(skills.Places{Home: home, ProjectDir: project}, false)
			require.NoError(t, err)
			assert.Equal(t, []string{"good"}, cat.Names())
			if !tc.warned {
				assert.Empty(t, warnings)
				return
			}
			require.Len(t, warnings, 1)
			assert.Contains(t, warnings[0].Error(), dir)
			assert.Contains(t, warnings[0].Error(), "cannot be read")
		})
	}
}

// Install reads what is at a skill's path as the other readers do: a FIFO
// there hung `skillroute skills install` (and `install`) for good, as
// os.ReadFile waited for a writer. What is not a regular file is named
// and left untouched; a file of the user's is kept unless forced.
func TestInstallOverWhatIsThere(t *testing.T) {
	builtin, err := skills.BuiltinFiles()
	require.NoError(t, err)
	const name = "tester-expert"
	for _, tc := range []struct {
		name   string
		make   func(t *testing.T, path string)
		force  bool
		action string // "": an error naming the file
	}{
		{"nothing", func(t *testing.T, path string) {}, false, "written"},
		{"the same file", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, builtin[name], 0o644))
		}, false, "unchanged"},
		{"the user's file", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("---\ndescription: mine\n---\n"), 0o644))
		}, false, "skipped (differs; use --force)"},
		{"the user's file, forced", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("---\ndescription: mine\n---\n"), 0o644))
		}, true, "overwritten"},
		{"the user's file, too large to read", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, make([]byte, skills.MaxSkillBytes+1), 0o644))
		}, false, "skipped (differs; use --force)"},
		{"a FIFO", func(t *testing.T, path string) { require.NoError(t, syscall.Mkfifo(path, 0o644)) }, true, ""},
		{"a folder", func(t *testing.T, path string) { require.NoError(t, os.Mkdir(path, 0o755)) }, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name, "SKILL.md")
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			tc.make(t, path)
			type result struct {
				res []skills.InstallResult
				err error
			}
			done := make(chan result, 1)
			go func() {
				res, err := skills.Install(dir, tc.force, name)
				done <- result{res, err}
			}()
			var got result
			select {
			case got = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Install blocked on what is at " + path)
			}
			if tc.action == "" {
				require.Error(t, got.err)
				assert.Contains(t, got.err.Error(), path)
				require.Len(t, got.res, 1)
				assert.Equal(t, "failed", got.res[0].Action)
				info, err := os.Lstat(path)
				require.NoError(t, err, "left where it was")
				assert.False(t, info.Mode().IsRegular(), "left as it was")
				return
			}
			require.NoError(t, got.err)
			require.Len(t, got.res, 1)
			assert.Equal(t, tc.action, got.res[0].Action)
		})
	}
}

// A skill that cannot be written does not cost the user the others:
// `skillroute install` stopped at the first such path, so every built-in
// skill after it in name order was missing, with one error naming one
// path. Each failure is named, and the rest are written.
func TestInstallGoesOnPastAFailure(t *testing.T) {
	builtin, err := skills.BuiltinFiles()
	require.NoError(t, err)
	dir := t.TempDir()
	blocked := []string{"api-designer", "tester-expert"} // early and late in name order
	for _, name := range blocked {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, name, "SKILL.md"), 0o755))
	}
	res, err := skills.Install(dir, false)
	require.Error(t, err)
	for _, name := range blocked {
		assert.Contains(t, err.Error(), filepath.Join(dir, name, "SKILL.md"))
	}
	require.Len(t, res, len(builtin))
	for _, r := range res {
		want := "written"
		if slices.Contains(blocked, r.Name) {
			want = "failed"
		}
		assert.Equal(t, want, r.Action, r.Name)
		if want == "written" {
			data, err := os.ReadFile(r.Path)
			require.NoError(t, err)
			assert.Equal(t, builtin[r.Name], data, r.Name)
		}
	}
}

// enablePlugin writes the user's settings as `/plugin install` leaves
// them: the plugin enabled.
func enablePlugin(t *testing.T, home, key string) {
	t.Helper()
	p := filepath.Join(home, ".claude", "settings.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(`{"enabledPlugins": {"`+key+`": true}}`), 0o644))
}

// TestSettingsHideSkills: a hook must name only skills the model can
// invoke. Claude Code's settings keep three kinds from it: the skills of a
// plugin that is installed but not enabled (enabledPlugins, the project's
// local file over its shared one over the user's), a personal or project
// skill that skillOverrides turns "off" or "user-invocable-only" (not a
// plugin's: overrides do not apply to them), and a skill a permission rule
// denies (permissions.deny "Skill(NAME)", "Skill(NAME *)", or "Skill" for
// all). Before, every plugin in the cache and every overridden or denied
// skill was routed to.
func TestSettingsHideSkills(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	write := func(path, body string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	}
	skill := func(dir, name string) {
		write(filepath.Join(dir, name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+name+" things\n---\n")
	}
	cache := filepath.Join(home, ".claude", "plugins", "cache")
	skill(filepath.Join(cache, "market", "acme", "1.0.0", "skills"), "deploy")     // enabled by the user
	skill(filepath.Join(cache, "market", "beta", "2.0.0", "skills"), "lint")       // disabled by the user, enabled by the project's local file
	skill(filepath.Join(cache, "market", "gamma", "1.0.0", "skills"), "audit")     // enabled by the user, disabled by the project
	skill(filepath.Join(cache, "other", "delta", "1.0.0", "skills"), "translate")  // installed, in no settings file
	skill(filepath.Join(cache, "market", "epsilon", "1.0.0", "skills"), "secret")  // enabled, its skill denied
	skill(filepath.Join(cache, "market", "zeta", "1.0.0", "skills"), "off-plugin") // enabled; an override by its bare name does not apply
	personal := filepath.Join(home, ".claude", "skills")
	for _, name := range []string{"commit", "review", "release", "changelog", "standup", "notes"} {
		skill(personal, name)
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{
	  "enabledPlugins": {"acme@market": true, "beta@market": false, "gamma@market": true, "epsilon@market": true, "zeta@market": true},
	  "skillOverrides": {"commit": "off", "review": "user-invocable-only", "release": "name-only", "changelog": "on", "off-plugin": "off"},
	  "permissions": {"deny": ["Skill(standup)", "Skill(epsilon:secret *)", "Bash(rm *)"]}
	}`)
	write(filepath.Join(project, ".claude", "settings.json"), `{"enabledPlugins": {"gamma@market": false}}`)
	write(filepath.Join(project, ".claude", "settings.local.json"), `{"enabledPlugins": {"beta@market": true}}`)

	places := skills.Places{Home: home, ProjectDir: project}
	cat, warnings, err := skills.Discover(places, false)
	require.NoError(t, err)
	assert.Empty(t, warnings)
	assert.Equal(t, []string{"acme:deploy", "beta:lint", "changelog", "notes", "release", "zeta:off-plugin"}, cat.Names())
	assert.ElementsMatch(t, []string{"gamma@market (plugin not enabled)", "delta@other (plugin not enabled)",
		"epsilon:secret (settings)", "commit (settings)", "review (settings)", "standup (settings)"}, cat.LeftOut)

	// "Skill" alone denies every skill.
	write(filepath.Join(project, ".claude", "settings.local.json"), `{"permissions": {"deny": ["Skill"]}}`)
	cat, _, err = skills.Discover(places, false)
	require.NoError(t, err)
	assert.Empty(t, cat.Names())

	// A settings file that is not JSON is named, and the others apply.
	write(filepath.Join(project, ".claude", "settings.local.json"), `{"enabledPlugins": `)
	cat, warnings, err = skills.Discover(places, false)
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Contains(t, warnings[0].Error(), filepath.Join(project, ".claude", "settings.local.json"))
	assert.Equal(t, []string{"acme:deploy", "changelog", "notes", "release", "zeta:off-plugin"}, cat.Names())
}

// skillRule reads the permission rules about the Skill tool.
func TestSkillRule(t *testing.T) {
	for _, tc := range []struct {
		rule, name string
		ok         bool
	}{
		{"Skill", "", true},
		{"Skill(deploy)", "deploy", true},
		{"Skill(deploy *)", "deploy", true},
		{"Skill(deploy:*)", "deploy", true},
		{"Skill(/deploy)", "deploy", true},
		{"Skill(acme:deploy)", "acme:deploy", true},
		{" Skill( deploy ) ", "deploy", true},
		{"Skill()", "", false},
		{"Skills(deploy)", "", false},
		{"Bash(rm *)", "", false},
		{"Skill(deploy", "", false},
	} {
		name, ok := skills.SkillRule(tc.rule)
		assert.Equal(t, tc.ok, ok, tc.rule)
		assert.Equal(t, tc.name, name, tc.rule)
	}
}

// Claude Code reads a project's skills from the folder it starts in and
// from each parent up to the repository's root: started in a monorepo's
// package, the repository's own .claude/skills count too, a nearer
// folder's skill outranks a parent's of its name, and nothing above the
// repository is read. Before, only the start folder's were.
func TestProjectSkillsUpToRepositoryRoot(t *testing.T) {
	outside := t.TempDir()
	repo := filepath.Join(outside, "repo")
	pkg := filepath.Join(repo, "packages", "web")
	skill := func(root, name, desc string) {
		p := filepath.Join(root, ".claude", "skills", name, "SKILL.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("---\ndescription: "+desc+"\n---\n"), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	skill(outside, "above", "not in the repository")
	skill(repo, "release", "release the whole repository")
	skill(repo, "deploy", "deploy every service")
	skill(filepath.Join(repo, "packages"), "lint", "lint the packages")
	skill(pkg, "deploy", "deploy the web package")

	got := func(p skills.Places) map[string]string {
		cat, warnings, err := skills.Discover(p, false)
		require.NoError(t, err)
		require.Empty(t, warnings)
		out := map[string]string{}
		for _, s := range cat.Skills {
			out[s.Name] = s.Description
		}
		return out
	}
	assert.Equal(t, map[string]string{"release": "release the whole repository", "deploy": "deploy the web package", "lint": "lint the packages"},
		got(skills.Places{ProjectDir: pkg}))

	// Outside a repository, the start folder alone.
	require.NoError(t, os.RemoveAll(filepath.Join(repo, ".git")))
	assert.Equal(t, map[string]string{"deploy": "deploy the web package"}, got(skills.Places{ProjectDir: pkg}))
}
