// Package tokenize turns a prompt into weighted query terms.
//
// Prompts mix Chinese and English freely ("React 页面加载慢", "帮我 review 一下
// 这个 PR"), so a prompt is cut into runs of Han characters and runs of
// everything else, and each kind is handled as it must be:
//
//   - English: lower-cased words (with their compound parts, so "ci/cd" also
//     gives "ci" and "cd"), stemmed with the Porter2 stemmer so "crawls"
//     meets "crawling", plus phrases of two and three adjacent words so that
//     compound keywords ("slow query", "core web vitals") match whole.
//   - Chinese: segmented by gse with a dictionary of the index's own Chinese
//     keywords and synonyms, never gse's 350,000-word default (3.7 s to
//     load). The dictionary is cut further to the words that occur in the
//     prompt before gse sees it, so a prompt pays for the handful of words
//     it contains, not for the catalog (measured in BenchmarkTokenize).
//     Dictionary words win over windows ("数据库|存储", never "库存"); the
//     stretches the dictionary does not cover fall back to 2–4 character
//     windows, so an unknown word still meets a body text cut the same way.
//
// Synonym expansion then adds the group-mates of every term at a weight
// below 1, and negation ("不要用 Redis", "without docker") lowers the terms
// it covers. Input beyond MaxInput characters is ignored, never an error.
package tokenize

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-ego/gse"
	"github.com/kljensen/snowball/english"
	"github.com/skillroute/skillroute/internal/table"
)

// MaxInput caps the characters of a prompt that are read. Routing needs the
// opening of a request, not a pasted log; the cap bounds the hook's cost.
const MaxInput = 4000

// NegatedWeight multiplies a term that a negation covers. Not zero: "不要用
// Redis 做缓存" still is about caching, but Redis is not what is wanted.
const NegatedWeight = 0.2

// maxPhraseWords is the longest English phrase matched as one term.
const maxPhraseWords = 3

// Han windows used where the dictionary has no word: two to four
// characters cover nearly all Chinese technical words.
const (
	minWindow = 2
	maxWindow = 4
)

// Term is one weighted query term.
type Term struct {
	Text    string  // normalised form, as the index stores it
	Weight  float64 // 1 for the prompt's own words; less for synonyms and negated words
	From    string  // for a synonym: the term it was expanded from
	Negated bool
}

// Query is a tokenized prompt.
type Query struct {
	Terms []Term // unique by Text, sorted by Text
}

// Tokenizer cuts prompts and skill texts into terms.
type Tokenizer struct {
	dict     table.Strings // Chinese words for segmentation
	maxRunes int           // longest dictionary word, in runes
	syn      *Synonyms
}

// New returns a tokenizer that segments Chinese with the given dictionary
// words (only the Han ones are kept) and expands with syn (may be nil).
func New(dict []string, syn *Synonyms) *Tokenizer {
	return NewWithTable(table.New(HanWords(dict)), syn)
}

// NewWithTable returns a tokenizer over a dictionary already cut to its
// Han words and sorted, as a compiled index stores it.
func NewWithTable(dict table.Strings, syn *Synonyms) *Tokenizer {
	t := &Tokenizer{dict: dict, syn: syn}
	for i := 0; i < dict.Len(); i++ {
		t.maxRunes = max(t.maxRunes, utf8.RuneCountInString(dict.At(i)))
	}
	return t
}

