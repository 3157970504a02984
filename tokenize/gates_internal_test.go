package tokenize

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The negation and exception expressions run only on text their gates
// (mayNegate, mayHoldException) let through. A cue added to an expression
// and not to its gate would be skipped without a sign; these tests fail
// instead.

// TestNegationGateCoversExpression enumerates every string negationRE can
// match (its language is finite) and checks the gate lets each through.
func TestNegationGateCoversExpression(t *testing.T) {
	re, err := syntax.Parse(negationRE().String(), syntax.Perl)
	require.NoError(t, err)
	words := language(t, re.Simplify())
	require.Greater(t, len(words), 20, "the expression's language")
	for _, w := range words {
		assert.True(t, negationRE().MatchString(w), "%q is in the expression's language", w)
		assert.True(t, mayNegate(w), "the gate skips %q, which negationRE matches", w)
	}
}

// TestLineGatesCoverExpressions checks the gates of the pasted-material
// expressions on random lines made of pieces of what they match, words
// and punctuation: every line an expression matches, its gate lets
// through.
func TestLineGatesCoverExpressions(t *testing.T) {
	pieces := []string{"Error", "Exception", "Panic", "Fault", "Value", "error", ":", " ", ": ", "x", "_", "1", "(", ".",
		"异常", "\t", "http", "s", "://", "www", "www.", "/", "\\", "~", "C:", "src", ".py", "@"}
	gates := []struct {
		name string
		re   *regexp.Regexp
		gate func(string) bool
	}{
		{"exception", exceptionRE(), mayHoldException},
		{"url", urlRE(), mayHoldURL},
		{"path", pathRE(), mayHoldPath},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	matched := make([]int, len(gates))
	for range 50_000 {
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		line := b.String()
		for i, g := range gates {
			if g.re.MatchString(line) {
				matched[i]++
				assert.True(t, g.gate(line), "the %s gate skips %q, which its expression matches", g.name, line)
			}
		}
	}
	for i, g := range gates {
		require.Greater(t, matched[i], 1000, "lines the %s expression matched", g.name)
	}
}

// language returns every string a regular expression without repetition
// matches; zero-width assertions match the empty string.
func language(t *testing.T, re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}
	case syntax.OpEmptyMatch, syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpBeginText, syntax.OpEndText:
		return []string{""}
	case syntax.OpCapture:
		return language(t, re.Sub[0])
	case syntax.OpQuest:
		return append([]string{""}, language(t, re.Sub[0])...)
	case syntax.OpCharClass:
		var out []string
		for i := 0; i < len(re.Rune); i += 2 {
			require.Less(t, re.Rune[i+1]-re.Rune[i], rune(64), "a wide character class")
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				out = append(out, string(r))
			}
		}
		return out
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			out = append(out, language(t, sub)...)
		}
		return out
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			var next []string
			for _, head := range out {
				for _, tail := range language(t, sub) {
					next = append(next, head+tail)
				}
			}
			out = next
		}
		return out
	}
	t.Fatalf("language: unsupported %v in %v", re.Op, re)
	return nil
}
