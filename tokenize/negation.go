package tokenize

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// negationRE finds the words with which a user rules something out. Plain
// "not" and 没有 are left out on purpose: in "does not load" or "缓存没有
// 生效" they describe the symptom, not what the user refuses.
// Compiled on first use: most prompts hold no negation cue (mayNegate),
// and compiling it at start was a tenth of the package's init in every
// hook process (GODEBUG=inittrace=1).
var negationRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`不要|不用|不需要|无需|不必|不想|别|\b(?:without|don'?t|do not|no need|never|instead of|rather than|not (?:a|an|the|about|for|using|use|need))\b`)
})

// notNegation lists characters that, before 别, make a word that is not a
// negation: 区别, 特别, 分别, 类别, 级别, 识别 ...
const notNegation = "区特分类级识告差性个派辨鉴离"

// notNegationAfter lists characters that, after 别, make 别人 (others), 别的
// (other), 别处 (elsewhere) ...: words, not a "don't".
const notNegationAfter = "人的处家样"

// negationReach is how far a negation reaches past its marker: five Han
// characters or two and a half English words (a word counts two, a stop
// word nothing: "without spinning up a real browser" reaches "browser"
// as "without spinning real browser" would), enough for "不要用 Redis" or
// "without a database" and short of the next request.
const negationReach = 5

type scope struct{ from, to int }

// negationScopes returns the byte ranges that negations cover, each ending
// at the reach or at the next clause punctuation, whichever comes first.
func negationScopes(text string) []scope {
	if !mayNegate(text) {
		return nil
	}
	var out []scope
	for _, m := range negationRE().FindAllStringIndex(text, -1) {
		if strings.HasPrefix(text[m[0]:], "别") && m[0] > 0 {
			prev, _ := utf8.DecodeLastRuneInString(text[:m[0]])
			if strings.ContainsRune(notNegation, prev) {
				continue
			}
		}
		if strings.HasPrefix(text[m[0]:], "别") {
			if next, _ := utf8.DecodeRuneInString(text[m[1]:]); strings.ContainsRune(notNegationAfter, next) {
				continue
			}
		}
		units, end := 0, m[1]
		inWord := false
		for end < len(text) && units < negationReach {
			r, size := utf8.DecodeRuneInString(text[end:])
			if strings.ContainsRune("，。,.;；!?！？\n:：、", r) {
				break
			}
			switch {
			case IsHan(r):
				units++
				inWord = false
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				if !inWord && !isStopWord(wordAt(text[end:])) {
					units += 2
				}
				inWord = true
			default:
				inWord = false
			}
			end += size
		}
		// Finish the word the reach ended in.
		for end < len(text) {
			r, size := utf8.DecodeRuneInString(text[end:])
			if !(unicode.IsLetter(r) || unicode.IsDigit(r)) || IsHan(r) {
				break
			}
			end += size
		}
		out = append(out, scope{m[1], end})
	}
	return out
}

// wordAt returns the run of letters and digits (no Han) text starts with.
func wordAt(text string) string {
	end := strings.IndexFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'') || IsHan(r)
	})
	if end < 0 {
		return text
	}
	return text[:end]
}

func inScopes(scopes []scope, pos int) bool {
	for _, s := range scopes {
		if pos >= s.from && pos < s.to {
			return true
		}
	}
	return false
}

// Negations returns a test of whether a byte offset of the lower-cased
// text lies in the reach of a negation ("don't run anything": "run" does;
// "don't" itself does not). Cue matchers outside the tokenizer use it so
// that a negated word never counts as asked for.
func Negations(lower string) func(pos int) bool {
	scopes := negationScopes(lower)
	return func(pos int) bool { return inScopes(scopes, pos) }
}

// negationCues are what every match of negationRE holds, one of them at
// least: a prompt with none is not searched (the expression took 2 % of
// BenchmarkRoute, on prompts that mostly negate nothing).
var negationCues = [...]string{"不要", "不用", "不需要", "无需", "不必", "不想", "别", "without", "don", "do not", "no need", "never", "instead of", "rather than", "not "}

// mayNegate reports whether text holds a negation cue.
func mayNegate(text string) bool {
	for _, c := range negationCues {
		if strings.Contains(text, c) {
			return true
		}
	}
	return false
}