// HanWords returns the Han words of the given list, sorted and unique: the
// segmentation dictionary an index stores for its tokenizer.
func HanWords(words []string) []string {
	set := map[string]struct{}{}
	for _, w := range words {
		w = strings.ToLower(strings.TrimSpace(w))
		if isAllHan(w) {
			set[w] = struct{}{}
		}
	}
	out := make([]string, 0, len(set))
	for w := range set {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// Normalize returns the form under which a keyword or synonym is matched:
// lower-cased, spaces collapsed, each plain English word stemmed.
func Normalize(s string) string {
	fields := strings.Fields(strings.ToLower(s))
	for i, f := range fields {
		fields[i] = stem(f)
	}
	return strings.Join(fields, " ")
}

// stem applies Porter2 to plain alphabetic words of four letters or more;
// names like "next.js", "k8s" or "c++" are kept as written.
func stem(w string) string {
	if len(w) < 4 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	return english.Stem(w, false)
}

// token is a term with the byte offset where it starts, for negation.
type token struct {
	text string
	pos  int
}

// Tokenize cuts a prompt into query terms.
func (t *Tokenizer) Tokenize(text string) Query {
	text = strings.ToLower(capInput(text))
	toks := t.tokens(text, true)
	scopes := negationScopes(text)
	terms := map[string]*Term{}
	add := func(tm Term) {
		if old, ok := terms[tm.Text]; ok {
			if old.Weight >= tm.Weight {
				return
			}
		}
		terms[tm.Text] = &tm
	}
	for _, tk := range toks {
		tm := Term{Text: tk.text, Weight: 1}
		if inScopes(scopes, tk.pos) {
			tm.Weight, tm.Negated = NegatedWeight, true
		}
		add(tm)
	}
	// Expand after all prompt terms are in, so that an expansion never
	// lowers a word the user typed.
	base := make([]Term, 0, len(terms))
	for _, tm := range terms {
		base = append(base, *tm)
	}
	for _, tm := range base {
		for _, e := range t.syn.Expand(tm.Text) {
			add(Term{Text: e.Term, Weight: tm.Weight * e.Weight, From: tm.Text, Negated: tm.Negated})
		}
	}
	q := Query{Terms: make([]Term, 0, len(terms))}
	for _, tm := range terms {
		q.Terms = append(q.Terms, *tm)
	}
	sort.Slice(q.Terms, func(i, j int) bool { return q.Terms[i].Text < q.Terms[j].Text })
	return q
}

// Words cuts a skill's text (description, body) into index terms: single
// words and Chinese words, stop words dropped, no phrases, no synonyms.
func (t *Tokenizer) Words(text string) []string {
	toks := t.tokens(strings.ToLower(text), false)
	out := make([]string, len(toks))
	for i, tk := range toks {
		out[i] = tk.text
	}
	return out
}

func capInput(s string) string {
	if len(s) <= MaxInput { // bytes >= runes
		return s
	}
	n := 0
	for i := range s {
		if n == MaxInput {
			return s[:i]
		}
		n++
	}
	return s
}

// wordRE matches an English word with its inner connectors: "next.js",
// "ci/cd", "vue-router", "c++", "c#", "don't".
var wordRE = regexp.MustCompile(`[\p{Latin}\p{N}]+(?:[._\-/'][\p{Latin}\p{N}]+)*[+#]*`)

// tokens lists the terms of lower-cased text in order of position.
func (t *Tokenizer) tokens(text string, phrases bool) []token {
	var out []token
	start := 0
	for start < len(text) {
		r, size := utf8.DecodeRuneInString(text[start:])
		end := start + size
		han := unicode.Is(unicode.Han, r)
		for end < len(text) {
			r2, s2 := utf8.DecodeRuneInString(text[end:])
			if unicode.Is(unicode.Han, r2) != han {
				break
			}
			end += s2
		}
		if han {
			out = t.han(out, text[start:end], start)
		} else {
			out = latin(out, text[start:end], start, phrases)
		}
		start = end
	}
	return out
}

// latin adds the English words and phrases of a non-Han run.
func latin(out []token, run string, offset int, phrases bool) []token {
	locs := wordRE.FindAllStringIndex(run, -1)
	var phrase []string // stemmed words of the current phrase, with stop words
	var phrasePos []int
	var phraseStops []bool
	for i, loc := range locs {
		w := run[loc[0]:loc[1]]
		pos := offset + loc[0]
		if i > 0 && strings.TrimSpace(run[locs[i-1][1]:loc[0]]) != "" {
			phrase, phrasePos, phraseStops = phrase[:0], phrasePos[:0], phraseStops[:0]
		}
		sw := stem(strings.TrimSuffix(w, "'s"))
		if !isStopWord(w) && utf8.RuneCountInString(w) > 1 {
			out = append(out, token{sw, pos})
		}
		if strings.ContainsAny(w, "./-_") {
			for _, part := range strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune("./-_'", r) }) {
				if len(part) > 1 && !isStopWord(part) {
					out = append(out, token{stem(part), pos})
				}
			}
		}
		if !phrases {
			continue
		}
		phrase, phrasePos, phraseStops = append(phrase, sw), append(phrasePos, pos), append(phraseStops, isStopWord(w))
		if len(phrase) > maxPhraseWords {
			phrase, phrasePos, phraseStops = phrase[1:], phrasePos[1:], phraseStops[1:]
		}
		// A phrase that starts or ends with a stop word ("and date") names
		// nothing a keyword could: skip it.
		if isStopWord(w) {
			continue
		}
		for n := 2; n <= len(phrase); n++ {
			k := len(phrase) - n
			if phraseStops[k] {
				continue
			}
			out = append(out, token{strings.Join(phrase[k:], " "), phrasePos[k]})
		}
	}
	return out
}

func isStopWord(w string) bool {
	return english.IsStopWord(w)
}

