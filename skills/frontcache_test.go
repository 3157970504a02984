package skills_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/skills"
)

// TestFrontCacheSameSkills protects recompiles, which read every header
// through the cache: a catalog loaded with it is the one loaded without,
// field for field (an empty list stays empty, an absent one absent); only
// changed headers are parsed again, a body edit parses none; a broken
// header is reported every time; a cache of another binary, or damaged,
// parses everything again.
func TestFrontCacheSameSkills(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(text), 0o644))
	}
	write("alpha", "---\nname: alpha\ndescription: Profile slow pages.\nwhen_to_use: when a page is slow\ntriggers: lighthouse, 首屏\nkeywords:\n  core: [首屏, lighthouse]\n  strong: [latency]\n  extended: [web]\nenhances: []\nrequires: [beta]\nmaturity: stable\n---\n# Alpha\n\nMeasure first.\n")
	write("beta", "---\ndescription: \"\"\nconflicts: [alpha]\n---\nFirst paragraph is the description.\n\nMore.\n")
	write("gamma", "---\r\nname: gamma\r\ndescription: CRLF file\r\n---\r\nbody\r\n")
	write("plain", "No frontmatter.\n")
	write("twin", "---\nname: twin\ndescription: Profile slow pages.\n---\nA short one.\n")

	cache := filepath.Join(t.TempDir(), "front.bin")
	load := func(ident string) (*skills.Catalog, int, error) {
		fc := skills.LoadFrontCache(cache, ident)
		cat, err := skills.LoadCached(dir, fc)
		if err == nil {
			require.NoError(t, fc.Save(cache))
		}
		return cat, fc.Parsed(), err
	}
	plain := func() *skills.Catalog {
		cat, err := skills.Load(dir)
		require.NoError(t, err)
		return cat
	}

	cat, parsed, err := load("bin-1")
	require.NoError(t, err)
	assert.Equal(t, plain(), cat, "a cold cache loads the plain catalog")
	assert.Equal(t, 4, parsed, "every header parsed once (the file without one has none)")

	cat, parsed, err = load("bin-1")
	require.NoError(t, err)
	assert.Equal(t, plain(), cat, "headers from the cache make the same skills")
	assert.Zero(t, parsed)
	alpha, _ := cat.Lookup("alpha")
	assert.NotNil(t, alpha.Enhances, "enhances: [] stays an empty list")
	assert.Empty(t, alpha.Enhances)
	assert.Nil(t, alpha.Conflicts, "an absent list stays absent")

	write("alpha", "---\nname: alpha\ndescription: Profile slow pages.\nwhen_to_use: when a page is slow\ntriggers: lighthouse, 首屏\nkeywords:\n  core: [首屏, lighthouse]\n  strong: [latency]\n  extended: [web]\nenhances: []\nrequires: [beta]\nmaturity: stable\n---\n# Alpha\n\nMeasure first, then fix.\n")
	cat, parsed, err = load("bin-1")
	require.NoError(t, err)
	assert.Zero(t, parsed, "a body edit parses no header")
	assert.Equal(t, plain(), cat)

	write("beta", "---\ndescription: Now described.\nconflicts: [alpha, gamma]\n---\nBody.\n")
	cat, parsed, err = load("bin-1")
	require.NoError(t, err)
	assert.Equal(t, 1, parsed, "one header edited, one parsed")
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

	data, err := os.ReadFile(cache)
	require.NoError(t, err)
	data[len(data)/2] ^= 0xff
	require.NoError(t, os.WriteFile(cache, data, 0o600))
	cat, parsed, err = load("bin-2")
	require.NoError(t, err)
	assert.Equal(t, 4, parsed, "a damaged cache is no cache")
	assert.Equal(t, plain(), cat)
}
