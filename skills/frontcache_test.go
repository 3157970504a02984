package skills_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/skills"
)

// TestFrontCacheSameSkills protects recompiles, which read every skill
// through the cache: a catalog loaded with it is the one loaded without,
// field for field (an empty list stays empty, an absent one absent), once
// the bodies it left unread are read; a file unchanged since the last
// load is not read at all, a changed one is, and only changed headers are
// parsed again (a body edit parses none); a broken header is reported
// every time; a cache of another binary, or damaged, reads and parses
// everything again, and so does a full check (ReadAll).
func TestFrontCacheSameSkills(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(text), 0o644))
	}
	write("alpha", "---\nname: alpha\ndescription: Profile slow pages.\nwhen_to_use: when a page is slow\ntriggers: lighthouse, 首屏\nsituations: the shop takes ages to open on a phone\nkeywords:\n  core: [首屏, lighthouse]\n  strong: [latency]\n  extended: [web]\nenhances: []\nrequires: [beta]\nmaturity: stable\n---\n# Alpha\n\nMeasure first.\n")
	write("beta", "---\ndescription: \"\"\nconflicts: [alpha]\n---\nFirst paragraph is the description.\n\nMore.\n")
	write("gamma", "---\r\nname: gamma\r\ndescription: CRLF file\r\n---\r\nbody\r\n")
	write("plain", "No frontmatter.\n")
	write("twin", "---\nname: twin\ndescription: Profile slow pages.\n---\nA short one.\n")

	cache := filepath.Join(t.TempDir(), "front.bin")
	var read, unread int // files read by the last load; skills it left unread
	loadAll := func(ident string, all bool) (*skills.Catalog, int, error) {
		fc := skills.LoadFrontCache(cache, ident)
		fc.ReadAll = all
		cat, err := skills.LoadCached(dir, fc)
		if err == nil {
			require.NoError(t, fc.Save(cache))
			unread = 0
			for i := range cat.Skills {
				s := &cat.Skills[i]
				if s.Unread() {
					unread++
					sum := s.ContentSum()
					require.NoError(t, s.ReadBody())
					assert.Equal(t, sum, s.ContentSum(), "%s: the sum kept is the sum of the file as it is", s.Name)
				}
			}
		}
		read = fc.Read()
		return cat, fc.Parsed(), err
	}
	load := func(ident string) (*skills.Catalog, int, error) { return loadAll(ident, false) }
	plain := func() *skills.Catalog {
		cat, err := skills.Load(dir)
		require.NoError(t, err)
		return cat
	}

	cat, parsed, err := load("bin-1")
	require.NoError(t, err)
	assert.Equal(t, plain(), cat, "a cold cache loads the plain catalog")
	assert.Equal(t, 4, parsed, "every header parsed once (the file without one has none)")
	assert.Equal(t, 5, read)

	cat, parsed, err = load("bin-1")
	require.NoError(t, err)
	assert.Equal(t, plain(), cat, "headers from the cache make the same skills")
	assert.Zero(t, parsed)
	assert.Zero(t, read, "no file changed: none is read")
	assert.Equal(t, 5, unread)
	alpha, _ := cat.Lookup("alpha")
	assert.NotNil(t, alpha.Enhances, "enhances: [] stays an empty list")
	assert.Empty(t, alpha.Enhances)
	assert.Nil(t, alpha.Conflicts, "an absent list stays absent")

	write("alpha", "---\nname: alpha\ndescription: Profile slow pages.\nwhen_to_use: when a page is slow\ntriggers: lighthouse, 首屏\nsituations: the shop takes ages to open on a phone\nkeywords:\n  core: [首屏, lighthouse]\n  strong: [latency]\n  extended: [web]\nenhances: []\nrequires: [beta]\nmaturity: stable\n---\n# Alpha\n\nMeasure first, then fix.\n")
	cat, parsed, err = load("bin-1")
	require.NoError(t, err)
	assert.Zero(t, parsed, "a body edit parses no header")
	assert.Equal(t, 1, read, "the edited file alone is read")
	assert.Equal(t, plain(), cat)

	write("beta", "---\ndescription: Now described.\nconflicts: [alpha, gamma]\n---\nBody.\n")
	cat, parsed, err = load("bin-1")
	require.NoError(t, err)
	assert.Equal(t, 1, parsed, "one header edited, one parsed")
	assert.Equal(t, 1, read)
	assert.Equal(t, plain(), cat)

	cat, parsed, err = loadAll("bin-1", true)
	require.NoError(t, err)
	assert.Equal(t, 5, read, "a full check reads every file")
	assert.Zero(t, unread)
	assert.Zero(t, parsed, "and takes unchanged headers from the cache")
	assert.Equal(t, plain(), cat)

	write("broken", "---\nname: broken\nkeywords: {core: [unclosed\n---\n")
	_, _, err = load("bin-1")
	require.Error(t, err)
	_, plainErr := skills.Load(dir)
	assert.Equal(t, plainErr.Error(), err.Error(), "a broken header is reported as without the cache")
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "broken")))

	_, parsed, err = load("bin-2")
	require.NoError(t, err)
	assert.Equal(t, 4, parsed, "another binary parses every header again")
	assert.Equal(t, 5, read, "and reads every file")

	data, err := os.ReadFile(cache)
	require.NoError(t, err)
	data[len(data)/2] ^= 0xff
	require.NoError(t, os.WriteFile(cache, data, 0o600))
	cat, parsed, err = load("bin-2")
	require.NoError(t, err)
	assert.Equal(t, 4, parsed, "a damaged cache is no cache")
	assert.Equal(t, 5, read)
	assert.Equal(t, plain(), cat)
}

