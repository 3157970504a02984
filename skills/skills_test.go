package skills_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/skills"
)

const fullSkill = `---
name: cache-expert
description: >-
  Redis caching, eviction
  and cache stampedes.
when_to_use: '"cache is slow", "缓存击穿怎么办"'
triggers: cache penetration, hot keys
situations: >-
  the same product page hits the database a thousand times a second;
  数据一更新，页面还是旧的
keywords:
  core: [redis, 缓存击穿]
  strong: [" cache ", ""]
  extended: [database]
enhances: [db-expert]
requires: [base-skill]
conflicts: [other-skill]
maturity: stable
---
# Cache expert

Body text.
`

// TestParseFull protects every field of a SKILL.md frontmatter.
func TestParseFull(t *testing.T) {
	sk, err := skills.Parse("skills/cache/SKILL.md", "cache", []byte(fullSkill))
	require.NoError(t, err)
	assert.Equal(t, skills.Skill{
		Name:        "cache-expert",
		Description: "Redis caching, eviction and cache stampedes.",
		WhenToUse:   `"cache is slow", "缓存击穿怎么办"`,
		Triggers:    "cache penetration, hot keys",
		Situations:  "the same product page hits the database a thousand times a second; 数据一更新，页面还是旧的",
		Keywords: []skills.Keyword{
			{Text: "redis", Tier: skills.Core, Weight: 1.0},
			{Text: "缓存击穿", Tier: skills.Core, Weight: 1.0},
			{Text: "cache", Tier: skills.Strong, Weight: 0.7},
			{Text: "database", Tier: skills.Extended, Weight: 0.4},
		},
		Enhances:  []string{"db-expert"},
		Requires:  []string{"base-skill"},
		Conflicts: []string{"other-skill"},
		Maturity:  "stable",
		Body:      "# Cache expert\n\nBody text.\n",
		Source:    "skills/cache/SKILL.md",
	}, sk)
	assert.Contains(t, sk.Text(), "a thousand times a second", "situations are routed text, read with the description")
}

// TestParseVariants protects the SKILL.md shapes Claude Code accepts.
func TestParseVariants(t *testing.T) {
	tests := []struct {
		name     string
		dir      string
		data     string
		wantName string
		wantDesc string
		wantBody string
	}{
		{
			name:     "no frontmatter: description from the first paragraph",
			dir:      "notes",
			data:     "# Notes\n\nTakes meeting notes\nand sends them.\n\nSecond paragraph.\n",
			wantName: "notes",
			wantDesc: "Takes meeting notes and sends them.",
			wantBody: "# Notes\n\nTakes meeting notes\nand sends them.\n\nSecond paragraph.\n",
		},
		{
			name:     "name from the folder, description from the body",
			dir:      "folder-name",
			data:     "---\nmaturity: beta\n---\n# Title\n\nFirst words\nhere.\n",
			wantName: "folder-name",
			wantDesc: "First words here.",
			wantBody: "# Title\n\nFirst words\nhere.\n",
		},
		{
			name:     "CRLF and byte order mark",
			dir:      "win",
			data:     "\xef\xbb\xbf---\r\nname: windows-skill\r\ndescription: Made on Windows.\r\n---\r\nBody.\r\n",
			wantName: "windows-skill",
			wantDesc: "Made on Windows.",
			wantBody: "Body.\n",
		},
		{
			name:     "frontmatter only",
			dir:      "bare",
			data:     "---\nname: bare\ndescription: Nothing else.\n---",
			wantName: "bare",
			wantDesc: "Nothing else.",
			wantBody: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sk, err := skills.Parse("x/SKILL.md", tt.dir, []byte(tt.data))
			require.NoError(t, err)
			assert.Equal(t, tt.wantName, sk.Name)
			assert.Equal(t, tt.wantDesc, sk.Description)
			assert.Equal(t, tt.wantBody, sk.Body)
			assert.Empty(t, sk.Keywords)
		})
	}
}

