package index

import (
	_ "embed"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// Most skills users have carry only a name and a description. For them the
// index derives keywords from the text, with the same tokenizer that cuts
// prompts, and weighs each by how distinctive it is of the skill, learned
// from the catalog, not by where it stands: a word that many skills' texts
// use ("write", "test", "pattern", "time", "server") tells no skill from
// the others, even when it is part of a skill's name.
//
// A word's distinctiveness for a skill is the square root of the skill's
// share of the word's use, measured as a rate: its uses per word of the
// skill's whole text (description, when_to_use and body) over the sum of
// its rates in every skill's text and in the project's generic developer
// text (generic.txt, counted as genericWeight texts), which stands for the
// words every developer uses and keeps them common in a catalog of three
// skills too. A word only one skill uses scores 1; "debug", 39 of
// debugging-strategies' 1,246 words and 23 uses in twelve other skills,
// 0.64; "write" in postmortem-writing, 5 of its 646 words, 0.27 (0.29
// with the generic text counted once). The square root keeps a word two
// skills share equally (0.71) well above one ten share (0.32).
// Rates, not counts: a long playbook uses every common word more often,
// and counted by uses the longest skills of a catalog took common words
// for their keywords; by rates, real-dev's top-1 rose from 84.8 to 85.6 %
// (its Chinese prompts 75.6 to 77.8 %), the other sets unchanged.
//
// A keyword's weight is its source's weight times its distinctiveness:
//
//   - the skill's name, its words and adjacent word pairs ("cold email"),
//     and phrases the author quoted as triggers ("page loads slowly",
//     「接口很慢」): NameWeight;
//   - the description's words, the words of a quoted phrase, and a
//     hyphenated word written apart ("compile-time" as "compil time",
//     the phrase a prompt that writes it apart is cut into:
//     TestDerivedHyphenatedWordMeetsSpacedPrompt): DescriptionWordWeight;
//
// and its tier, for explanations, follows from the weight (TierOf). Words
// whose distinctiveness falls below minDistinctive become no keyword at
// all: the text fields still hold them, at their low field weight.

// Derived keyword weights. A name or quoted phrase is what the author
// called the skill: a distinctive one is worth a written core keyword
// (1.0). A description word is worth a written strong keyword (0.7) at
// most, the tiers of the seed's design.
const (
	NameWeight            = 1.0
	DescriptionWordWeight = 0.7
)

// minDistinctive is the distinctiveness under which a word becomes no
// keyword: a skill's share of the word's uses under 9 %, as when a dozen
// skills use it alike, which says next to nothing about which is meant.
// Cross-validated over the dev sets (5-fold by query hash) among 0.2 to
// 0.4: four folds of five chose 0.3.
const minDistinctive = 0.3

// genericNameWords are name parts that say nothing about the task.
var genericNameWords = map[string]bool{
	"expert": true, "pro": true, "skill": true, "specialist": true, "master": true,
	"wizard": true, "helper": true, "assistant": true, "guardian": true, "builder": true,
}

// triggerWording is the wording skill descriptions share to say when a
// skill applies rather than what it does ("use this whenever the user
// wants anything involving PDFs, or mentions a deck, even if ..."): never
// a keyword of the skill whose description says it. In a catalog of a
// few dozen plain skills, where only some descriptions use them, such
// words passed as distinctive: in a catalog of 29 published skills, pdf
// took "want" and "anyth" (anything) as keywords, and a prompt asking to
// talk through a settings page's dark mode before writing anything went
// to pdf at HIGH (confidence 0.61; without them 0.55, MEDIUM). Normalised
// on first use.
var triggerWording = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`use used uses using whenever want wants wanted need needs needed
		ask asks asked mention mentions mentioned anything something everything also even
		especially e.g i.e etc involve involves involving regardless elsewhere afterward
		afterwards whether way ways kind kinds sort sorts well one seem seems general generally
		explicitly including includes`) {
		m[tokenize.Normalize(w)] = true
	}
	return m
})

// quotedRE finds quoted trigger phrases in ASCII, typographic or CJK quotes.
// Compiled on first use: only compilation needs it, and its bounded
// repetitions made it the costliest start-up work of the hook (0.36 ms).
var quotedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("\"([^\"\n]{2,60})\"|“([^”\n]{2,60})”|「([^」\n]{2,60})」|『([^』\n]{2,60})』|`([^`\n]{2,60})`")
})

//go:embed generic.txt
var genericText string