// han adds the words of a run of Han characters.
func (t *Tokenizer) han(out []token, run string, offset int) []token {
	runes := []rune(run)
	byteAt := make([]int, len(runes)+1)
	for i, n := 0, 0; i < len(runes); i++ {
		byteAt[i] = n
		n += utf8.RuneLen(runes[i])
		byteAt[i+1] = n
	}
	// Dictionary words present in the run: all gse needs to know. One
	// binary search per position finds the words that start with its
	// character; those are few, and each is checked as a prefix.
	var found []span
	present := map[string]struct{}{}
	for i := range runes {
		rest := run[byteAt[i]:]
		first := rest[:byteAt[i+1]-byteAt[i]]
		n := t.dict.Len()
		k := sort.Search(n, func(k int) bool { return t.dict.At(k) >= first })
		for ; k < n; k++ {
			w := t.dict.At(k)
			if !strings.HasPrefix(w, first) {
				break
			}
			if strings.HasPrefix(rest, w) {
				found = append(found, span{i, i + utf8.RuneCountInString(w)})
				present[w] = struct{}{}
			}
		}
	}
	// found is ordered by start, then length: the prefixes of one text
	// sort shortest first.
	covered := make([]bool, len(runes))
	if len(found) > 0 && !overlapping(found) {
		// Nothing to choose between: every word found is a segment, and
		// gse would only confirm it (found is ordered by start).
		for _, f := range found {
			out = append(out, token{string(runes[f.from:f.to]), offset + byteAt[f.from]})
			for i := f.from; i < f.to; i++ {
				covered[i] = true
			}
		}
	} else if len(found) > 0 {
		for _, seg := range segment(present, run) {
			from := utf8.RuneCountInString(run[:seg.start])
			to := from + utf8.RuneCountInString(run[seg.start:seg.end])
			if _, ok := present[run[seg.start:seg.end]]; !ok {
				continue
			}
			word := run[seg.start:seg.end]
			out = append(out, token{word, offset + seg.start})
			out = t.subWords(out, word, offset+seg.start)
			for i := from; i < to; i++ {
				covered[i] = true
			}
		}
	}
	// Windows over the stretches no dictionary word covers.
	for i := 0; i < len(runes); {
		if covered[i] {
			i++
			continue
		}
		j := i
		for j < len(runes) && !covered[j] {
			j++
		}
		for a := i; a < j; a++ {
			if isParticle(runes[a]) {
				continue
			}
			for n := minWindow; n <= maxWindow && a+n <= j; n++ {
				w := string(runes[a : a+n])
				if !isParticle(runes[a+n-1]) && !fillerWords[w] {
					out = append(out, token{w, offset + byteAt[a]})
				}
			}
		}
		i = j
	}
	return out
}

// particles are function characters: a window that starts or ends with
// one ("我写", "一下", "怎么") is grammar, not a word, and would match every
// text that is written in Chinese.
const particles = "的了我你他她它们是在和与及把被吗呢吧啊呀个这那一也都就还想请帮给让么什哪怎很"

func isParticle(r rune) bool { return strings.ContainsRune(particles, r) }

// fillerWords are conversational words that windows would otherwise make
// into terms ("有没有", "还是"): they occur in any Chinese request and in
// any Chinese body text, so they only add noise. Dictionary words are never
// filtered: a skill that lists one as a keyword still matches it.
var fillerWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`有没有 有没 没有 还是 还有 怎么样 怎样 为什么 是不是 能不能 可不可以 可以 现在 已经
		然后 但是 因为 所以 如果 或者 以及 需要 应该 自己 一些 不是 就是 比如 其实 目前 之前 之后 以后
		时候 东西 问题 情况 感觉 觉得 知道 看看 看下 试试 直接 所有 这些 那些 今天 明天 一直 总是 经常
		不要 不用 要用 别用 不想 想要 要不要 会不会`) {
		fillerWords[w] = true
	}
}

// subWords adds the words a chosen compound is made of, as gse's search
// mode does: "搜索引擎优化" also gives 搜索, 引擎 and 优化, but not 索引,
// which straddles two of its parts. One level deep: the parts of a part
// add little.
func (t *Tokenizer) subWords(out []token, word string, offset int) []token {
	inner := map[string]struct{}{}
	runes := []rune(word)
	for i := range runes {
		for n := 1; n <= t.maxRunes && i+n <= len(runes); n++ {
			if n == len(runes) {
				continue
			}
			if w := string(runes[i : i+n]); t.has(w) {
				inner[w] = struct{}{}
			}
		}
	}
	if len(inner) == 0 {
		return out
	}
	for _, seg := range segment(inner, word) {
		if w := word[seg.start:seg.end]; t.has(w) {
			out = append(out, token{w, offset + seg.start})
		}
	}
	return out
}

func (t *Tokenizer) has(w string) bool { return t.dict.Find(w) >= 0 }

// span is a stretch of runes, to exclusive.
type span struct{ from, to int }

// overlapping reports whether any two spans, ordered by start, overlap.
func overlapping(s []span) bool {
	for i := 1; i < len(s); i++ {
		if s[i].from < s[i-1].to {
			return true
		}
	}
	return false
}

type segSpan struct{ start, end int }

// segment cuts run with gse, loaded with the given words only. Each word
// gets a frequency proportional to its length, so that gse's shortest path
// prefers the longest dictionary word ("compound keywords first").
func segment(words map[string]struct{}, run string) []segSpan {
	var seg gse.Segmenter
	seg.NotLoadHMM, seg.SkipLog = true, true
	seg.Dict = gse.NewDict()
	seg.Init()
	for w := range words {
		_ = seg.AddToken(w, float64(10*utf8.RuneCountInString(w)))
	}
	seg.CalcToken()
	segs := seg.Segment([]byte(run))
	out := make([]segSpan, len(segs))
	for i, s := range segs {
		out[i] = segSpan{s.Start(), s.End()}
	}
	return out
}

func isAllHan(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}
