package category

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// hasWord finds a cue exactly where the strings it stands for would be
// found: " cue " for a word, " cue" for a prefix (a cue ending in *).
func TestHasWordAsContains(t *testing.T) {
	texts := []string{
		" ", "  ", " how do i fix it ", " fixing the build ", " prefix ", " fix ",
		" the fix is in ", " affix fix ", " fixfix ", " a b  c ", " explain what this does ",
		" how-to guide ", " why why ", " ",
	}
	var all []string
	for _, c := range append(cues, questionCues) {
		all = append(all, c.en...)
	}
	all = append(all, "", "fix", "fix*", "fi*", "x", "a b", "c", " ", "*")
	for _, words := range texts {
		for _, cue := range all {
			prefix, ok := strings.CutSuffix(cue, "*")
			want := strings.Contains(words, " "+cue+" ")
			if ok {
				want = strings.Contains(words, " "+prefix)
			}
			assert.Equal(t, want, hasWord(words, prefix, ok), "cue %q in %q", cue, words)
		}
	}
}
