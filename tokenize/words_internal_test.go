package tokenize

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/skills"
)

// wordRE matches an English word with its inner connectors: "next.js",
// "ci/cd", "vue-router", "c++", "c#", "don't".
//
// A ratio of numbers ("1:1", "16:9") is one word, and its plural ("1:1s")
// is the ratio: keywords such as "1:1" were never met before.
//
// It is the reference scanWords is held to, kept here: compiled as a
// package variable it cost every hook process about 0.15 ms, unused.
var wordRE = regexp.MustCompile(`\p{N}+:\p{N}+|[\p{Latin}\p{N}]+(?:[._\-/'][\p{Latin}\p{N}]+)*[+#]*`)

// TestScanWords protects tokenizing: the hand-written scanner finds
// exactly the words the regular expression finds, on every built-in
// skill's text and on random mixtures of the characters that matter.
func TestScanWords(t *testing.T) {
	cat, err := skills.Builtin()
	require.NoError(t, err)
	var texts []string
	for _, s := range cat.Skills {
		texts = append(texts, s.Description, s.WhenToUse, s.Body, strings.ToLower(s.Body))
	}
	alphabet := []rune("aZ09._-/'+#: \t,，é²½ßŁЖ中文\u0301\uFFFDxy٣")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		b := make([]rune, rng.IntN(24))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		texts = append(texts, string(b))
	}
	texts = append(texts, "\xff\xfeab.\xc3", "c++ c# next.js ci/cd don't a..b a.-b -x x- 1.2.3 ++ x++#", "1:1 16:9s a1:2 12: :3 1::2 1:2:3 ٣:٣ ½:2")
	for _, text := range texts {
		var want [][2]int
		for _, loc := range wordRE.FindAllStringIndex(text, -1) {
			want = append(want, [2]int{loc[0], loc[1]})
		}
		require.Equal(t, want, scanWords(text, nil), "%q", text)
	}
}
