package tokenize_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/internal/table"
	"github.com/skillroute/skillroute/tokenize"
)

// FuzzWords holds what a skill's text is indexed by, on any text: the
// words a tokenizer without synonyms gives, in the same order, and
// besides them only phrases the synonyms hold (tokenize/phrases.go).
func FuzzWords(f *testing.F) {
	syn, err := tokenize.NewSynonyms(
		tokenize.SynonymGroup{ID: "screen-reader", Words: []tokenize.SynonymWord{{Text: "读屏软件"}, {Text: "screen reader"}}},
		tokenize.SynonymGroup{ID: "slow-query", Words: []tokenize.SynonymWord{{Text: "慢查询"}, {Text: "slow query"}, {Text: "slow sql query"}}})
	require.NoError(f, err)
	with := tokenize.NewWithTable(table.New(nil), syn, nil)
	without := tokenize.NewWithTable(table.New(nil), nil, nil)
	known := map[string]bool{}
	for _, w := range syn.WordList() {
		known[w] = true
	}
	for _, s := range []string{"Test it with a screen reader.", "slow SQL queries: a slow query log", "screen, reader", "the screen reader's slow query 慢查询", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := with.Words(text)
		var words []string
		for _, w := range got {
			if strings.Contains(w, " ") {
				require.True(t, known[w], "phrase %q of %q is no synonym", w, text)
				continue
			}
			words = append(words, w)
		}
		require.True(t, slices.Equal(without.Words(text), words), "%q: words %q, without synonyms %q", text, words, without.Words(text))
	})
}
