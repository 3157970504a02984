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
//   - Chinese: segmented by gse's shortest path (segment computes it as gse
//     does, without gse's per-call dictionary) with a dictionary of the
//     index's own Chinese keywords and synonyms, never gse's 350,000-word
//     default (3.7 s to load). The dictionary is cut further to the words
//     that occur in the prompt before segmenting, so a prompt pays for the
//     handful of words it contains, not for the catalog (measured in
//     BenchmarkTokenize).
//     Dictionary words win over windows ("数据库|存储", never "库存"); the
//     stretches the dictionary does not cover fall back to 2–4 character
//     windows, so an unknown word still meets a body text cut the same way.
//     A prompt also meets a dictionary word written with a particle or an
//     adverb inside it (磁盘快满 for 磁盘满; gaps.go).
//
// Synonym expansion then adds the group-mates of every term at a weight
// below 1 and, lower still, the concepts its group implies (a blind user
// implies accessibility; synonyms.go); negation ("不要用 Redis", "without
// docker") lowers the terms it covers. A bilingual glossary (glossary.go)
// adds, more weakly still, the other language's terms for the prompt's
// words, so that a Chinese prompt reaches a skill written in English, and
// back. Input beyond MaxInput characters is ignored, never an error.
package tokenize

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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
	Surface string  // the prompt's own word behind it, for explanations
	Weight  float64 // 1 for the prompt's own words; less for synonyms and negated words
	From    string  // for a synonym: the term it was expanded from
	Negated bool
	// Pos and End are the bytes of the prompt (lower-cased) the term was
	// cut from, its first occurrence: terms whose spans overlap ("加载慢"
	// and its window "加载", "ci/cd" and "ci") are one piece of evidence,
	// not two.
	Pos, End int
	// Noise marks a term cut from pasted material (a log line, a stack
	// trace, a URL, a path's folders): it may meet keywords only (see
	// noise.go).
	Noise bool
	// Compound marks a Chinese word the prompt wrote whole that is made
	// of two or more dictionary words, end to end ("相机权限最小可行产品" of
	// 相机权限 and 最小可行产品), which are terms too: like an English phrase,
	// it says its words stand together, which they alone do not.
	Compound bool
}

// Query is a tokenized prompt.
type Query struct {
	Terms []Term // unique by Text, sorted by Text
	// Words are the prompt's English words as written, in order, split
	// at hyphens and underscores: what a prompt that spells a skill's
	// name in words ("use test-driven development") is read back from
	// (bm25's written names).
	Words []Word
}

// Word is an English word of a prompt, lower-cased as written.
type Word struct {
	Text     string
	Pos, End int // its bytes in the lower-cased prompt
	// Joined: one space, hyphen or underscore alone stands between it
	// and the word before, as between the words of a name spelled out.
	Joined bool
}

// isPartSeparator reports a rune that joins the parts of one word
// ("ci/cd", "conftest.py", "test-driven", "snake_case", "user's"): each
// part is a term of its own, and a word of a name spelled out.
func isPartSeparator(r rune) bool { return strings.ContainsRune("./-_'", r) }

// spelledWords returns the English words of lower-cased text (Query.Words).
func spelledWords(text string) []Word {
	var out []Word
	prevEnd := -1
	for _, loc := range scanWords(text, nil) {
		w := text[loc[0]:loc[1]]
		gap := ""
		if prevEnd >= 0 {
			gap = text[prevEnd:loc[0]]
		}
		joined := gap == " " || gap == "-" || gap == "_"
		at := 0
		for i, part := range strings.FieldsFunc(w, isPartSeparator) {
			at += strings.Index(w[at:], part)
			if i > 0 { // split inside the word: joined across a hyphen or underscore only
				sep := w[at-1]
				joined = sep == '-' || sep == '_'
			}
			out = append(out, Word{Text: part, Pos: loc[0] + at, End: loc[0] + at + len(part), Joined: joined})
			at += len(part)
		}
		prevEnd = loc[1]
	}
	return out
}

