package tokenize

import (
	"iter"
	"strings"
	"unicode/utf8"
)

// Mixed words. Chinese developers write an English name and a Chinese
// word as one ("sql注入", "cpu飙高", "组合式api"), and the synonym file and
// the skills' keywords hold such words. The tokenizer cuts a text into
// runs by script, so no run ever held one: 136 of the synonym file's
// words never met a prompt. A mixed word of the dictionary is found
// across each boundary between the scripts instead: the English word
// before a run of Han characters with up to maxMixedHan of them, or the
// Han characters before an English word. It is one piece of evidence with
// its parts (bm25 counts overlapping matches once).

// maxMixedHan is the most Han characters a mixed word holds: the longest
// in the synonym file has five (多版本python).
const maxMixedHan = 6

// mixedForm returns the form under which the dictionary holds a word of
// both scripts: lower-cased, its spaces taken out ("sql 注入" and "sql注入"
// are one word), and false for a word that is not of both scripts or
// holds anything but letters, digits, spaces and the joiners of names
// ("n+1查询", "a/b测试", "i/o密集型").
func mixedForm(w string) (string, bool) {
	han, latin := false, false
	for _, r := range w {
		switch {
		case IsHan(r):
			han = true
		case IsWordRune(r):
			latin = true
		case r == ' ' || isNameJoiner(r):
		default:
			return "", false
		}
	}
	if !han || !latin {
		return "", false
	}
	return strings.ReplaceAll(strings.ToLower(w), " ", ""), true
}

// isNameJoiner reports the characters a name's parts may be joined with
// inside a mixed word.
func isNameJoiner(r rune) bool { return r == '+' || r == '/' || r == '.' || r == '-' }

// mixed adds the mixed words of the dictionary that text holds across a
// boundary between a Han run and an English word.
func (t *Tokenizer) mixed(out []token, text string) []token {
	var buf []byte
	for i, j := range hanRuns(text) {
		run := text[i:j]
		if from, to := latinBefore(text, i); from < to {
			// The English word with the longest stretch of the run it
			// opens that the dictionary holds.
			for k := hanPrefix(run, maxMixedHan); k > 0; {
				if w := joined(text, from, to, i, i+k, &buf); t.dict.Find(w) >= 0 {
					out = append(out, token{text: w, pos: from, surface: text[from : i+k]})
					break
				}
				_, size := utf8.DecodeLastRuneInString(run[:k]) // one character fewer
				k -= size
			}
		}
		if from, to := latinAfter(text, j); from < to {
			for k := hanSuffix(run, maxMixedHan); k < len(run); {
				if w := joined(text, i+k, j, from, to, &buf); t.dict.Find(w) >= 0 {
					out = append(out, token{text: w, pos: i + k, surface: text[i+k : to]})
					break
				}
				_, size := utf8.DecodeRuneInString(run[k:]) // one character fewer
				k += size
			}
		}
	}
	return out
}

// joined returns text[a:b] and text[c:d] as one word: a slice of text
// when they touch, which is how mixed words are mostly written, and a new
// string only across a space.
func joined(text string, a, b, c, d int, buf *[]byte) string {
	if b == c {
		return text[a:d]
	}
	*buf = append(append((*buf)[:0], text[a:b]...), text[c:d]...)
	return string(*buf)
}

// hanRuns yields the start and end of each run of Han characters in
// text.
func hanRuns(text string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for start := 0; start < len(text); {
			r, size := utf8.DecodeRuneInString(text[start:])
			if !IsHan(r) {
				start += size
				continue
			}
			end := start + size
			for end < len(text) {
				r2, s2 := utf8.DecodeRuneInString(text[end:])
				if !IsHan(r2) {
					break
				}
				end += s2
			}
			if !yield(start, end) {
				return
			}
			start = end
		}
	}
}

// hanPrefix returns the byte length of run's first n runes (all of run if
// it is shorter).
func hanPrefix(run string, n int) int {
	for i := range run {
		if n == 0 {
			return i
		}
		n--
	}
	return len(run)
}

// hanSuffix returns the byte offset where run's last n runes start (0 if
// it is shorter).
func hanSuffix(run string, n int) int {
	i := len(run)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(run[:i])
		i -= size
	}
	return i
}

// latinBefore returns the English word that ends at i, or one space before
// it: from and to, from == to when there is none. The word may hold the
// joiners of a name ("n+1", "a/b").
func latinBefore(text string, i int) (from, to int) {
	to = i
	if to > 0 && text[to-1] == ' ' {
		to--
	}
	from = to
	for from > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:from])
		if !IsWordRune(r) && !isNameJoiner(r) {
			break
		}
		from -= size
	}
	for from < to && isNameJoiner(rune(text[from])) {
		from++
	}
	return from, to
}

// latinAfter returns the English word that starts at j, or one space
// after it.
func latinAfter(text string, j int) (from, to int) {
	from = j
	if from < len(text) && text[from] == ' ' {
		from++
	}
	to = from
	for to < len(text) {
		r, size := utf8.DecodeRuneInString(text[to:])
		if !IsWordRune(r) && !isNameJoiner(r) {
			break
		}
		to += size
	}
	for to > from && isNameJoiner(rune(text[to-1])) {
		to--
	}
	return from, to
}