// GenericPrompts returns the project's generic developer text, one
// prompt a line: questions, small talk and vague asks that need no skill.
func GenericPrompts() []string {
	var out []string
	for _, line := range strings.Split(genericText, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

type deriver struct {
	counts []map[string]int   // per skill: uses of each word and adjacent pair in its text
	length []int              // per skill: words in its text
	rate   map[string]float64 // sum over every skill's text and the generic text of uses per word
}

// newDeriver returns a deriver for n skills, which counts the generic
// text's words, as one text; add counts each skill's.
func newDeriver(n int, tok *tokenize.Tokenizer) *deriver {
	d := &deriver{counts: make([]map[string]int, n), length: make([]int, n), rate: map[string]float64{}}
	generic := map[string]int{}
	words := 0
	for _, line := range GenericPrompts() {
		w := tok.Words(line)
		words += len(w)
		count(w, generic)
	}
	d.addRates(generic, words, genericWeight)
	return d
}

// genericWeight is how many skills' texts the generic text counts as: a
// word developers use in any question ("explain", in 9 of its 282
// prompts; "difference", "write") is common however few skills' texts
// use it. Counted as one, a skill named explain that uses the word twice
// in 300 words took it as a strong keyword, and "explain what a closure
// is" routed to it; at 8 it is an extended one
// (TestDerivedQuestionWordIsNoStrongKeyword). Cross-validated by hash
// halves (eval --split 2) over the plain-catalog sets, real-dev,
// real-fresh, real-fresh2, train-real and train-noisy3, among 1, 2, 4, 8
// and 16: prompts right 320/311 at 1, 322/311 at 8, 321/311 at 4 and at
// 16; the first half chose 8, the second ties. The built-in catalog
// writes its keywords and does not move.
const genericWeight = 8

// add counts the uses of every word and adjacent pair in skill i's words
// (description, then body).
func (d *deriver) add(i int, words [2][]string) {
	d.counts[i] = map[string]int{}
	all := append(words[0][:len(words[0]):len(words[0])], words[1]...)
	count(all, d.counts[i])
	d.length[i] = max(1, len(all))
	d.addRates(d.counts[i], d.length[i], 1)
}

// addRates adds to the rates the uses of one text of n words, counted as
// many texts (none when counts is empty, so n is never 0 here).
func (d *deriver) addRates(counts map[string]int, n int, many float64) {
	for w, c := range counts {
		d.rate[w] += many * float64(c) / float64(n)
	}
}

// count adds the uses of words and their adjacent pairs to into.
func count(words []string, into map[string]int) {
	for i, w := range words {
		into[w]++
		if i > 0 {
			into[words[i-1]+" "+w]++
		}
	}
}

// distinctive is the distinctiveness of a word, or of an adjacent pair
// of normalised words, for skill i. A name's word or pair that its own
// text never writes counts as used once there.
func (d *deriver) distinctive(i int, term string) float64 {
	n := float64(d.length[i]) // at least 1 (add)
	own := float64(max(1, d.counts[i][term])) / n
	all := d.rate[term] - float64(d.counts[i][term])/n + own
	return math.Sqrt(own / all)
}

// phraseDistinctive is the distinctiveness of a phrase of normalised
// words: that of its least shared adjacent pair, and never less than that
// of its most distinctive word.
func (d *deriver) phraseDistinctive(i int, words []string) float64 {
	best := 0.0
	for j, w := range words {
		best = max(best, d.distinctive(i, w))
		if j > 0 {
			best = max(best, d.distinctive(i, words[j-1]+" "+w))
		}
	}
	return best
}

// dottedNames returns the dotted names among a text's words ("next.js",
// "socket.io", "package.json", as the tokenizer keeps them whole), each
// once, and how many times each word (as tok cuts it) heads one. Only the
// head: it is the part that may be an English word; the tail ("js",
// "io") says what the thing is, and as a keyword it told Node.js apart
// from Next.js on real-dev.
func dottedNames(tok *tokenize.Tokenizer, words []string) ([]string, map[string]int) {
	var names []string
	var inside map[string]int
	for _, w := range words {
		dot := strings.IndexByte(w, '.')
		if dot < 2 || dot == len(w)-1 {
			continue // no dot, or "e.g"
		}
		if inside == nil {
			inside = map[string]int{}
		}
		for _, h := range tok.Words(w[:dot]) {
			inside[h]++
		}
		if !slices.Contains(names, w) {
			names = append(names, w)
		}
	}
	return names, inside
}

// notCompoundRune reports a rune no hyphenated word holds.
func notCompoundRune(r rune) bool { return notWordRune(r) && r != '-' }

// notWordRune reports a rune no word starts or ends with.
func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// TierOf is the tier a derived keyword's weight reads as: core from 0.85
// (a distinctive name word or phrase), strong from 0.5, extended below.
func TierOf(weight float64) skills.Tier {
	switch {
	case weight >= 0.85:
		return skills.Core
	case weight >= 0.5:
		return skills.Strong
	default:
		return skills.Extended
	}
}

// derive returns weighted keywords for skill i from its name and
// description, cutting quoted phrases with tok (the deriver's own, or a
// worker's copy of it). Safe for concurrent use once every skill is added.
func (d *deriver) derive(tok *tokenize.Tokenizer, i int, s *skills.Skill, descWords []string) []skills.Keyword {
	var out []skills.Keyword
	pos := map[string]int{}
	// Keywords are returned normalised, as the index stores them:
	// Normalize is not idempotent (Porter2 of a stem may cut again), so
	// words that come from the tokenizer must not pass through it twice.
	add := func(norm string, weight float64) {
		if !strings.ContainsFunc(norm, unicode.IsLetter) {
			return // "", or a number: "10 pre-set themes" is not about 10
		}
		if i, ok := pos[norm]; ok {
			if weight > out[i].Weight {
				out[i].Weight, out[i].Tier = weight, TierOf(weight)
			}
			return
		}
		pos[norm] = len(out)
		out = append(out, skills.Keyword{Text: norm, Tier: TierOf(weight), Weight: weight})
	}
	keep := func(dist float64) bool { return dist >= minDistinctive }
	var name []string
	for _, part := range strings.FieldsFunc(strings.ToLower(s.Name), func(r rune) bool {
		return r == '-' || r == '_' || r == ':' || r == ' '
	}) {
		if len(part) > 1 && !genericNameWords[part] && !tokenize.IsStopWord(part) {
			name = append(name, tokenize.Normalize(part))
		}
	}
	for j, w := range name {
		if dist := d.distinctive(i, w); keep(dist) {
			add(w, NameWeight*dist)
		}
		if j > 0 {
			if dist := d.phraseDistinctive(i, name[j-1:j+1]); keep(dist) {
				add(name[j-1]+" "+w, NameWeight*dist)
			}
		}
	}
	text := s.Text()
	for _, m := range quotedRE().FindAllStringSubmatch(text, -1) {
		for _, g := range m[1:] {
			// Punctuation the quotes took in ("slides," "deck,") is no
			// part of the trigger: a prompt never writes it so.
			if g = strings.TrimFunc(g, notWordRune); g == "" {
				continue
			}
			words := tok.Words(g)
			// A quoted phrase is a trigger the author chose: it counts
			// whole when its words together are distinctive. A long one
			// rarely recurs whole, so its words count too.
			if dist := d.phraseDistinctive(i, words); keep(dist) {
				trigger := tokenize.Normalize(g)
				if len(words) == 1 {
					trigger = words[0] // as the tokenizer cuts it: the form a prompt's term takes
				}
				add(trigger, NameWeight*dist)
			}
			for _, w := range words {
				if dist := d.distinctive(i, w); keep(dist) && !triggerWording()[w] {
					add(w, DescriptionWordWeight*dist)
				}
			}
		}
	}
	// A word the text only writes at the head of a dotted name ("next" of
	// Next.js, "node" of Node.js, "chart" of Chart.js) is an extended
	// keyword at most: users write "node" for Node.js, but "what should I
	// do next?" went to a Next.js skill on its strong keyword "next"
	// (TestDottedNameKeyword); a match on an extended keyword alone is
	// thin (router). The name is a keyword at the weight its words have.
	names, inside := dottedNames(tok, descWords)
	var uses map[string]int
	if inside != nil {
		uses = map[string]int{}
		for _, w := range descWords {
			uses[w]++
		}
	}
	for _, w := range descWords {
		if dist := d.distinctive(i, w); keep(dist) && !triggerWording()[w] {
			weight := DescriptionWordWeight
			if inside[w] > 0 && inside[w] >= uses[w] {
				weight = skills.ExtendedWeight
			}
			add(w, weight*dist)
		}
	}
	for _, name := range names {
		if dist := d.phraseDistinctive(i, tok.Words(name)); keep(dist) {
			add(name, DescriptionWordWeight*dist)
		}
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), notCompoundRune) {
		if p, ok := tok.Spaced(strings.Trim(w, "-")); ok {
			if dist := d.distinctive(i, p); keep(dist) {
				add(p, DescriptionWordWeight*dist)
			}
		}
	}
	return out
}
