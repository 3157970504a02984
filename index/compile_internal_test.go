package index

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// saved returns the index as Save writes it.
func saved(t *testing.T, ix *Index) []byte {
	path := filepath.Join(t.TempDir(), "index.bin")
	require.NoError(t, ix.Save(path))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// TestCompileParallel protects the cache and its readers: compiling on
// several workers writes the same bytes as compiling on one, for written
// and derived keywords, and the size hint covers the file.
func TestCompileParallel(t *testing.T) {
	syn, err := tokenize.ParseSynonyms(rules.SynonymsName, rules.Synonyms)
	require.NoError(t, err)
	builtin, err := skills.Builtin()
	require.NoError(t, err)
	set, err := synth.Generate(synth.Options{Skills: 700, Seed: 9, Queries: 1})
	require.NoError(t, err)
	generated := &skills.Catalog{}
	for _, f := range set.Files {
		sk, err := skills.Parse(f.Name+"/SKILL.md", f.Name, f.Data)
		require.NoError(t, err)
		generated.Skills = append(generated.Skills, sk)
	}
	catalogs := map[string]*skills.Catalog{"builtin": builtin, "generated": generated}
	if bw, err := skills.Load("../../shared/bookworm/skills-index.json"); err == nil {
		catalogs["bookworm"] = bw
	}
	for name, cat := range catalogs {
		for _, derive := range []bool{false, true} {
			opt := Options{DeriveKeywords: derive}
			serial := compile(cat, syn, opt, 1)
			want := saved(t, serial)
			for _, workers := range []int{2, 5} {
				assert.Equal(t, want, saved(t, compile(cat, syn, opt, workers)), "%s, derive %v, %d workers", name, derive, workers)
			}
			hint := serial.sizeHint()
			assert.GreaterOrEqual(t, hint, len(want), "%s: the size hint covers the file", name)
			assert.Less(t, hint, len(want)+len(want)/8+8192, "%s: the size hint is close", name)
		}
	}
}

// TestCompileRestoresGC protects programs that compile in passing (the
// hook, eval): the collector's setting is theirs again afterwards, and a
// lower one or none is kept throughout.
func TestCompileRestoresGC(t *testing.T) {
	cat, err := skills.Builtin()
	require.NoError(t, err)
	defer debug.SetGCPercent(debug.SetGCPercent(123))
	Compile(cat, nil, Options{})
	assert.Equal(t, 123, debug.SetGCPercent(20))
	restore := tightenGC()
	assert.Equal(t, 20, debug.SetGCPercent(20), "a lower setting is kept")
	restore()
	assert.Equal(t, 20, debug.SetGCPercent(123))
}
