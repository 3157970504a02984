package disambig_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/internal/damage"
	"github.com/skillroute/skillroute/store"
	"github.com/skillroute/skillroute/tokenize"
)

// smallRules is the cache file of a few rules of every shape: plain
// literals, alternatives, a penalty, an exclusive pair, a keyword guard.
func smallRules(tb testing.TB) []byte {
	tb.Helper()
	set, problems, err := disambig.Parse("rules.yaml", []byte(`rules:
  - id: pentest
    trigger: '渗透测试|penetration test|pentest'
    boost: security-expert
    penalty: [tester-expert]
    weight: 0.3
  - id: slow-sql
    trigger: '慢查询|slow (query|sql)'
    boost: performance-expert
    weight: 0.2
  - id: k8s
    trigger: 'kubectl|k8s'
    boost: kubernetes-specialist
    weight: 0.2
    mutual_exclusion: {with: pentest}
`), known)
	require.NoError(tb, err)
	path := filepath.Join(tb.TempDir(), "rules.bin")
	require.NoError(tb, set.Save(path, problems))
	raw, err := os.ReadFile(path)
	require.NoError(tb, err)
	return raw
}

// Every one of 2,000 random single-byte corruptions of a rules cache is an
// error naming the file, never a rule set that routes on damaged data; so
// is every truncation.
func TestLoadCachedDetectsDamage(t *testing.T) {
	raw := smallRules(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 6))
	require.NoError(t, damage.Files(dir, raw, rng, 2000, 16, func(name, path string) {
		set, _, err := disambig.LoadCached(path)
		if assert.Error(t, err, name) {
			assert.Nil(t, set)
			assert.Contains(t, err.Error(), path)
		}
	}))
}

// FuzzLoadCached feeds LoadCached arbitrary files, and the cache decoder
// arbitrary bodies (what a file past its frame and checksum holds).
// Neither may panic, and a set that loads must fire.
func FuzzLoadCached(f *testing.F) {
	raw := smallRules(f)
	f.Add(raw, false)
	f.Add(raw[store.HeaderSize:], true)
	f.Add(raw[:len(raw)/2], false)
	f.Add(raw[store.HeaderSize:len(raw)/2], true)
	dir, err := os.MkdirTemp("", "fuzz-rules")
	require.NoError(f, err)
	f.Cleanup(func() { os.RemoveAll(dir) })
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, data []byte, body bool) {
		var set *disambig.Set
		var err error
		if body {
			set, _, err = disambig.DecodeCache("fuzz", data)
		} else {
			path := filepath.Join(dir, fmt.Sprintf("rules-%d.bin", n.Add(1)))
			require.NoError(t, os.WriteFile(path, data, 0o600))
			defer os.Remove(path)
			set, _, err = disambig.LoadCached(path)
		}
		if err != nil {
			return
		}
		for _, p := range []string{"下周上线前要做一次渗透测试", "slow query on orders", "kubectl apply", ""} {
			set.Fired(tokenize.NewText(p))
		}
	})
}