// Tokenizer cuts prompts and skill texts into terms.
type Tokenizer struct {
	dict  table.Strings // Chinese words for segmentation
	syn   *Synonyms
	gloss *Glossary
	// phrases is the phrase vocabulary of syn, built on first use: only
	// compiling a catalog needs it, never a prompt.
	phrases func() *phraseSet

	// What WithCache remembers, or nil.
	stems map[string]string  // word -> stem
	hans  map[string][]token // run of Han characters -> its tokens, at offset 0
	// Buffers WithCache reuses from one text to the next.
	toks []token
	locs [][2]int
}

// WithCache returns a copy of t that remembers the stems and the Chinese
// segmentations it computes, for one goroutine cutting many texts:
// compiling a catalog, whose bodies repeat words and phrases, spent a
// third of its time stemming and segmenting them again. Not safe for
// concurrent use; t itself is unchanged.
func (t *Tokenizer) WithCache() *Tokenizer {
	c := *t
	c.stems, c.hans = map[string]string{}, map[string][]token{}
	c.toks, c.locs = []token{}, [][2]int{}
	return &c
}

// cacheLimit bounds each cache of WithCache: past it, new words are
// computed and not remembered, so that a catalog of endless distinct words
// (hashes, names) does not grow it without end, and the words met first,
// which in text are mostly the frequent ones, stay. The built-in catalog's
// bodies hold about 9,000 distinct words.
const cacheLimit = 1 << 15

// stem is the package's stem, through the cache when there is one.
func (t *Tokenizer) stem(w string) string {
	if t.stems == nil {
		return stem(w)
	}
	s, ok := t.stems[w]
	if !ok {
		if len(t.stems) >= cacheLimit {
			return stem(w)
		}
		w = strings.Clone(w) // w may be a slice of a long text
		s = stem(w)
		t.stems[w] = s
	}
	return s
}

// Normalize is the package's Normalize, through the cache when there is
// one.
func (t *Tokenizer) Normalize(s string) string {
	if t.stems == nil {
		return Normalize(s)
	}
	fields := strings.Fields(strings.ToLower(s))
	for i, f := range fields {
		fields[i] = t.stem(f)
	}
	return strings.Join(fields, " ")
}

// New returns a tokenizer that segments Chinese with the given dictionary
// words (only the Han ones are kept) and expands with syn (may be nil).
func New(dict []string, syn *Synonyms) *Tokenizer {
	return NewWithTable(table.New(HanWords(dict)), syn, nil)
}

// NewWithTable returns a tokenizer over a dictionary already cut to its
// Han words and sorted, as a compiled index stores it, with the index's
// synonyms and glossary (either may be nil).
func NewWithTable(dict table.Strings, syn *Synonyms, gloss *Glossary) *Tokenizer {
	t := &Tokenizer{dict: dict, syn: syn, gloss: gloss}
	t.phrases = sync.OnceValue(func() *phraseSet { return newPhraseSet(syn) })
	return t
}