// TestParseErrors protects skill authors: errors name the file, the line
// and why. (The optional space after the file is TestParseYAMLErrorFormat's
// bug; the line number itself is checked here.)
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		data   string
		line   int // 0: not checked (see TestParseYAMLSyntaxErrorLine)
		reason string
	}{
		{"unclosed frontmatter", "---\nname: x\ndescription: never closed\n", 1, "never closed"},
		{"wrong type", "---\nname: x\nkeywords: 5\n---\n", 3, `keywords takes a list per tier (keywords: {core: [a, b], strong: [c], extended: [d]}), not "5"`},
		{"wrong type deeper", "---\nname: x\ndescription: ok\nkeywords:\n  core: {a: b}\n---\n", 5, "keywords.core takes a list ([a, b]), not a map"},
		{"keywords as a list", "---\nname: x\nkeywords: [pdf, merge]\n---\n", 3, "keywords takes a list per tier (keywords: {core: [a, b], strong: [c], extended: [d]}), not a list"},
		{"keywords as a string", "---\nname: x\nkeywords: pdf, merge\n---\n", 3, `keywords takes a list per tier (keywords: {core: [a, b], strong: [c], extended: [d]}), not "pdf, merge"`},
		{"a tier as a string", "---\nname: x\nkeywords:\n  strong: pdf, merge\n---\n", 4, `keywords.strong takes a list ([a, b]), not "pdf, merge"`},
		{"a tier by an alias to a string", "---\nname: x\ntriggers: &t pdf\nkeywords:\n  core: *t\n---\n", 5, `keywords.core takes a list ([a, b]), not "pdf"`},
		{"a keyword as a map", "---\nname: x\nkeywords:\n  core:\n    - pdf\n    - {a: b}\n---\n", 6, "cannot unmarshal"},
		{"bad indentation", "---\nname: x\n  bad: indent\n---\n", 3, "mapping values are not allowed"},
		{"unclosed sequence", "---\nname: x\ndescription: ok\nkeywords:\n  core: [a\n---\n", 0, "did not find expected"},
		{"no name", "---\ndescription: nameless\n---\n", 2, "no name"},
		{"key given twice", "---\nname: x\ndescription: a\nname: y\n---\n", 4, `mapping key "name" already defined at line 2`},
		{"two wrong types", "---\nname: x\nkeywords: 5\nenhances: foo\n---\n", 3, "; line 4: cannot unmarshal !!str `foo`"},
		{"key given twice, deeper", "---\nname: x\nkeywords:\n  core: [a]\n  core: [b]\n---\n", 5, `mapping key "core" already defined at line 4`},
		{"not UTF-8", "---\nname: x\ndescription: ok\nwhen_to_use: |\n  caf\xe9 r\xe9sum\xe9\n---\nbody\n", 5, "not valid UTF-8"},
		{"UTF-16, little-endian", "\xff\xfe-\x00-\x00-\x00\n\x00n\x00a\x00m\x00e\x00:\x00 \x00x\x00\n\x00", 1, "UTF-16"},
		{"UTF-16, big-endian", "\xfe\xff\x00-\x00-\x00-\x00\n\x00n\x00a\x00m\x00e\x00:\x00 \x00x\x00\n", 1, "UTF-16"},
		{"a NUL byte", "---\nname: x\ndescription: ok\nwhen_to_use: a\x00b\n---\n", 4, "control character U+0000"},
		{"an escape", "---\nname: x\ndescription: ok\n\ntriggers: \"red \x1b[31m\"\n---\n", 5, "control character U+001B"},
		{"not UTF-8 after a byte order mark", "\xef\xbb\xbf---\nname: x\ndescription: \xff\n---\n", 3, "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := skills.Parse("x/SKILL.md", "", []byte(tt.data))
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "x/SKILL.md:"), "error %q does not start with the file", err)
			if tt.line > 0 {
				assert.Regexp(t, fmt.Sprintf(`^x/SKILL\.md: ?%d: `, tt.line), err.Error())
			}
			assert.Contains(t, err.Error(), tt.reason)
		})
	}
}

