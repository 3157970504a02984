package tokenize

import (
	"strings"
	"unicode"
)

// Text is a prompt normalised once, by the router's first stage, for every
// stage after it: the turn classifier's cues, the tokenizer, the rules'
// triggers and the category classifier all read Lower, so none of them
// caps or lower-cases the prompt again (each did, in six places, before).
type Text struct {
	// Raw is the prompt cut to its first MaxInput characters: what a
	// decision records and what is logged.
	Raw string
	// Lower is Raw lower-cased: what every matcher reads.
	Lower string
}

// NewText normalises a prompt. A typographic apostrophe (’, which
// editors and pasted text put in "don’t" and "that’s all") becomes the
// typed one, which every cue, negation and contraction is written with.
func NewText(prompt string) Text {
	raw := Cap(prompt)
	if strings.Contains(raw, "’") {
		raw = strings.ReplaceAll(raw, "’", "'")
	}
	return Text{Raw: raw, Lower: strings.ToLower(raw)}
}

// IsHan reports a Chinese character. One definition for every stage: the
// tokenizer cuts Han runs by it and the turn classifier counts by it.
func IsHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// HanCount returns how many Chinese characters s holds.
func HanCount(s string) int {
	n := 0
	for _, r := range s {
		if IsHan(r) {
			n++
		}
	}
	return n
}

// isWordByte reports what continues an English word in lower-cased text:
// an ASCII letter, a digit or an apostrophe ("don't").
func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '\''
}

// WordIndex returns where word (lower-case) first occurs in s (lower-cased
// text) as a whole word or phrase, or -1: "same" is found in "the same
// again" but not in "samesite". Cue lists and word triggers use it.
func WordIndex(s, word string) int {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], word)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(word)
		if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
			return i
		}
		from = i + 1
	}
	return -1
}

// HasWordPrefix reports whether s (lower-cased text) starts with word as a
// whole word.
func HasWordPrefix(s, word string) bool {
	return strings.HasPrefix(s, word) && (len(s) == len(word) || !isWordByte(s[len(word)]))
}

// ASCIIWords returns the ASCII words of s (letters, digits, apostrophes
// and hyphens), joined by single spaces with a space at each end, so that
// " word " and " prefix" can be looked up with strings.Contains.
func ASCIIWords(s string) string {
	return " " + strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '-'))
	}), " ") + " "
}