// HanWords returns the Han words of the given list, sorted and unique: the
// segmentation dictionary an index stores for its tokenizer. Words of both
// scripts ("sql注入") are kept too, without their spaces (mixed.go).
func HanWords(words []string) []string {
	set := map[string]struct{}{}
	for _, w := range words {
		w = strings.ToLower(strings.TrimSpace(w))
		if isAllHan(w) {
			set[w] = struct{}{}
		} else if m, ok := mixedForm(w); ok {
			set[m] = struct{}{} // looked up across a change of script (mixed.go)
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

// ReadAs is the term a word of a keyword list or synonym group is read
// as when a prompt types it: Normalize's form, or a word of both scripts
// whole, without its spaces ("SQL 注入" -> "sql注入"), as the dictionary
// keeps it (HanWords).
func ReadAs(w string) string { return plain.ReadAs(w) }

// plain is a tokenizer without a dictionary or stem cache: its ReadAs and
// Normalize are the package's.
var plain Tokenizer

// ReadAs is the package's ReadAs, through the stem cache when there is
// one: the form an index stores a keyword under, so that "api 参考" meets
// the "api参考" a prompt is read into (TestMixedKeywordsMatch).
func (t *Tokenizer) ReadAs(w string) string {
	if m, ok := mixedForm(w); ok {
		return m
	}
	return t.Normalize(w)
}

// Stems reports whether Normalize runs Porter2 on a lower-cased word:
// plain alphabetic words of four letters or more; names like "next.js",
// "k8s" or "c++" are kept as written.
func Stems(w string) bool {
	if len(w) < 4 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// stem applies Porter2 to the words it Stems.
func stem(w string) string {
	if !Stems(w) {
		return w
	}
	if s, ok := apartStem(w); ok {
		return s
	}
	return english.Stem(w, false)
}

// apartStem keeps apart words that Porter2 folds together though they
// mean different things, each at a stem of its own:
//
//   - into a tool's name: "expression" stems to "express", the Node
//     framework ("our Express app" met regex-shell-wizard's "regular
//     expressions"; TestToolNames), and "puppeteer" to "puppet", another
//     tool than the browser library;
//   - into a technical word: "important" to "import", "responsive" (a
//     layout that adapts) and "responsible" to "respons" (an API's
//     response), "several" to "sever" (an incident's severity), "busy"
//     to "busi" (business logic). Folded, responsive-design's keyword
//     shared its stem with every API skill's "response", and told the
//     skill apart less ("our checkout page is not responsive on iPhone"
//     scored it 0.46 on real-dev's catalog, 0.49 kept apart: `skillroute
//     route --json --catalog ../shared/eval/real-dev/skills`), and
//     "several services" met incident skills' "severity"
//     (TestWordsOfOtherSenses).
//
// Porter2 folds many more pairs; these are the ones whose two senses both
// occur in developers' prompts. Six more kept apart together
// (production/product, productive, objective, positive, contention,
// executive) moved one prompt of real-fresh.jsonl the wrong way, and stay
// folded.
func apartStem(w string) (string, bool) {
	switch w {
	case "expression", "expressions":
		return "expression", true
	case "expressive", "expressiveness":
		return "expressiv", true
	case "puppeteer", "puppeteers":
		return "puppeteer", true
	case "important", "importance", "importantly":
		return "important", true
	case "responsive", "responsiveness":
		return "responsiv", true
	case "responsible", "responsibly", "responsibility", "responsibilities":
		return "responsibl", true
	case "several":
		return "several", true
	case "busy":
		return "busy", true
	}
	return "", false
}

// token is a term with the byte offset where it starts, for negation.
type token struct {
	text     string
	pos      int
	surface  string // as the prompt wrote it (lower-cased), for explanations
	compound bool   // a Han word its inner words tile (Term.Compound)
	from     string // another form of the word from (Term.From): the same evidence
	gapped   bool   // a dictionary word written with a gap (gaps.go)
}

// Tokenize cuts a prompt into query terms.
func (t *Tokenizer) Tokenize(text string) Query {
	return t.TokenizeText(NewText(text))
}

// TokenizeText cuts a normalised prompt into query terms.
func (t *Tokenizer) TokenizeText(p Text) Query {
	text := p.Lower
	toks := t.tokens(text, allPhrases)
	scopes := negationScopes(text)
	noise := p.pasted()
	terms := make([]Term, 0, 2*len(toks))
	for _, tk := range toks {
		tm := Term{Text: tk.text, Weight: 1, From: tk.from, Surface: tk.surface, Pos: tk.pos, End: tk.pos + len(tk.surface), Noise: inScopes(noise, tk.pos), Compound: tk.compound}
		if tk.gapped {
			tm.Weight = GappedWeight
		}
		if inScopes(scopes, tk.pos) {
			tm.Weight, tm.Negated = tm.Weight*NegatedWeight, true
		}
		terms = append(terms, tm)
	}
	terms = merge(terms)
	// Expand after all prompt terms are in, so that an expansion never
	// lowers a word the user typed.
	for i, n := 0, len(terms); i < n; i++ {
		tm := terms[i]
		for _, e := range t.syn.Expand(tm.Text) {
			terms = append(terms, Term{Text: e.Term, Weight: tm.Weight * e.Weight, From: tm.Text, Negated: tm.Negated, Surface: tm.Surface,
				Pos: tm.Pos, End: tm.End, Noise: tm.Noise})
		}
	}
	terms = t.translate(terms, text, scopes)
	return Query{Terms: merge(terms), Words: spelledWords(text)}
}

// merge sorts terms by text and keeps, of each text, the one with the
// highest weight (then one from the prose over one from pasted material,
// then the earliest source and position, so the result never depends on
// the order terms were found in).
func merge(terms []Term) []Term {
	// slices.SortFunc, not sort.Slice: the same pattern-defeating
	// quicksort, so the same order, without swapping through reflection
	// (2 % of BenchmarkRoute).
	slices.SortFunc(terms, func(a, b Term) int {
		switch {
		case a.Text != b.Text:
			return strings.Compare(a.Text, b.Text)
		case a.Weight != b.Weight:
			return -cmp.Compare(a.Weight, b.Weight)
		case a.Noise != b.Noise:
			if !a.Noise { // the prose's occurrence, not the pasted one
				return -1
			}
			return 1
		case a.From != b.From:
			return strings.Compare(a.From, b.From)
		}
		return cmp.Compare(a.Pos, b.Pos)
	})
	out := terms[:0] // compacts in place: out never passes the element read
	for _, tm := range terms {
		if len(out) == 0 || tm.Text != out[len(out)-1].Text {
			out = append(out, tm)
		}
	}
	return out
}

// Words cuts a skill's text (description, body) into index terms: single
// words and Chinese words, stop words dropped, no synonyms, and of the
// phrases only those the synonyms hold (see phrases.go).
func (t *Tokenizer) Words(text string) []string {
	toks := t.tokens(strings.ToLower(text), knownPhrases)
	out := make([]string, len(toks))
	for i, tk := range toks {
		out[i] = tk.text
	}
	return out
}

// Cap cuts s to its first MaxInput characters: how much of a prompt is
// read, and how much of one the feedback log keeps.
func Cap(s string) string {
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

// scanWords appends to locs the start and end of every match of wordRE in
// s, as wordRE.FindAllStringIndex would find them, without the regular
// expression engine: compiling a catalog spent a sixth of its time there
// (TestScanWords compares the two).
func scanWords(s string, locs [][2]int) [][2]int {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !IsWordRune(r) {
			i += size
			continue
		}
		start := i
		if end := skipRatio(s, i); end > i { // wordRE's first alternative wins where it matches
			i = end
			locs = append(locs, [2]int{start, i})
			continue
		}
		i = SkipWordRunes(s, i)
		for i < len(s) && strings.IndexByte("._-/'", s[i]) >= 0 {
			if j := SkipWordRunes(s, i+1); j > i+1 {
				i = j
				continue
			}
			break
		}
		for i < len(s) && (s[i] == '+' || s[i] == '#') {
			i++
		}
		locs = append(locs, [2]int{start, i})
	}
	return locs
}

// skipRatio returns the end of the ratio of numbers ("16:9") at i, or i
// when there is none: wordRE's \p{N}+:\p{N}+.
func skipRatio(s string, i int) int {
	j := skipNumberRunes(s, i)
	if j == i || j >= len(s) || s[j] != ':' {
		return i
	}
	k := skipNumberRunes(s, j+1)
	if k == j+1 {
		return i
	}
	return k
}

// skipNumberRunes returns the end of the run of \p{N} runes at i.
func skipNumberRunes(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !(r < utf8.RuneSelf && '0' <= r && r <= '9' || r >= utf8.RuneSelf && unicode.IsNumber(r)) {
			break
		}
		i += size
	}
	return i
}

// SkipWordRunes returns the end of the run of word runes (IsWordRune) at i.
func SkipWordRunes(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !IsWordRune(r) {
			break
		}
		i += size
	}
	return i
}

// IsWordRune reports whether r is a letter of the Latin script or a
// number: the runes an English word is made of ([\p{Latin}\p{N}]).
func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.Is(unicode.Latin, r) || unicode.IsNumber(r)
}

// tokens lists the terms of lower-cased text in order of position.
func (t *Tokenizer) tokens(text string, mode phraseMode) []token {
	var out []token
	if t.toks != nil {
		out = t.toks[:0] // a cached tokenizer's callers are done with the last text
	}
	start := 0
	runs := 0
	for start < len(text) {
		r, size := utf8.DecodeRuneInString(text[start:])
		end := start + size
		han := IsHan(r)
		runs++
		for end < len(text) {
			r2, s2 := utf8.DecodeRuneInString(text[end:])
			if IsHan(r2) != han {
				break
			}
			end += s2
		}
		if han {
			out = t.han(out, text[start:end], start)
			if mode == allPhrases {
				out = gappedWords(out, t.dict, text[start:end], start)
			}
		} else {
			out = t.latin(out, text[start:end], start, mode)
		}
		start = end
	}
	if runs > 1 {
		out = t.mixed(out, text) // a change of script: a mixed word may straddle it
	}
	if t.toks != nil {
		t.toks = out[:0]
	}
	return out
}

// latin adds the English words and phrases of a non-Han run.
func (t *Tokenizer) latin(out []token, run string, offset int, mode phraseMode) []token {
	var locs [][2]int
	if t.locs != nil {
		locs = scanWords(run, t.locs[:0])
		t.locs = locs[:0]
	} else {
		locs = scanWords(run, nil)
	}
	var known *phraseSet
	if mode == knownPhrases {
		if known = t.phrases(); known.empty() {
			mode = noPhrases
		}
	}
	// The phrase ending at the current word: the last maxPhraseWords
	// words, stop words among them. A fixed window, not a slice cut at
	// its front: re-growing one was an allocation every few words of a
	// skill's body.
	var win [maxPhraseWords]struct {
		stem string
		pos  int
		stop bool
	}
	n := 0
	for i, loc := range locs {
		w := run[loc[0]:loc[1]]
		pos := offset + loc[0]
		if i > 0 && strings.TrimSpace(run[locs[i-1][1]:loc[0]]) != "" {
			n = 0
		}
		sw := t.stem(strings.TrimSuffix(w, "'s"))
		if !isStopWord(w) && utf8.RuneCountInString(w) > 1 {
			out = append(out, token{text: sw, pos: pos, surface: w})
		}
		if strings.ContainsAny(w, "./-_") {
			at := 0 // where the part starts within w
			for _, part := range strings.FieldsFunc(w, isPartSeparator) {
				at += strings.Index(w[at:], part)
				if len(part) > 1 && !isStopWord(part) {
					out = append(out, token{text: t.stem(part), pos: pos + at, surface: part})
				}
				at += len(part)
			}
			// A skill named by its words ("test-driven-development")
			// keeps adjacent pairs of them as keywords ("test driven",
			// index/derive.go): a prompt's "test-driven" meets them so.
			// It is the word itself written apart, one piece of evidence
			// with it, as a synonym is: a skill holding both forms
			// ("vue-router", "vue router") counts them once.
			if mode == allPhrases {
				if p, ok := t.Spaced(w); ok {
					out = append(out, token{text: p, pos: pos, surface: w, from: sw})
				}
			}
		}
		if mode == noPhrases {
			continue
		}
		stop := isStopWord(w)
		// Two words written apart are often one word run together
		// elsewhere: "fail over" is "failover", "set up" "setup", "data
		// base" "database". The joined form meets the keyword either way.
		if mode == allPhrases && n > 0 && !win[n-1].stop && isLetters(w) && (!stop || particleWord(w)) {
			from := win[n-1].pos - offset
			if prev := run[from:locs[i-1][1]]; isLetters(prev) {
				out = append(out, token{text: t.stem(prev + w), pos: offset + from, surface: run[from:loc[1]]})
			}
		}
		if n == len(win) {
			copy(win[:], win[1:])
			n--
		}
		win[n].stem, win[n].pos, win[n].stop = sw, pos, stop
		n++
		// A phrase that starts or ends with a stop word ("and date") names
		// nothing a keyword could: skip it.
		if stop {
			continue
		}
		for k := n - 2; k >= 0; k-- {
			if win[k].stop {
				continue
			}
			var p string
			if mode == knownPhrases {
				var buf [64]byte
				b := buf[:0]
				for j := k; j < n; j++ {
					if j > k {
						b = append(b, ' ')
					}
					b = append(b, win[j].stem...)
				}
				if p = known.find(b); p == "" {
					continue
				}
			} else {
				p = win[k].stem
				for j := k + 1; j < n; j++ {
					p += " " + win[j].stem
				}
			}
			out = append(out, token{text: p, pos: win[k].pos, surface: run[win[k].pos-offset : loc[1]]})
		}
	}
	return out
}

// particleWord reports a stop word that ends a compound written apart
// ("set up", "log in", "fail over", "roll back").
func particleWord(w string) bool {
	switch w {
	case "up", "in", "out", "over", "down", "off", "on", "back":
		return true
	}
	return false
}

// isLetters reports a plain word of ASCII letters.
func isLetters(w string) bool {
	if w == "" {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

func isStopWord(w string) bool {
	return english.IsStopWord(w) || isContraction(w)
}

// isContraction reports a function word written with an apostrophe, which
// the Snowball stop list the english package uses holds only cut at it
// ("don", "t"): written whole, "can't" and "i'm" were terms, and met the
// bodies of skills whose prose uses them (NewText makes a typographic
// apostrophe the typed one first). The English auxiliaries and pronouns
// with their contracted forms, and "cannot". A switch, not a map: it
// costs the hook's start-up nothing, and a word without an apostrophe
// one byte search.
func isContraction(w string) bool {
	if strings.IndexByte(w, '\'') < 0 {
		return w == "cannot"
	}
	switch w {
	case "i'm", "you're", "he's", "she's", "it's", "we're", "they're", "i've", "you've", "we've", "they've",
		"i'd", "you'd", "he'd", "she'd", "we'd", "they'd", "i'll", "you'll", "he'll", "she'll", "it'll", "we'll", "they'll",
		"isn't", "aren't", "wasn't", "weren't", "hasn't", "haven't", "hadn't", "doesn't", "don't", "didn't", "won't", "wouldn't",
		"shan't", "shouldn't", "can't", "couldn't", "mustn't", "needn't", "let's", "that's", "who's", "what's", "here's",
		"there's", "when's", "where's", "why's", "how's":
		return true
	}
	return false
}

// IsStopWord reports an English stop word, one the tokenizer never makes a
// term of ("the", "other", "once").
func IsStopWord(w string) bool { return isStopWord(w) }

// IsFiller reports a Chinese word that is grammar rather than content: one
// that starts or ends with a function character ("一个", "我们") or a
// conversational word ("还是", "看看"). The tokenizer makes no window term
// of it.
func IsFiller(w string) bool {
	first, _ := utf8.DecodeRuneInString(w)
	last, _ := utf8.DecodeLastRuneInString(w)
	return isParticle(first) || isParticle(last) || isFiller(w)
}

// han adds the words of a run of Han characters.
// han adds the words of a run of Han characters, through the cache when
// there is one.
func (t *Tokenizer) han(out []token, run string, offset int) []token {
	if t.hans == nil {
		return t.cutHan(out, run, offset)
	}
	if cached, ok := t.hans[run]; ok {
		for _, tk := range cached {
			tk.pos += offset
			out = append(out, tk)
		}
		return out
	}
	if len(t.hans) >= cacheLimit {
		return t.cutHan(out, run, offset)
	}
	key := strings.Clone(run) // the cached tokens are slices of it
	from := len(out)
	out = t.cutHan(out, key, 0)
	t.hans[key] = slices.Clone(out[from:])
	for i := from; i < len(out); i++ {
		out[i].pos += offset
	}
	return out
}

// cutHan adds the words of a run of Han characters.
func (t *Tokenizer) cutHan(out []token, run string, offset int) []token {
	found := t.dictWords(run)
	covered := make([]bool, len(run)) // by byte
	for _, seg := range t.choose(run, found) {
		w := run[seg.from:seg.to]
		at := len(out)
		out = append(out, token{text: w, pos: offset + seg.from, surface: w})
		// The words the chosen one is made of, one level deep, as gse's
		// search mode gives them: "搜索引擎优化" also gives 搜索, 引擎, 优化,
		// but not 索引, which straddles two of its parts.
		var inner []span
		for _, f := range found {
			if f.from >= seg.from && f.to <= seg.to && f != seg {
				inner = append(inner, span{f.from - seg.from, f.to - seg.from})
			}
		}
		subs := t.choose(run[seg.from:seg.to], inner)
		for _, sub := range subs {
			w := run[seg.from+sub.from : seg.from+sub.to]
			out = append(out, token{text: w, pos: offset + seg.from + sub.from, surface: w})
		}
		out[at].compound = tiles(subs, seg.to-seg.from)
		for i := seg.from; i < seg.to; i++ {
			covered[i] = true
		}
	}
	// Windows over the stretches no dictionary word covers.
	var gap []int // byte offsets of the uncovered runes of one stretch, and its end
	flush := func(end int) {
		gap = append(gap, end)
		for a := 0; a+1 < len(gap); a++ {
			r, _ := utf8.DecodeRuneInString(run[gap[a]:])
			if isParticle(r) {
				continue
			}
			for n := minWindow; n <= maxWindow && a+n < len(gap); n++ {
				w := run[gap[a]:gap[a+n]] // a slice of the prompt: no allocation
				last, _ := utf8.DecodeLastRuneInString(w)
				if !isParticle(last) && !isFiller(w) {
					out = append(out, token{text: w, pos: offset + gap[a], surface: w})
				}
			}
		}
		gap = gap[:0]
	}
	for i := range run {
		if covered[i] {
			if len(gap) > 0 {
				flush(i)
			}
			continue
		}
		gap = append(gap, i)
	}
	if len(gap) > 0 {
		flush(len(run))
	}
	return out
}

// span is a stretch of a run, in bytes, to exclusive.
type span struct{ from, to int }

// tiles reports whether two or more spans, in order, cover 0..n end to
// end: a word made of words.
func tiles(spans []span, n int) bool {
	at := 0
	for _, s := range spans {
		if s.from != at {
			return false
		}
		at = s.to
	}
	return len(spans) > 1 && at == n
}

// dictWords lists the dictionary words that occur in run, ordered by
// start, then length. One binary search per position finds the words that
// start with its character; those are few, and each is checked as a prefix.
func (t *Tokenizer) dictWords(run string) []span { return findWords(t.dict, run) }

// findWords lists the words of dict that occur in run, as dictWords.
func findWords(dict table.Strings, run string) []span {
	var found []span
	for i := range run {
		prefixWords(dict, run[i:], func(w string) {
			found = append(found, span{i, i + len(w)}) // prefixes sort shortest first
		})
	}
	return found
}

// prefixWords calls fn with each word of dict that text starts with,
// shortest first: the words that share text's first character sort
// together, and among them a prefix of another sorts before it.
func prefixWords(dict table.Strings, text string, fn func(w string)) {
	if text == "" {
		return
	}
	first := text[:utf8.RuneLen(firstRune(text))]
	n := dict.Len()
	for k := sort.Search(n, func(k int) bool { return dict.At(k) >= first }); k < n; k++ {
		w := dict.At(k)
		if !strings.HasPrefix(w, first) {
			break
		}
		if strings.HasPrefix(text, w) {
			fn(w)
		}
	}
}

// choose picks the words of a segmentation of text among the found ones.
// When no two found words cross (each pair is apart or one holds the
// other), the longest words are the answer and gse would only confirm it:
// its shortest path, with frequencies that grow with length, takes the
// fewest, longest words. Only crossing words ("数据库" and "库存" in
// "数据库存储") need gse's choice. Measured: gse's per-prompt dictionary
// was a third of the tokenizer's allocations.
func (t *Tokenizer) choose(text string, found []span) []span {
	if len(found) == 0 {
		return nil
	}
	for i := range found {
		for j := i + 1; j < len(found) && found[j].from < found[i].to; j++ {
			if found[j].to > found[i].to { // starts inside i, ends beyond it
				return segmentWith(text, found)
			}
		}
	}
	var out []span
	for i, f := range found {
		inside := false
		for j, g := range found {
			if j != i && g.from <= f.from && f.to <= g.to && g != f {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, f)
		}
	}
	return out
}

// segmentWith segments text with the found words as its dictionary and
// keeps the segments that are dictionary words.
func segmentWith(text string, found []span) []span {
	words := make([]string, 0, len(found))
	for _, f := range found {
		words = append(words, text[f.from:f.to])
	}
	slices.Sort(words)
	words = slices.Compact(words)
	var out []span
	for _, seg := range segment(words, text) {
		if _, ok := slices.BinarySearch(words, text[seg.from:seg.to]); ok {
			out = append(out, seg)
		}
	}
	return out
}

// particles are function characters: a window that starts or ends with
// one ("我写", "一下", "怎么") is grammar, not a word, and would match every
// text that is written in Chinese.
const particles = "的了我你他她它们是在和与及把被吗呢吧啊呀个这那一也都就还想请帮给让么什哪怎很"

func isParticle(r rune) bool { return strings.ContainsRune(particles, r) }

// isFiller reports a conversational word that windows would otherwise
// make into a term ("有没有", "还是"): such words occur in any Chinese
// request and in any Chinese body text, so they only add noise.
// Dictionary words are never filtered: a skill that lists one as a
// keyword still matches it. A switch, not a map a process builds at its
// start.
func isFiller(w string) bool {
	switch w {
	case "有没有", "有没", "没有", "还是", "还有", "怎么样", "怎样", "为什么", "是不是", "能不能", "可不可以", "可以", "现在", "已经", "然后", "但是",
		"因为", "所以", "如果", "或者", "以及", "需要", "应该", "自己", "一些", "不是", "就是", "比如", "其实", "目前", "之前", "之后", "以后", "时候",
		"东西", "问题", "情况", "感觉", "觉得", "知道", "看看", "看下", "试试", "直接", "所有", "这些", "那些", "今天", "明天", "一直", "总是", "经常",
		"不要", "不用", "要用", "别用", "不想", "想要", "要不要", "会不会", "多少", "如何", "几个", "到底", "究竟":
		return true
	}
	return false
}

// segment cuts a run of Han characters into byte spans by gse's shortest
// path, with a dictionary of the given words only (sorted, unique), each
// at frequency 10 × its length in characters, so that the path prefers
// the longest dictionary words ("compound keywords first"). It computes
// what gse's Segmenter.Segment computes for that dictionary, step for
// step in the same float32 arithmetic (TestSegmentLikeGse), without
// building gse's dictionary and trie for each call: those were a sixth of
// a catalog compile's time and a quarter of its allocations.
//
// A word's cost is log2(total frequency) − log2(its frequency); a
// character no word starts with costs 32 on its own; each position keeps
// the cheapest way to end there, the first found on ties, a cost of 0
// counting as none yet, as gse's does.
func segment(words []string, run string) []span {
	offs := make([]int, 0, len(run)/3+1) // byte offset of each character, and the end
	for i := range run {
		offs = append(offs, i)
	}
	n := len(offs)
	offs = append(offs, len(run))
	total, longest := 0.0, 0
	for _, w := range words {
		c := utf8.RuneCountInString(w)
		total += float64(10 * c)
		longest = max(longest, c)
	}
	logTotal := float32(math.Log2(total))
	type jumper struct {
		cost  float32
		chars int // of the word that ends here on the cheapest path
	}
	jumpers := make([]jumper, n)
	update := func(j *jumper, cost float32, chars int) {
		if j.cost == 0 || j.cost > cost {
			j.cost, j.chars = cost, chars
		}
	}
	for cur := 0; cur < n; cur++ {
		var base float32
		if cur > 0 {
			base = jumpers[cur-1].cost
		}
		shortest := 0
		for c := 1; c <= longest && cur+c <= n; c++ {
			if _, ok := slices.BinarySearch(words, run[offs[cur]:offs[cur+c]]); ok {
				update(&jumpers[cur+c-1], base+(logTotal-float32(math.Log2(float64(10*c)))), c)
				if shortest == 0 {
					shortest = c
				}
			}
		}
		if shortest != 1 {
			update(&jumpers[cur], base+32, 1)
		}
	}
	var out []span
	for end := n - 1; end >= 0; {
		from := end - max(1, jumpers[end].chars) + 1 // every position is reached, by one character at least
		out = append(out, span{offs[from], offs[end+1]})
		end = from - 1
	}
	slices.Reverse(out)
	return out
}

func isAllHan(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !IsHan(r) {
			return false
		}
	}
	return true
}

// Spaced returns a lower-cased hyphenated word's parts as a normalised
// phrase ("test-driven" -> "test driven", "compile-time" -> "compil
// time"): the form a skill name's words take, and the one a prompt that
// writes the word apart is cut into. False for a word that is not such a
// compound.
func (t *Tokenizer) Spaced(w string) (string, bool) {
	parts := strings.Split(w, "-")
	if len(parts) < 2 || len(parts) > maxPhraseWords {
		return "", false
	}
	var b strings.Builder
	for i, part := range parts {
		if !isLetters(part) || len(part) < 2 || isStopWord(part) {
			return "", false
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t.stem(part))
	}
	return b.String(), true
}