// TestParseYAMLErrorFormat protects the FILE:LINE form of YAML errors, the
// one editors and every other skillroute error use.
func TestParseYAMLErrorFormat(t *testing.T) {
	_, err := skills.Parse("x/SKILL.md", "", []byte("---\nname: x\nkeywords: 5\n---\n"))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "x/SKILL.md:3: "), "got %q", err)
}

// TestParseYAMLSyntaxErrorLine protects the line a YAML syntax error
// points at.
func TestParseYAMLSyntaxErrorLine(t *testing.T) {
	for line, data := range map[int]string{
		5: "---\nname: x\ndescription: ok\nkeywords:\n  core: [a\n---\n",
		3: "---\nname: x\ndescription: [unclosed\n---\n",
	} {
		_, err := skills.Parse("x/SKILL.md", "", []byte(data))
		require.Error(t, err)
		assert.Regexp(t, fmt.Sprintf(`^x/SKILL\.md: ?%d: `, line), err.Error())
	}
}

// writeSkill writes DIR/NAME/SKILL.md.
func writeSkill(t *testing.T, dir, folder, data string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, folder), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, folder, "SKILL.md"), []byte(data), 0o644))
}

// TestLoadDir protects loading a Claude Code skills folder.
func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "zeta", "---\nname: zeta-expert\ndescription: Last.\nkeywords:\n  core: [zeta]\n---\nBody.\n")
	writeSkill(t, dir, "alpha", "# Alpha\n\nFirst skill, no frontmatter.\n")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "empty-folder"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a skill"), 0o644))

	for _, load := range []func(string) (*skills.Catalog, error){skills.LoadDir, skills.Load} {
		cat, err := load(dir)
		require.NoError(t, err)
		// Named by folder, as Claude Code invokes them; the header's
		// other name is the title.
		assert.Equal(t, []string{"alpha", "zeta"}, cat.Names())
		sk, ok := cat.Lookup("zeta")
		require.True(t, ok)
		assert.Equal(t, "zeta-expert", sk.Title)
		assert.Equal(t, filepath.Join(dir, "zeta", "SKILL.md"), sk.Source)
		assert.Equal(t, []skills.Keyword{{Text: "zeta", Tier: skills.Core, Weight: 1}}, sk.Keywords)
		sk, ok = cat.Lookup("alpha")
		require.True(t, ok)
		assert.Equal(t, "First skill, no frontmatter.", sk.Description)
		assert.Empty(t, sk.Title, "no header name: the folder's is the only one")
		_, ok = cat.Lookup("beta")
		assert.False(t, ok)
	}
}

// An entry of a skills folder that is not a folder is not a skill, and
// a catalog given by path loads the skills beside it, as discovery does:
// a README, a link to a file (a skills repository's LICENSE linked in),
// a link to nothing.
func TestLoadDirSkipsNonSkillEntries(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, dir string)
	}{
		{"a file", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a skill"), 0o644))
		}},
		{"a link to a file", func(t *testing.T, dir string) {
			target := filepath.Join(t.TempDir(), "LICENSE")
			require.NoError(t, os.WriteFile(target, []byte("MIT"), 0o644))
			require.NoError(t, os.Symlink(target, filepath.Join(dir, "LICENSE")))
		}},
		{"a link to a skill file", func(t *testing.T, dir string) {
			require.NoError(t, os.Symlink(filepath.Join(dir, "good", "SKILL.md"), filepath.Join(dir, "SKILL.md")))
		}},
		{"a link to nothing", func(t *testing.T, dir string) {
			require.NoError(t, os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "dangling")))
		}},
		{"a folder without SKILL.md", func(t *testing.T, dir string) {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "notes"), 0o755))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			project := t.TempDir()
			dir := filepath.Join(project, ".claude", "skills")
			writeSkill(t, dir, "good", "---\ndescription: a fine skill\n---\n")
			tc.make(t, dir)
			cat, err := skills.LoadDir(dir)
			require.NoError(t, err)
			assert.Equal(t, []string{"good"}, cat.Names())
			cat, warnings, err := skills.Discover(skills.Places{ProjectDir: project}, false)
			require.NoError(t, err)
			assert.Empty(t, warnings)
			assert.Equal(t, []string{"good"}, cat.Names())
		})
	}
}

