package action

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quotedReference is the expression quotedSpans replaced: the reference
// it must agree with, span for span.
var quotedReference = regexp.MustCompile("(?:^|[^\\p{L}\\p{N}])'(?:[^'\n]|'\\p{L}){1,200}'|\"[^\"\n]{1,200}\"|`[^`\n]{1,400}`|“[^”\n]{1,200}”|「[^」\n]{1,200}」")

func TestQuotedSpans(t *testing.T) {
	cases := []struct {
		name, text string
		want       [][]int
	}{
		{"double quotes", `it says "couldn't fetch" again`, [][]int{{8, 24}}},
		{"an apostrophe inside a word opens no quote", "couldn't fetch, it's down", nil},
		{"apostrophe quote after a space, the space included", "run 'make test' now", [][]int{{3, 15}}},
		{"apostrophe quote at the start", "'abc' then", [][]int{{0, 5}}},
		{"an apostrophe before a letter stays inside", "say 'don't' there", [][]int{{3, 11}}},
		{"backticks", "run `go test ./...` here", [][]int{{4, 19}}},
		{"Chinese quotes", "报错「连接超时」了", [][]int{{6, 24}}},
		{"curly quotes", "the “fetch failed” line", [][]int{{4, 22}}},
		{"empty quotes are none", `"" and ''`, nil},
		{"no quote across lines", "\"a\nb\"", nil},
		{"too long a quote is none", `"` + strings.Repeat("x", 201) + `"`, nil},
		{"the longest quote", `"` + strings.Repeat("x", 200) + `"`, [][]int{{0, 202}}},
		{"backticks hold more", "`" + strings.Repeat("x", 400) + "`", [][]int{{0, 402}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, quotedSpans(c.text))
			assert.Equal(t, quotedReference.FindAllStringIndex(c.text, -1), quotedSpans(c.text))
		})
	}
}

// quoteAlphabet is what quoted text is made of in the tests: every
// delimiter, letters and digits (Latin, accented, Chinese), other
// characters, a line break and a byte that is no UTF-8.
var quoteAlphabet = []string{"'", "'", "'", `"`, `"`, "`", "“", "”", "「", "」", "a", "é", "中", "1", "٣", " ", ",", "\n", "\xff", "x", "y"}

// TestQuotedSpansAsRegexp compares quotedSpans with the expression on
// random texts, long ones included, so that the length limits (200 and
// 400 characters) are met from both sides.
func TestQuotedSpansAsRegexp(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	// The reference expression runs slowly on long texts (its program is
	// too large for the backtracker), most of all under -race: 2,000
	// texts, one in twenty long.
	for i := range 2000 {
		n := rng.IntN(40)
		if i%20 == 0 {
			n = 20 + rng.IntN(40)
		}
		var b strings.Builder
		for range n {
			// Long runs of plain letters stretch quotes to their limits.
			if rng.IntN(4) == 0 {
				b.WriteString(strings.Repeat("x", rng.IntN(120)))
			}
			b.WriteString(quoteAlphabet[rng.IntN(len(quoteAlphabet))])
		}
		text := b.String()
		require.Equal(t, quotedReference.FindAllStringIndex(text, -1), quotedSpans(text), "text %q", text)
	}
}

func FuzzQuotedSpans(f *testing.F) {
	for _, s := range []string{`say "hi"`, "'it's' 'a'", "x'y'z", "「a」“b”`c`", "'" + strings.Repeat("a'b", 80) + "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		assert.Equal(t, quotedReference.FindAllStringIndex(text, -1), quotedSpans(text))
	})
}