// TestContentSum protects everything kept under a skill's sum (the cut
// cache's words and records, the index's source hash): it changes with
// any field of the skill but its name, with text moved from one field to
// the next, and not otherwise.
func TestContentSum(t *testing.T) {
	base := func() skills.Skill {
		return skills.Skill{Name: "alpha", Description: "Profile slow pages.", WhenToUse: "when slow", Triggers: "lighthouse",
			Keywords: []skills.Keyword{{Text: "首屏", Tier: skills.Core, Weight: 1}, {Text: "web", Tier: skills.Extended, Weight: 0.4}},
			Enhances: []string{"beta"}, Requires: []string{}, Maturity: "stable", Body: "# Alpha\n\nMeasure first.\n", Source: "/s/alpha/SKILL.md"}
	}
	b := base()
	sum := b.ContentSum()
	same := base()
	assert.Equal(t, sum, same.ContentSum(), "the same skill, the same sum")
	same.Name = "plugin:alpha"
	assert.Equal(t, sum, same.ContentSum(), "the name is not content: the folder or plugin gives it")

	for _, tc := range []struct {
		what   string
		change func(s *skills.Skill)
	}{
		{"description", func(s *skills.Skill) { s.Description += " " }},
		{"when_to_use", func(s *skills.Skill) { s.WhenToUse = "when very slow" }},
		{"triggers", func(s *skills.Skill) { s.Triggers = "" }},
		{"situations", func(s *skills.Skill) { s.Situations = "on a phone" }},
		{"text moved between fields", func(s *skills.Skill) { s.Description, s.WhenToUse = "Profile slow pages.when", " slow" }},
		{"keyword text", func(s *skills.Skill) { s.Keywords[1].Text = "webs" }},
		{"keyword tier", func(s *skills.Skill) { s.Keywords[1].Tier = skills.Strong }},
		{"keyword weight", func(s *skills.Skill) { s.Keywords[1].Weight = 0.5 }},
		{"keyword removed", func(s *skills.Skill) { s.Keywords = s.Keywords[:1] }},
		{"enhances", func(s *skills.Skill) { s.Enhances = nil }},
		{"requires: absent, not empty", func(s *skills.Skill) { s.Requires = nil }},
		{"conflicts", func(s *skills.Skill) { s.Conflicts = []string{"gamma"} }},
		{"maturity", func(s *skills.Skill) { s.Maturity = "beta" }},
		{"body", func(s *skills.Skill) { s.Body += "Then fix.\n" }},
		{"source", func(s *skills.Skill) { s.Source = "/t/alpha/SKILL.md" }},
	} {
		s := base()
		tc.change(&s)
		assert.NotEqual(t, sum, s.ContentSum(), tc.what)
	}
}