// TestLoadDirErrors protects users with a broken skills folder: the error
// names the file(s) at fault.
func TestLoadDirErrors(t *testing.T) {
	t.Run("one header name in two folders", func(t *testing.T) {
		// Two skills, invoked by their folders: no clash to refuse.
		dir := t.TempDir()
		writeSkill(t, dir, "one", "---\nname: same\ndescription: a\n---\n")
		writeSkill(t, dir, "two", "---\nname: same\ndescription: b\n---\n")
		cat, err := skills.LoadDir(dir)
		require.NoError(t, err)
		assert.Equal(t, []string{"one", "two"}, cat.Names())
		assert.Equal(t, "same", cat.Skills[1].Title)
	})
	t.Run("bad skill", func(t *testing.T) {
		dir := t.TempDir()
		writeSkill(t, dir, "good", "---\nname: good\n---\n")
		writeSkill(t, dir, "bad", "---\nname: bad\n")
		_, err := skills.LoadDir(dir)
		require.Error(t, err)
		assert.Contains(t, err.Error(), filepath.Join(dir, "bad", "SKILL.md")+":1:")
	})
	t.Run("missing folder", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "nope")
		_, err := skills.LoadDir(missing)
		require.Error(t, err)
		assert.Contains(t, err.Error(), missing)
		_, err = skills.Load(missing)
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
}

// TestNewCatalog protects catalogs built by adapters: skills come out in
// name order, and a name defined twice is refused naming both sources.
func TestNewCatalog(t *testing.T) {
	cat, err := skills.NewCatalog([]skills.Skill{{Name: "vue-expert", Source: "a.json#vue-expert"}, {Name: "ai-ml-expert", Source: "a.json#ai-ml-expert"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"ai-ml-expert", "vue-expert"}, cat.Names())
	_, ok := cat.Lookup("vue-expert")
	assert.True(t, ok)

	_, err = skills.NewCatalog([]skills.Skill{{Name: "a", Source: "one.json#a"}, {Name: "a", Source: "two.json#a"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "one.json#a")
	assert.Contains(t, err.Error(), "two.json#a")
	assert.Contains(t, err.Error(), `"a"`)
}

// TestLoadFile protects users who point Load at a file: it reads skills
// folders only, and says so.
func TestLoadFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "SKILL.md")
	require.NoError(t, os.WriteFile(file, []byte("---\nname: x\n---\n"), 0o644))
	_, err := skills.Load(file)
	require.Error(t, err)
	assert.Contains(t, err.Error(), file)
	assert.Contains(t, err.Error(), "not a skills folder")
}

// TestTier protects the tier names and weights written in SKILL.md.
func TestTier(t *testing.T) {
	tests := []struct {
		tier   skills.Tier
		name   string
		weight float64
	}{
		{skills.Core, "core", 1.0},
		{skills.Strong, "strong", 0.7},
		{skills.Extended, "extended", 0.4},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.name, tt.tier.String())
		assert.Equal(t, tt.weight, tt.tier.Weight())
	}
}

// catalogTable reads the name and enhances columns of the catalog table
// in the shared skills.md.
func catalogTable(t *testing.T) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "shared", "catalog", "skills.md"))
	if err != nil {
		t.Skipf("shared catalog table not available: %v", err)
	}
	out := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cols := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		name := strings.TrimSpace(cols[0])
		if name == "" || name == "name" || strings.HasPrefix(name, "---") || len(cols) < 3 {
			continue
		}
		var enh []string
		for _, e := range strings.Split(cols[2], ",") {
			if e = strings.TrimSpace(e); e != "" {
				enh = append(enh, e)
			}
		}
		out[name] = enh
	}
	return out
}

