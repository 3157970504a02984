package index_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/internal/damage"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
	"github.com/skillroute/skillroute/tokenize"
)

// smallIndex is a saved index of a few skills, with synonyms and a
// glossary, and its file's bytes.
func smallIndex(tb testing.TB) (*index.Index, []byte) {
	tb.Helper()
	syn, err := tokenize.ParseSynonyms("s.yaml", []byte("groups:\n  - id: cache\n    words: [redis, 缓存]\n"))
	require.NoError(tb, err)
	gloss, err := tokenize.ParseGlossary("g.yaml", []byte("entries:\n  调优: [tuning]\n  数据库: [sql]\n"))
	require.NoError(tb, err)
	cat := catalog(
		skills.Skill{Name: "cache-expert", Description: "Redis 缓存 tuning", Body: "Use redis well.", Keywords: concat(kw(skills.Core, "redis", "缓存击穿"), kw(skills.Extended, "cache"))},
		skills.Skill{Name: "db-expert", Description: "Slow SQL", Keywords: kw(skills.Core, "slow query", "慢查询")},
	)
	ix := index.Compile(cat, syn, index.Options{Glossary: gloss})
	require.Equal(tb, 4, ix.Glossary.Len(), "both glossary entries reach the index, both ways")
	path := filepath.Join(tb.TempDir(), "index.bin")
	require.NoError(tb, ix.Save(path))
	raw, err := os.ReadFile(path)
	require.NoError(tb, err)
	return ix, raw
}

// Every one of 2,000 random single-byte corruptions of an index file is
// an error naming the file, never a panic and never an index that routes
// on damaged data; so is every truncation.
func TestLoadDetectsDamage(t *testing.T) {
	_, raw := smallIndex(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	require.NoError(t, damage.Files(dir, raw, rng, 2000, 16, func(name, path string) {
		ix, err := index.Load(path)
		if assert.Error(t, err, name) {
			assert.Nil(t, ix)
			assert.Contains(t, err.Error(), path)
		}
	}))
}

// FuzzLoad feeds Load arbitrary files, and the index decoder arbitrary
// bodies (what a file past its frame and checksum holds). Neither may
// panic, and an index that loads must route, pruned or not, and give
// its skills.
func FuzzLoad(f *testing.F) {
	_, raw := smallIndex(f)
	f.Add(raw, false)
	f.Add(raw[store.HeaderSize:], true)
	f.Add(raw[:len(raw)/2], false)
	f.Add(raw[store.HeaderSize:store.HeaderSize+25], true) // cut inside the header arrays
	f.Add([]byte("skillroute-index\n"), true)
	dir, err := os.MkdirTemp("", "fuzz-index")
	require.NoError(f, err)
	f.Cleanup(func() { os.RemoveAll(dir) })
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, data []byte, body bool) {
		var ix *index.Index
		var err error
		if body {
			ix, err = index.Decode("fuzz", data)
		} else {
			// A new name each time, so that no sidecar vouches for the file.
			path := filepath.Join(dir, fmt.Sprintf("index-%d.bin", n.Add(1)))
			require.NoError(t, os.WriteFile(path, data, 0o600))
			defer os.Remove(path)
			ix, err = index.Load(path)
		}
		if err != nil {
			return
		}
		for _, q := range []string{"redis 缓存击穿", "slow query 慢查询", "cache", "数据库调优"} {
			tq := ix.Tokenizer().Tokenize(q)
			bm25.Score(ix, tq)
			bm25.TopK(ix, tq, nil, 1, []int{0})
		}
		for i := range min(ix.Skills.Len(), 100) {
			ix.Skills.Info(i)
		}
	})
}

// TestReadStamp protects the currency check that loads no index: the
// stamp read off a file's head is the one Save wrote; a file of another
// format or kind, or missing, has none.
func TestReadStamp(t *testing.T) {
	ix, _ := smallIndex(t)
	ix.Stamp = strings.Repeat("5a", 32)
	path := filepath.Join(t.TempDir(), "index.bin")
	require.NoError(t, ix.SaveCache(path))
	stamp, err := index.ReadStamp(path)
	require.NoError(t, err)
	assert.Equal(t, ix.Stamp, stamp)

	other := filepath.Join(t.TempDir(), "other.bin")
	require.NoError(t, store.WriteCache(other, "index", index.FormatVersion+1, []byte("skillroute-index\n")))
	_, err = index.ReadStamp(other)
	assert.ErrorIs(t, err, index.ErrStale)
	require.NoError(t, store.WriteCache(other, "rules", index.FormatVersion, []byte("x")))
	_, err = index.ReadStamp(other)
	assert.Error(t, err)
	_, err = index.ReadStamp(filepath.Join(t.TempDir(), "missing.bin"))
	assert.Error(t, err)
}