// TestFrontCacheDelta protects recompiles of large catalogs, which must
// not rewrite the whole cache for one edited skill: a load that changed
// little leaves the cache file as it was and writes what changed to its
// delta, which the next load reads over it (the same skills, no file read
// again, no header parsed again); one that changed much rewrites the file
// and drops the delta.
func TestFrontCacheDelta(t *testing.T) {
	dir := t.TempDir()
	write := func(i int, extra string) {
		name := fmt.Sprintf("s%03d", i)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		text := fmt.Sprintf("---\nname: %s\ndescription: Skill %d.%s\nkeywords:\n  core: [k%d]\n---\nBody %d.%s\n", name, i, extra, i, i, extra)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(text), 0o644))
	}
	const n = 100
	for i := range n {
		write(i, "")
	}
	cache := filepath.Join(t.TempDir(), "front.bin")
	load := func() (cat *skills.Catalog, read, parsed int) {
		fc := skills.LoadFrontCache(cache, "bin")
		cat, err := skills.LoadCached(dir, fc)
		require.NoError(t, err)
		require.NoError(t, fc.Save(cache))
		for i := range cat.Skills {
			require.NoError(t, cat.Skills[i].ReadBody())
		}
		return cat, fc.Read(), fc.Parsed()
	}
	plain := func() *skills.Catalog {
		cat, err := skills.Load(dir)
		require.NoError(t, err)
		return cat
	}
	load()
	whole, err := os.ReadFile(cache)
	require.NoError(t, err)
	assert.NoFileExists(t, cache+".delta")

	write(3, " Body edited.")
	cat, read, _ := load()
	assert.Equal(t, 1, read)
	assert.Equal(t, plain(), cat)
	write(7, "\nwhen_to_use: edited header")
	cat, read, parsed := load()
	assert.Equal(t, 1, read)
	assert.Equal(t, 1, parsed)
	assert.Equal(t, plain(), cat)
	now, err := os.ReadFile(cache)
	require.NoError(t, err)
	assert.Equal(t, whole, now, "the cache file is left as it was")
	assert.FileExists(t, cache+".delta")

	cat, read, parsed = load()
	assert.Zero(t, read, "the edited files are known from the delta")
	assert.Zero(t, parsed)
	assert.Equal(t, plain(), cat)

	for i := range 70 { // past the floor (64) and an eighth of the files
		write(i, " Rewritten.")
	}
	cat, read, _ = load()
	assert.Equal(t, 70, read)
	assert.Equal(t, plain(), cat)
	now, err = os.ReadFile(cache)
	require.NoError(t, err)
	assert.NotEqual(t, whole, now, "the file is written afresh")
	assert.NoFileExists(t, cache+".delta")
	cat, read, _ = load()
	assert.Zero(t, read)
	assert.Equal(t, plain(), cat)
}