// TestBuiltin protects the built-in catalog the router ships with: the 50
// skills the eval sets are labelled with, each complete.
func TestBuiltin(t *testing.T) {
	cat, err := skills.Builtin()
	require.NoError(t, err)
	require.Len(t, cat.Skills, 50)
	assert.True(t, sort.StringsAreSorted(cat.Names()))

	for _, sk := range cat.Skills {
		t.Run(sk.Name, func(t *testing.T) {
			assert.Equal(t, "builtin:"+sk.Name, sk.Source, "folder name equals skill name")
			assert.NotEmpty(t, strings.TrimSpace(sk.Description))
			tiers := map[skills.Tier]int{}
			han, latin := false, false
			for _, k := range sk.Keywords {
				tiers[k.Tier]++
				assert.Equal(t, k.Tier.Weight(), k.Weight, k.Text)
				for _, r := range k.Text {
					han = han || unicode.Is(unicode.Han, r)
					latin = latin || (r < unicode.MaxASCII && unicode.IsLetter(r))
				}
			}
			for _, tier := range []skills.Tier{skills.Core, skills.Strong, skills.Extended} {
				assert.Positive(t, tiers[tier], "no %s keywords", tier)
			}
			assert.True(t, han, "no Chinese keyword")
			assert.True(t, latin, "no English keyword")
			lines := strings.Count(strings.TrimRight(sk.Body, "\n"), "\n") + 1
			assert.GreaterOrEqual(t, lines, 15, "body lines")
			assert.LessOrEqual(t, lines, 40, "body lines")
		})
	}

	table := catalogTable(t)
	var want []string
	for name := range table {
		want = append(want, name)
	}
	sort.Strings(want)
	assert.Len(t, want, 50)
	assert.Equal(t, want, cat.Names())
	for _, sk := range cat.Skills {
		assert.ElementsMatch(t, table[sk.Name], sk.Enhances, "enhances of %s", sk.Name)
	}
}

// TestBuiltinFiles protects `skillroute skills install`: the embedded
// files are the built-in catalog, one folder per skill.
func TestBuiltinFiles(t *testing.T) {
	files, err := skills.BuiltinFiles()
	require.NoError(t, err)
	cat, err := skills.Builtin()
	require.NoError(t, err)
	require.Len(t, files, len(cat.Skills))
	for _, want := range cat.Skills {
		data, ok := files[want.Name]
		require.True(t, ok, want.Name)
		got, err := skills.Parse("builtin:"+want.Name, want.Name, data)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
}

// The frontmatter closes on a line that is exactly "---": an empty header
// is fine, and "---not a close" inside it is just YAML text.
func TestFrontmatterDelimiter(t *testing.T) {
	sk, err := skills.Parse("a/SKILL.md", "a", []byte("---\n---\nbody text\n"))
	require.NoError(t, err)
	assert.Equal(t, "a", sk.Name)
	assert.Equal(t, "body text\n", sk.Body)

	sk, err = skills.Parse("b/SKILL.md", "b", []byte("---\ndescription: |\n  first\n  ---not a close\nname: bee\n---\nbody\n"))
	require.NoError(t, err)
	assert.Equal(t, "bee", sk.Name)
	assert.Contains(t, sk.Description, "---not a close")
	assert.Equal(t, "body\n", sk.Body)

	sk, err = skills.Parse("c/SKILL.md", "c", []byte("---\nname: cee\n---"))
	require.NoError(t, err)
	assert.Equal(t, "cee", sk.Name)
	assert.Empty(t, sk.Body)
}

// The frontmatter opens, as it closes, on a line of "---" that may end in
// spaces or tabs: a header opened by "--- " was read as body, the skill's
// name and keywords lost and its YAML taken for its description.
func TestFrontmatterOpensWithSpaces(t *testing.T) {
	for _, tc := range []struct {
		name, text  string
		front       bool
		title, desc string
		body        string
	}{
		{"a space", "--- \nname: pdf-tool\ndescription: Merge PDFs\n---\nbody\n", true, "pdf-tool", "Merge PDFs", "body\n"},
		{"a tab", "---\t\nname: pdf-tool\ndescription: Merge PDFs\n---\nbody\n", true, "pdf-tool", "Merge PDFs", "body\n"},
		{"spaces and CRLF", "---  \r\nname: pdf-tool\r\ndescription: Merge PDFs\r\n---\r\nbody\r\n", true, "pdf-tool", "Merge PDFs", "body\n"},
		{"a byte order mark", "\xef\xbb\xbf--- \nname: pdf-tool\ndescription: Merge PDFs\n---\nbody\n", true, "pdf-tool", "Merge PDFs", "body\n"},
		{"four dashes", "----\nname: pdf-tool\n---\nbody\n", false, "", "---- name: pdf-tool --- body", "----\nname: pdf-tool\n---\nbody\n"},
		{"text after the dashes", "--- name: pdf-tool\n---\nbody\n", false, "", "--- name: pdf-tool --- body", "--- name: pdf-tool\n---\nbody\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sk, err := skills.Parse("dir/SKILL.md", "dir", []byte(tc.text))
			require.NoError(t, err)
			if tc.front {
				assert.Equal(t, tc.title, sk.Name)
			} else {
				assert.Equal(t, "dir", sk.Name)
			}
			assert.Equal(t, tc.desc, sk.Description)
			assert.Equal(t, tc.body, sk.Body)
		})
	}
	_, err := skills.Parse("dir/SKILL.md", "dir", []byte("--- \nname: pdf-tool\n"))
	require.Error(t, err, "opened, never closed")
	assert.Contains(t, err.Error(), "dir/SKILL.md:1:")
}

