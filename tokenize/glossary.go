package tokenize

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/skillroute/skillroute/internal/table"
	"gopkg.in/yaml.v3"
)

// GlossaryWeight is the weight of a term that a glossary translation adds
// to a query: below a word of the prompt's own, as a dictionary
// translation is made without context (接口 is an API endpoint or a type's
// interface), and no higher than a curated synonym (SynonymWeight); a word
// the synonyms translate takes no glossary translation, so the two never
// add up. Fitted by 2-fold cross-validation over the real-dev prompts
// (`skillroute eval --split 2`), once the quiet stage kept no-skill
// questions silent: top-1 per fold 0.727/0.729 at 0.4, 0.727/0.746 at
// 0.5, 0.742/0.780 at 0.6, 0.742/0.763 at 0.8; both folds choose 0.6.
// No-skill prompts stay 88 % silent at every value; dev.jsonl, the fresh
// set and the sessions do not move, and bookworm's golden-dev rises from
// 0.861 to 0.870.
const GlossaryWeight = 0.6

// GlossaryFile is a bilingual glossary as written (rules/glossary.yaml):
// Chinese words and the English terms they translate to.
type GlossaryFile struct {
	Name    string
	Entries map[string][]string // Chinese word -> English terms, as written
	Hash    string              // sha256 of the file, for index fingerprints
}

// Words returns the glossary's Chinese words (none for a nil glossary)
// but fillers (IsFiller): they are words of the language, and an index
// segments with them besides its keywords and synonyms (index.Compile),
// where a filler would escape the window filter as a dictionary word
// (多少, "how many", glossed "number").
func (f *GlossaryFile) Words() []string {
	if f == nil {
		return nil
	}
	out := make([]string, 0, len(f.Entries))
	for w := range f.Entries {
		if !IsFiller(w) {
			out = append(out, w)
		}
	}
	return out
}

