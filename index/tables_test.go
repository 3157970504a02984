package index_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/tokenize"
)

// A synonym or glossary table damaged inside (an offset out of order or
// beyond its column, a word or group id beyond its table) loads, since
// Load checks only the tables' lengths, and then routes badly rather than
// panics: tokenizing and routing every word of both tables never panics,
// and a word expands to nothing or to words of the table.
func TestDamagedTablesNeverPanic(t *testing.T) {
	whole, _ := smallIndex(t)
	words := append(whole.Synonyms.Words.All(), whole.Glossary.Words.All()...)
	prompt := strings.Join(words, " ")
	before := expansions(whole, words)
	require.NotEmpty(t, before, "the tables expand something to damage")

	const huge = 1 << 30
	for _, tc := range []struct {
		name   string
		damage func(s *tokenize.Synonyms, g *tokenize.Glossary)
	}{
		{"synonym offsets out of order", func(s *tokenize.Synonyms, _ *tokenize.Glossary) { s.Start[1], s.Start[2] = s.Start[2]+1, s.Start[1] }},
		{"synonym offset beyond the mates", func(s *tokenize.Synonyms, _ *tokenize.Glossary) { s.Start[len(s.Start)-1] = huge }},
		{"synonym mate beyond the words", func(s *tokenize.Synonyms, _ *tokenize.Glossary) { s.Mates[0] = huge }},
		{"synonym group beyond the groups", func(s *tokenize.Synonyms, _ *tokenize.Glossary) { s.Group[0] = huge }},
		{"synonym words' offsets out of order", func(s *tokenize.Synonyms, _ *tokenize.Glossary) { s.Words.Off[1] = huge }},
		{"glossary offsets out of order", func(_ *tokenize.Synonyms, g *tokenize.Glossary) { g.Start[2] = g.Start[3] + 1 }},
		{"glossary offset beyond the mates", func(_ *tokenize.Synonyms, g *tokenize.Glossary) { g.Start[len(g.Start)-1] = huge }},
		{"glossary mate beyond the words", func(_ *tokenize.Synonyms, g *tokenize.Glossary) { g.Mates[0] = huge }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, loaded, err := damagedTables(t, tc.damage)
			require.NoError(t, err, "damage inside a table is found where it is read, not on load")
			require.NotPanics(t, func() {
				q := loaded.Tokenizer().Tokenize(prompt)
				bm25.TopK(loaded, q, nil, 2, []int{0, 1})
				for _, w := range words {
					loaded.Synonyms.Expand(w)
					loaded.Glossary.Translate(w, func(string) {})
				}
			})
			got := expansions(loaded, words)
			assert.NotEqual(t, before, got, "the damage changes what a word expands to")
			for _, e := range got {
				_, to, _ := strings.Cut(e, ">")
				assert.Contains(t, words, to, "a damaged table expands only to its own words")
			}
		})
	}
}

// A table whose lengths disagree (a column shorter than its offsets say)
// is still refused on load, naming the file.
func TestTableLengthsChecked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(s *tokenize.Synonyms, g *tokenize.Glossary)
	}{
		{"synonym weights", func(s *tokenize.Synonyms, _ *tokenize.Glossary) { s.Weight = s.Weight[:len(s.Weight)-1] }},
		{"synonym groups", func(s *tokenize.Synonyms, _ *tokenize.Glossary) { s.Group = s.Group[:len(s.Group)-1] }},
		{"synonym offsets", func(s *tokenize.Synonyms, _ *tokenize.Glossary) { s.Start = s.Start[:len(s.Start)-1] }},
		{"glossary offsets", func(_ *tokenize.Synonyms, g *tokenize.Glossary) { g.Start = g.Start[:len(g.Start)-1] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, loaded, err := damagedTables(t, tc.damage)
			require.Error(t, err)
			assert.Nil(t, loaded)
			assert.Contains(t, err.Error(), path)
			assert.Contains(t, err.Error(), "table damaged")
		})
	}
}

// damagedTables saves smallIndex with its synonym and glossary tables
// damaged (copies of them), and loads it back.
func damagedTables(t *testing.T, damage func(*tokenize.Synonyms, *tokenize.Glossary)) (string, *index.Index, error) {
	t.Helper()
	ix, _ := smallIndex(t)
	s, g := cloneSynonyms(ix.Synonyms), cloneGlossary(ix.Glossary)
	damage(s, g)
	ix.Synonyms, ix.Glossary = s, g
	path := filepath.Join(t.TempDir(), "index.bin")
	require.NoError(t, ix.Save(path))
	loaded, err := index.Load(path)
	return path, loaded, err
}

// expansions lists the terms that a synonym or a translation adds to each
// word tokenized alone, as "from>to".
func expansions(ix *index.Index, words []string) []string {
	var out []string
	for _, w := range words {
		for _, tm := range ix.Tokenizer().Tokenize(w).Terms {
			if tm.From != "" {
				out = append(out, tm.From+">"+tm.Text)
			}
		}
	}
	return out
}

func cloneSynonyms(s *tokenize.Synonyms) *tokenize.Synonyms {
	c := *s
	c.Words.Off = slices.Clone(s.Words.Off)
	c.Start, c.Mates = slices.Clone(s.Start), slices.Clone(s.Mates)
	c.Weight, c.Group = slices.Clone(s.Weight), slices.Clone(s.Group)
	return &c
}

func cloneGlossary(g *tokenize.Glossary) *tokenize.Glossary {
	c := *g
	c.Start, c.Mates = slices.Clone(g.Start), slices.Clone(g.Mates)
	return &c
}
