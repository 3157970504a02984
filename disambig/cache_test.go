package disambig_test

import (
	"github.com/skillroute/skillroute/tokenize"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillroute/skillroute/disambig"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A rule set loaded from the cache fires exactly as the parsed one, so the
// hook's fast path never routes differently from `skillroute route`.
func TestCacheRoundTrip(t *testing.T) {
	parsed, path := builtinCache(t)
	cached, _, err := disambig.LoadCached(path)
	require.NoError(t, err)
	require.Len(t, cached.Rules, len(parsed.Rules))

	var prompts []string
	for _, r := range parsed.Rules {
		prompts = append(prompts, r.Examples...)
	}
	prompts = append(prompts, "你好", "thanks", "react 页面加载慢", "")
	fired := 0
	for _, p := range prompts {
		a, b := ids(parsed.Fired(tokenize.NewText(p))), ids(cached.Fired(tokenize.NewText(p)))
		assert.Equal(t, a, b, "prompt %q", p)
		fired += len(a)
	}
	assert.Greater(t, fired, len(parsed.Rules), "the examples fire their rules")

	// A damaged cache is an error, never a panic or a half set.
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, raw[:len(raw)/2], 0o644))
	_, _, err = disambig.LoadCached(path)
	assert.Error(t, err)
}

// builtinCache parses the shipped rules and writes their cache file.
func builtinCache(tb testing.TB) (*disambig.Set, string) {
	tb.Helper()
	data, err := os.ReadFile("../rules/disambiguation.yaml")
	require.NoError(tb, err)
	set, problems, err := disambig.Parse("rules.yaml", data, func(string) bool { return true })
	require.NoError(tb, err)
	path := filepath.Join(tb.TempDir(), "rules.bin")
	require.NoError(tb, set.Save(path, problems))
	return set, path
}
