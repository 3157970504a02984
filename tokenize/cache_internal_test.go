package tokenize

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/skills"
)

// TestWithCacheSameTerms protects compiling: a tokenizer with caches cuts
// every text into the same terms as one without, on first sight and from
// its caches, and normalises keywords the same.
func TestWithCacheSameTerms(t *testing.T) {
	cat, err := skills.Builtin()
	require.NoError(t, err)
	var dict []string
	for _, s := range cat.Skills {
		for _, k := range s.Keywords {
			dict = append(dict, k.Text)
		}
	}
	plain := New(dict, nil)
	cached := plain.WithCache()
	for round := 0; round < 2; round++ {
		for _, s := range cat.Skills {
			for _, text := range []string{s.Description + "\n" + s.WhenToUse, s.Body} {
				require.Equal(t, plain.Words(text), cached.Words(text), "%s, round %d", s.Name, round)
			}
			for _, k := range s.Keywords {
				require.Equal(t, Normalize(k.Text), cached.Normalize(k.Text))
			}
		}
	}
	require.NotEmpty(t, cached.stems)
	require.NotEmpty(t, cached.hans)
	require.Nil(t, plain.stems, "the original is unchanged")
}