// TestFrontCacheNotesReads protects the loader's paused collector: a
// load tells its caller once, and only once, when it has read as many
// files as the caller asked to hear of (each file read is parsed, and
// makes garbage), and a cache knows whether it was loaded from a file.
func TestFrontCacheNotesReads(t *testing.T) {
	dir := t.TempDir()
	write := func(i int, extra string) {
		name := fmt.Sprintf("s%02d", i)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		text := fmt.Sprintf("---\nname: %s\ndescription: Skill %d.%s\n---\nBody.\n", name, i, extra)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(text), 0o644))
	}
	const n = 10
	for i := range n {
		write(i, "")
	}
	cache := filepath.Join(t.TempDir(), "front.bin")
	fc := skills.LoadFrontCache(cache, "bin")
	assert.False(t, fc.Loaded(), "no file: nothing known")
	_, err := skills.LoadCached(dir, fc)
	require.NoError(t, err)
	require.NoError(t, fc.Save(cache))

	for _, tc := range []struct {
		name           string
		edited, noted  int
		readAll        bool
		wantRead, told int
	}{
		{"no file changed", 0, 1, false, 0, 0},
		{"fewer read than noted", 2, 3, false, 2, 0},
		{"as many as noted", 3, 3, false, 3, 1},
		{"more than noted: told once", 6, 3, false, 6, 1},
		{"a full check reads all", 0, 4, true, n, 1},
		{"nothing noted", 2, 0, false, 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.edited {
				write(i, " Edited "+tc.name[:4]+".")
			}
			fc := skills.LoadFrontCache(cache, "bin")
			assert.True(t, fc.Loaded())
			told := 0
			fc.ReadAll, fc.ReadsNoted, fc.OnReads = tc.readAll, int64(tc.noted), func() { told++ }
			_, err := skills.LoadCached(dir, fc)
			require.NoError(t, err)
			require.NoError(t, fc.Save(cache))
			assert.Equal(t, tc.wantRead, fc.Read())
			assert.Equal(t, tc.told, told)
		})
	}
}

// TestFrontCacheKeywordsUnread protects recompiles, which compile a
// skill made from its cached header without its keyword list: what the
// compile asks of its keywords (their texts, whether there is one) is
// what the parsed file's list gives, and the list, once made, is that
// list.
func TestFrontCacheKeywordsUnread(t *testing.T) {
	for _, tc := range []struct {
		name, header string
		texts        []string
	}{
		{"tiers", "keywords:\n  core: [首屏, lighthouse]\n  strong: [latency]\n  extended: [web, lighthouse]\n", []string{"首屏", "lighthouse", "latency", "web", "lighthouse"}},
		{"trimmed, blank left out", "keywords:\n  core: [\" padded \", \"  \"]\n  extended: [\"\\t首屏 \"]\n", []string{"padded", "首屏"}},
		{"blank only", "keywords:\n  core: [\" \", \"\"]\n", nil},
		{"empty tiers", "keywords:\n  core: []\n", nil},
		{"none", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "alpha"), 0o755))
			text := "---\nname: alpha\ndescription: Profile pages.\n" + tc.header + "enhances: [beta]\n---\nBody.\n"
			require.NoError(t, os.WriteFile(filepath.Join(dir, "alpha", "SKILL.md"), []byte(text), 0o644))
			parsed, err := skills.Load(dir)
			require.NoError(t, err)
			cache := filepath.Join(t.TempDir(), "front.bin")
			fc := skills.LoadFrontCache(cache, "bin")
			_, err = skills.LoadCached(dir, fc)
			require.NoError(t, err)
			require.NoError(t, fc.Save(cache))

			cat, err := skills.LoadCached(dir, skills.LoadFrontCache(cache, "bin"))
			require.NoError(t, err)
			s, want := &cat.Skills[0], &parsed.Skills[0]
			require.True(t, s.Unread())
			assert.Nil(t, s.Keywords, "the list is not made")
			assert.Equal(t, tc.texts, slices.Collect(s.KeywordTexts()))
			assert.Equal(t, len(want.Keywords) > 0, s.HasKeywords())
			assert.Equal(t, []string{"beta"}, s.Enhances, "the lists after the keywords are read")
			var texts []string
			for _, k := range want.Keywords {
				texts = append(texts, k.Text)
			}
			assert.Equal(t, texts, slices.Collect(s.KeywordTexts()), "as the parsed list")

			s.ReadKeywords()
			assert.Equal(t, want.Keywords, s.Keywords)
			assert.Equal(t, tc.texts, slices.Collect(s.KeywordTexts()), "the same from the list")
			s.ReadKeywords()
			assert.Equal(t, want.Keywords, s.Keywords, "made once")
			require.NoError(t, s.ReadBody())
			assert.Equal(t, *want, *s)
		})
	}
}
