package tokenize

import "strings"

// A skill's text is indexed by its words, not its phrases: every pair of
// adjacent words would double a body's postings for pairs no prompt
// names. The phrases the synonyms hold are the exception. They name one
// thing ("screen reader", "primary key", "skeleton screen"), and a prompt
// reaches them by expansion, often from Chinese (读屏软件, 主键, 骨架屏):
// matched as words, "screen" and "reader" meet every skill that mentions
// a screen, while the phrase meets the skill about it. On real-dev,
// indexing these phrases in skills' texts took top-1 from 0.816 to 0.832
// and Chinese prompts from 0.667 to 0.733. Every pair and triple of
// adjacent words instead did no better there, and worse elsewhere (fresh
// 0.944 to 0.939, action accuracy 0.892 to 0.875).
type phraseMode uint8

const (
	noPhrases    phraseMode = iota
	knownPhrases            // a skill's text: the phrases of the vocabulary
	allPhrases              // a prompt: every phrase, and words written apart joined
)

// phraseSet is the phrase vocabulary of a synonym table, normalised. Not
// the glossary's: which of its entries an index keeps depends on the
// terms the catalog's texts are cut into (CompileGlossary), so it is made
// after them.
type phraseSet map[string]string

func newPhraseSet(syn *Synonyms) *phraseSet {
	p := phraseSet{}
	for _, w := range syn.WordList() {
		if strings.IndexByte(w, ' ') >= 0 {
			p[w] = w
		}
	}
	return &p
}

func (p *phraseSet) empty() bool { return len(*p) == 0 }

// find returns the phrase spelled by b, or "" if the set lacks it. The
// map is looked up by b's bytes, with no string made (the compiler's
// map[string(b)] form): most pairs of a body's words are no phrase.
func (p *phraseSet) find(b []byte) string { return (*p)[string(b)] }
