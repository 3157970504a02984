package disambig

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every guarded form of the built-in rules is read back from the cache as
// it was split (splitForm): its parts, their alternatives and literal
// groups, nil and empty lists apart, though they are now carved out of a
// few shared allocations (formArenas); so is every rule's penalty list.
func TestCachedFormPartsAsSplit(t *testing.T) {
	set, path := savedBuiltinRules(t)
	cached, _, err := LoadCached(path)
	require.NoError(t, err)
	require.Len(t, cached.Rules, len(set.Rules))

	guarded, alts := 0, 0
	for i := range cached.Rules {
		r := &cached.Rules[i]
		assert.Equal(t, set.Rules[i].Penalty, r.Penalty, r.ID)
		branches := r.AllBranches()
		require.Len(t, branches, len(set.Rules[i].Branches), r.ID)
		for j, b := range branches {
			kind, form := formOf(set.Rules[i].Branches[j])
			if kind != formGuarded {
				continue
			}
			guarded++
			require.NotNil(t, b.re, r.ID)
			want := splitForm(form)
			assert.Equal(t, want, b.re.parts, "rule %s branch %d", r.ID, j)
			for _, p := range b.re.parts {
				alts += len(p.alts)
			}
		}
	}
	assert.Greater(t, guarded, 100, "the built-in rules have guarded forms")
	assert.Greater(t, alts, 100, "and alternatives with literal groups")
}

// savedBuiltinRules parses the shipped rules and saves them as a cache
// file, whose path it returns with the parsed set.
func savedBuiltinRules(t *testing.T) (*Set, string) {
	t.Helper()
	data, err := os.ReadFile("../rules/disambiguation.yaml")
	require.NoError(t, err)
	set, problems, err := Parse("rules.yaml", data, func(string) bool { return true })
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "rules.bin")
	require.NoError(t, set.Save(path, problems))
	return set, path
}