// Keys of keywords other than the three tiers are ignored, whatever they
// hold, as they were before keywords checked the tiers' shape.
func TestKeywordsOtherKeysIgnored(t *testing.T) {
	for _, tc := range []struct {
		name, keywords string
	}{
		{"a note", "keywords:\n  note: see the body\n  core: [pdf]\n"},
		{"a map", "keywords:\n  weights: {pdf: 2}\n  core: [pdf]\n"},
		{"a list", "keywords:\n  primary: [merge]\n  core: [pdf]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sk, err := skills.Parse("x/SKILL.md", "x", []byte("---\nname: x\n"+tc.keywords+"---\n"))
			require.NoError(t, err)
			assert.Equal(t, []skills.Keyword{{Text: "pdf", Tier: skills.Core, Weight: 1}}, sk.Keywords)
		})
	}
}

// trimSpace's shortcut trims as strings.TrimSpace does: keywords are
// trimmed as ever, however they start and end.
func TestKeywordsTrimmed(t *testing.T) {
	for _, w := range []string{"redis", " redis ", "缓存", " 缓存\u3000", "\u3000缓存", "缓存\u00a0", "\u00a0redis", "a", "缓", "é", " é", "缓存x", "x缓存", "\t", "\u2003x\u2003", "\u3000"} {
		text := fmt.Sprintf("---\nname: s\nkeywords:\n  core: [%q]\n---\n", w)
		sk, err := skills.Parse("s/SKILL.md", "s", []byte(text))
		require.NoError(t, err)
		want := strings.TrimSpace(w)
		if want == "" {
			assert.Empty(t, sk.Keywords, "%q", w)
			continue
		}
		require.Len(t, sk.Keywords, 1, "%q", w)
		assert.Equal(t, want, sk.Keywords[0].Text, "%q", w)
	}
}

// Unversioned strips the version a name ends in, and only a version.
func TestUnversioned(t *testing.T) {
	for name, want := range map[string]string{
		"pandas-3-0-3":  "pandas",
		"jq-1-8-2":      "jq",
		"vega-lite-v6":  "vega-lite",
		"api-v2":        "api",
		"node-18":       "node",
		"python-pro":    "python-pro",
		"web-3d-expert": "web-3d-expert", // a number inside the name is part of it
		"v2":            "v2",
		"3-0-3":         "3-0-3", // all version: stays
		"pandas-":       "pandas-",
		"":              "",
	} {
		assert.Equal(t, want, skills.Unversioned(name), name)
	}
}