// ParseGlossary reads a glossary file. A key that is not a Chinese word,
// or an entry without an English term, is an error naming the entry.
func ParseGlossary(name string, data []byte) (*GlossaryFile, error) {
	var f struct {
		Source  yaml.Node           `yaml:"source"` // where it was made from, any fields
		Entries map[string][]string `yaml:"entries"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true) // "entry:" would read as an empty glossary
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %s", name, goTypeName.ReplaceAllString(err.Error(), ""))
	}
	for zh, en := range f.Entries {
		if !isAllHan(zh) {
			return nil, fmt.Errorf("%s: entry %q: the key must be a Chinese word", name, zh)
		}
		if len(en) == 0 || slices.Contains(en, "") {
			return nil, fmt.Errorf("%s: entry %s: needs English terms, none empty", name, zh)
		}
	}
	sum := sha256.Sum256(data)
	return &GlossaryFile{Name: name, Entries: f.Entries, Hash: hex.EncodeToString(sum[:])}, nil
}

// Glossary is a glossary compiled for one index: Chinese words to the
// index's English terms, English terms to its Chinese ones, stored flat
// like Synonyms: Mates[Start[i]:Start[i+1]] are the word ids that
// Words.At(i) translates to. Han words sort after the English ones, so one
// table serves both directions.
type Glossary struct {
	Words table.Strings // normalised English terms and Chinese words, sorted
	Start []uint32
	Mates []uint32
}

// MaxReach is how many translations of a Chinese word an index keeps: the
// first ones, in the dictionary's order of senses, that reach its terms.
// A prompt word counts once per skill however many of its translations
// meet it, so later senses mostly add postings to walk (BenchmarkRoute).
// Two, not one: the first sense the filter admits is not always the
// technical one (部署: dispose, deploy). On the tuning half of real-dev
// two route as four do, and one as two.
const MaxReach = 2

// CompileGlossary keeps of f the translations that can matter to an index:
// those whose target is an index term (reaches reports one), MaxReach of
// them per Chinese word. A filler (IsFiller) is not translated: it is no
// term in the prompt either. A Chinese word that the index has as a keyword
// (listed reports one) is not translated: the catalog's authors said which
// skills it belongs to, and its translation would mostly meet the same
// skills again, at a cost (BenchmarkRoute). The glossary is merged with
// the synonyms in use: a word that a synonym group already translates (a
// Chinese word with an English group-mate, or the reverse) takes its
// translations from the group alone, since the curated groups were written
// with the senses this router needs (接口 is an API, not a type's
// interface). The glossary also carries, for a Chinese synonym whose
// English group-mates are phrases, the words of those phrases that a
// plain skill's text holds (phraseWords). Returns nil when nothing is
// left.
func CompileGlossary(f *GlossaryFile, reaches, listed func(term string) bool, syn *Synonyms) *Glossary {
	out := map[string][]string{}
	add := func(from, to string) {
		if from != to && !slices.Contains(out[from], to) {
			out[from] = append(out[from], to)
		}
	}
	phraseWords(syn, reaches, add)
	var entries map[string][]string
	if f != nil {
		entries = f.Entries
	}
	for zh, ens := range entries {
		zh = strings.ToLower(zh)
		toEnglish := !translates(syn, zh, false) && !listed(zh) && !IsFiller(zh)
		used := 0
		for _, en := range ens {
			n := Normalize(en)
			if n == "" {
				continue
			}
			if toEnglish && used < MaxReach {
				// The English a user would type: the term, and the words
				// of a phrase ("状态管理": "state management", "state",
				// "management"); BM25 counts one of them per skill.
				targets := []string{n}
				if words := strings.Fields(n); len(words) > 1 {
					targets = append(targets, words...)
				}
				reached := false
				for _, to := range targets {
					if !isStopWord(to) && reaches(to) {
						add(zh, to)
						reached = true
					}
				}
				if reached {
					used++
				}
			}
			if reaches(zh) && !translates(syn, n, true) {
				add(n, zh)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	words := make([]string, 0, len(out))
	seen := map[string]bool{}
	for from, tos := range out {
		for _, w := range append([]string{from}, tos...) {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	sort.Strings(words)
	g := &Glossary{Words: table.New(words)}
	for _, w := range words {
		g.Start = append(g.Start, uint32(len(g.Mates)))
		tos := out[w]
		sort.Strings(tos)
		for _, to := range tos {
			g.Mates = append(g.Mates, uint32(g.Words.Find(to)))
		}
	}
	g.Start = append(g.Start, uint32(len(g.Mates)))
	return g
}

// phraseWords adds, for each Chinese word of a synonym group, the words of
// its English group-mates that are phrases the index does not hold whole.
// A plain skill's description and body are indexed word by word, so the
// expansion 读屏 -> "screen reader" would meet only skills that list the
// phrase as a keyword, never a body that says "screen reader"; its words
// do, counted once per skill with the rest of the prompt word's
// translations (bm25 packs one match per prompt word). A phrase the index
// holds is left to the synonym expansion alone, and so is a Chinese word
// the index holds itself (a catalog with Chinese keywords meets it
// directly: in the sessions' flutter session 状态管理's "state" and
// "management" drew the turn to other skills), and a word whose
// group has a one-word English mate the index holds (后端: "backend"): the
// phrase's other words ("backend development": "develop") would only add
// generic evidence (the fresh set's 后端日志 prompt went to a skill whose
// body says "develop").
func phraseWords(syn *Synonyms, reaches func(string) bool, add func(from, to string)) {
	for _, zh := range syn.WordList() {
		if HanCount(zh) == 0 || reaches(zh) {
			continue
		}
		mates := syn.Expand(zh)
		if slices.ContainsFunc(mates, func(e Expansion) bool {
			return HanCount(e.Term) == 0 && !strings.Contains(e.Term, " ") && reaches(e.Term)
		}) {
			continue
		}
		for _, e := range mates {
			words := slices.DeleteFunc(strings.Fields(e.Term), isStopWord)
			if len(words) < 2 || HanCount(e.Term) > 0 || reaches(e.Term) || !allReach(words, reaches) {
				continue
			}
			for _, w := range words {
				add(zh, w)
			}
		}
	}
}

// allReach reports whether every word reaches the index. A phrase whose
// words the catalog does not all use is not written there in pieces
// either, and its other words are generic ones ("disk space" in a catalog
// without "disk": "space"; the actions set's 磁盘 question went to a
// pricing skill).
func allReach(words []string, reaches func(string) bool) bool {
	for _, w := range words {
		if !reaches(w) {
			return false
		}
	}
	return true
}

// translates reports whether a synonym group gives word a mate in the
// other language: a Han one for an English word (toHan), else an English
// one.
func translates(syn *Synonyms, word string, toHan bool) bool {
	for _, e := range syn.Expand(word) {
		if (HanCount(e.Term) > 0) == toHan {
			return true
		}
	}
	return false
}

// Len returns the number of words in the glossary.
func (g *Glossary) Len() int {
	if g == nil {
		return 0
	}
	return g.Words.Len()
}

// Translate calls fn with each term that the normalised word translates to.
func (g *Glossary) Translate(word string, fn func(term string)) {
	if g == nil {
		return
	}
	if i := g.Words.Find(word); i >= 0 {
		from, to := mates(g.Start, i, len(g.Mates))
		for m := from; m < to; m++ {
			if mate := int(g.Mates[m]); mate < g.Words.Len() { // else damaged (see mates)
				fn(g.Words.At(mate))
			}
		}
	}
}

// glossaryWords returns the glossary's Chinese words in a run of Han
// text by forward maximum matching: at each position the longest glossary
// word that starts there, then on past it. "数据库连接池" gives 数据库 and
// 连接池, never the 数据 inside the first; "数据库存储" gives 数据库 and
// 存储, never the 库存 across them. No gse: the glossary's words are not
// the segmentation dictionary, and a translation needs no finer choice.
func (t *Tokenizer) glossaryWords(run string) []span {
	var out []span
	for i := 0; i < len(run); {
		_, size := utf8.DecodeRuneInString(run[i:])
		longest := 0
		prefixWords(t.gloss.Words, run[i:], func(w string) { longest = len(w) }) // the last is the longest
		if longest > size {                                                      // a single character is no glossary word
			out = append(out, span{i, i + longest})
			i += longest
			continue
		}
		i += size
	}
	return out
}

// translate adds the glossary's translations of the prompt's words: of
// English terms (words and phrases), through the table; of Chinese text,
// by finding the glossary's words in each Han run, since the tokenizer's
// own cut (windows, the index's dictionary) need not contain them.
func (t *Tokenizer) translate(terms []Term, text string, scopes []scope) []Term {
	if t.gloss.Len() == 0 {
		return terms
	}
	n := len(terms)
	for i := 0; i < n; i++ {
		tm := terms[i]
		if tm.From != "" || tm.Text == "" || IsHan(firstRune(tm.Text)) {
			continue
		}
		t.gloss.Translate(tm.Text, func(to string) {
			terms = append(terms, Term{Text: to, Weight: tm.Weight * GlossaryWeight, From: tm.Text, Negated: tm.Negated, Surface: tm.Surface, Pos: tm.Pos, End: tm.End, Noise: tm.Noise})
		})
	}
	for start, end := range hanRuns(text) {
		run := text[start:end]
		for _, sp := range t.glossaryWords(run) {
			w := run[sp.from:sp.to]
			weight, negated := GlossaryWeight, inScopes(scopes, start+sp.from)
			if negated {
				weight *= NegatedWeight
			}
			t.gloss.Translate(w, func(to string) {
				terms = append(terms, Term{Text: to, Weight: weight, From: w, Negated: negated, Surface: w, Pos: start + sp.from, End: start + sp.to})
			})
		}
	}
	return terms
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}
