package glossary

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// Headword lengths kept, in characters. One character has too many senses
// to translate without context (库: warehouse, library, treasury); past
// six, entries are names of things no prompt types whole.
const (
	minHeadword = 2
	maxHeadword = 6
)

// MaxTranslations bounds the English terms kept per headword, in the
// dictionary's order of senses: a word with more technical senses than
// that is an umbrella word whose translation says little.
const MaxTranslations = 4

// maxGlossWords is the longest English gloss kept, in words: a longer one
// is a definition ("to split a screen into multiple sections ..."), not a
// term a skill would use.
const maxGlossWords = 3

// Evidence says how surely a word is technical.
type Evidence uint8

// Evidence levels. Curated text (keywords, synonyms, the dictionary's own
// computing labels) is strong; the prose of skill descriptions and bodies
// is weak: it holds technical words among everyday ones ("number", 其他).
const (
	None Evidence = iota
	Weak
	Strong
)

// Vocabulary is what the filter counts as technical, with the evidence for
// each word.
type Vocabulary struct {
	// English holds normalised English terms (tokenize.Normalize).
	English map[string]Evidence
	// chinese holds every Han substring of minHeadword to maxHeadword
	// characters of the technical Chinese texts.
	chinese map[string]Evidence
}

// NewVocabulary returns an empty vocabulary.
func NewVocabulary() *Vocabulary {
	return &Vocabulary{English: map[string]Evidence{}, chinese: map[string]Evidence{}}
}

// AddEnglish adds an English term, normalised, unless it is Han text or a
// stop word; normalised says it already is (as tokenizer output is:
// Porter2 of a stem may cut again).
func (v *Vocabulary) AddEnglish(term string, e Evidence, normalised bool) {
	n := term
	if !normalised {
		n = tokenize.Normalize(term)
	}
	if n == "" || tokenize.HanCount(n) > 0 || tokenize.IsStopWord(n) {
		return
	}
	v.English[n] = max(v.English[n], e)
}

// AddChineseWord records a curated Chinese word (a keyword, a synonym):
// strong evidence for itself as a headword, and weak evidence for the
// words inside it ("写一个函数" holds 一个, which is no technical word).
func (v *Vocabulary) AddChineseWord(w string) {
	w = strings.TrimSpace(strings.ToLower(w))
	v.AddChineseText(w, Weak)
	if tokenize.HanCount(w) > 0 {
		v.chinese[w] = Strong
	}
}

// AddChineseText records text in which Chinese technical words occur:
// a headword found in it is technical, with the given evidence.
func (v *Vocabulary) AddChineseText(text string, e Evidence) {
	var run []int // byte offsets of the current Han run, and its end
	flush := func(end int) {
		run = append(run, end)
		for a := 0; a+1 < len(run); a++ {
			for n := minHeadword; n <= maxHeadword && a+n < len(run); n++ {
				w := text[run[a]:run[a+n]]
				v.chinese[w] = max(v.chinese[w], e)
			}
		}
		run = run[:0]
	}
	for i, r := range text {
		if tokenize.IsHan(r) {
			run = append(run, i)
		} else if len(run) > 0 {
			flush(i)
		}
	}
	if len(run) > 0 {
		flush(len(text))
	}
}

// Chinese returns the evidence that a headword is technical.
func (v *Vocabulary) Chinese(w string) Evidence { return v.chinese[w] }

// AddSkills adds what the skills say: their keywords and the words of
// their names as strong evidence, on both sides; the words of their
// descriptions and trigger text, and the Chinese of their bodies and of
// the insides of keywords, as weak.
// English body words are left out: a playbook's prose ("first", "still",
// "make sure") is not vocabulary. Nor are situations, users' everyday
// words by design (Skill.TechnicalText leaves them out): taken in, they
// let 表现 (performance at work) through as "show" (TestFilter).
func (v *Vocabulary) AddSkills(cat *skills.Catalog, tok *tokenize.Tokenizer) {
	for i := range cat.Skills {
		s := &cat.Skills[i]
		for _, part := range strings.FieldsFunc(s.Name, func(r rune) bool { return r == '-' || r == '_' || r == ':' }) {
			v.AddEnglish(part, Strong, false)
		}
		for _, k := range s.Keywords {
			v.AddEnglish(k.Text, Strong, false)
			v.AddChineseWord(k.Text)
		}
		text := s.TechnicalText()
		for _, w := range tok.Words(text) {
			v.AddEnglish(w, Weak, true)
		}
		v.AddChineseText(text+"\n"+s.Body, Weak)
	}
}

// AddSynonyms adds the words of the curated synonym groups, as strong
// evidence: the groups' words and the concepts they imply. The words of a
// group that implies a concept are left out: they describe a user's
// situation in everyday words ("一层层传", "blind users"), as situations
// do, and taken in they let everyday senses through (TestFilter's 表现).
func (v *Vocabulary) AddSynonyms(groups []tokenize.SynonymGroup) {
	add := func(words []tokenize.SynonymWord) {
		for _, w := range words {
			v.AddEnglish(w.Text, Strong, false)
			v.AddChineseWord(w.Text)
		}
	}
	for _, g := range groups {
		if len(g.Implies) == 0 {
			add(g.Words)
		}
		add(g.Implies)
	}
}

// AddComputing adds the glosses of every sense CC-CEDICT labels as
// computing, as strong evidence: the dictionary's own computing word list.
func (v *Vocabulary) AddComputing(entries []Entry) {
	for _, e := range entries {
		for _, s := range e.Senses {
			for _, g := range Glosses(s) {
				if g.Computing {
					v.AddEnglish(g.Text, Strong, false)
				}
			}
		}
	}
}

// Pair is one glossary entry: a Chinese word and its English terms.
type Pair struct {
	Chinese string
	English []string // lower-cased, as the dictionary writes them
}

// falseFriends are translations the filter keeps by its rule and a
// developer never means by the Chinese word: both sides pass (the Chinese
// word occurs in the skills' texts, the English one is a keyword of some
// skill), but in another sense, so only a list can tell them apart.
// Tools' names: 反应 is a reaction, never React; 合成 combines, and as
// "compose" it met Docker Compose's keyword, so "git 里怎么把最近两个
// commit 合成一个？" went to a Docker skill (TestFilter). Words of code in
// another sense: 上线 (go live) read as "handler", 表示 and 声明 (to say)
// as "state", 发送 (send) as a GitHub "issue", 拖拽 (drag) as "pull", 安装
// as "fix", 录入 (data entry) as "type". Left out after the cap on
// translations: in their place the dictionary's next sense would be one
// more word the headword never means.
var falseFriends = map[string][]string{
	"反应":  {"react"},
	"表达":  {"express"},
	"表示":  {"express", "state", "expression"},
	"声明":  {"state"},
	"合成":  {"compose"},
	"组合":  {"compose"},
	"写作":  {"compose"},
	"触发":  {"spark"},
	"条纹":  {"stripe"},
	"机器人": {"android"},
	"休眠":  {"hibernate"},
	"要求":  {"request", "require"},
	"上线":  {"handler"},
	"发出":  {"issue"},
	"做出":  {"issue"},
	"发送":  {"issue"},
	"发布":  {"issue"},
	"拖拽":  {"pull"},
	"安装":  {"fix"},
	"导入":  {"channel", "lead"},
	"运作":  {"thread"},
	"线索":  {"thread"},
	"消耗":  {"mail", "message"},
	"指标":  {"index", "pointer"},
	"性能":  {"function", "behavior"},
	"运行":  {"function"},
	"作用":  {"function"},
	"行程":  {"process"},
	"路径":  {"method"},
	"流程":  {"stream"},
	"配置":  {"deploy"},
	"部署":  {"dispose"},
	"移动":  {"migration"},
	"行动":  {"mobile"},
	"锁定":  {"target"},
	"项目":  {"event"},
	"录入":  {"type"},
	"样式":  {"type"},
	"队列":  {"formation", "alignment"},
}

// Filter returns the technical pairs of the dictionary, sorted by the
// Chinese word. A gloss is kept when both sides are technical: the gloss
// is in the English vocabulary, and it is labelled computing or its
// headword occurs in the Chinese texts. Headwords that several entries
// share (different readings) are merged.
func Filter(entries []Entry, v *Vocabulary) []Pair {
	byWord := map[string][]string{}
	for _, e := range entries {
		w := e.Simplified
		if !headword(w) {
			continue
		}
		known := v.Chinese(w) != None
		for _, s := range e.Senses {
			for _, g := range Glosses(s) {
				if v.English[tokenize.Normalize(g.Text)] == None || !known && !g.Computing {
					continue
				}
				if !slices.Contains(byWord[w], g.Text) && len(byWord[w]) < MaxTranslations {
					byWord[w] = append(byWord[w], g.Text)
				}
			}
		}
	}
	out := make([]Pair, 0, len(byWord))
	for w, en := range byWord {
		// A false friend is left out after the cap: in its place, the
		// dictionary's next sense ("compilation" after 组合's "compose")
		// would be one more word the headword never means.
		en = slices.DeleteFunc(en, func(g string) bool { return slices.Contains(falseFriends[w], g) })
		if len(en) > 0 {
			out = append(out, Pair{Chinese: w, English: en})
		}
	}
	slices.SortFunc(out, func(a, b Pair) int { return strings.Compare(a.Chinese, b.Chinese) })
	return out
}

// headword reports whether a simplified headword may enter the glossary.
func headword(w string) bool {
	n := utf8.RuneCountInString(w)
	return n >= minHeadword && n <= maxHeadword && tokenize.HanCount(w) == n && !tokenize.IsFiller(w)
}

// computingRE finds a subject label that marks a gloss as technical,
// before it ("(computing) to load", "(software) patch") or after it ("log
// (computing)", "routing (in computer networks)", "module (in
// software)"). "Internet slang" is not one: it labels chat words.
var computingRE = regexp.MustCompile(`\((?:in )?(?:computing|programming|statistics|Internet|computer[^)]*|software[^)]*)\)`)

// Cross-references and grammar notes are no translation.
var notGloss = regexp.MustCompile(`variant of|\bsee\b|\bCL:|abbr\.|surname|classifier|\bused in\b|also written|also pr\.|[|\[\]]`)

// termRE is an English term the glossary keeps: up to maxGlossWords words
// of letters and digits with their inner connectors ("read-only", "c++",
// "i/o").
var termRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.+#'/-]*( [a-z0-9][a-z0-9.+#'/-]*){0,` + strconv.Itoa(maxGlossWords-1) + `}$`)

// acronymRE is an abbreviation CC-CEDICT adds in parentheses: "central
// processing unit (CPU)", "infrastructure as a service (IaaS)".
var acronymRE = regexp.MustCompile(`\(([A-Za-z0-9]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)\)`)

// Gloss is one English term of a sense.
type Gloss struct {
	Text      string // lower-cased
	Computing bool   // CC-CEDICT labels it as computing
}

// Glosses returns the English terms of one sense: its alternatives (split
// at ";"), without labels, remarks in parentheses, a leading "to " or
// article, lower-cased; plus the acronyms it gives in parentheses.
// Definitions, cross-references and notes are dropped. An alternative is
// computing when it carries the label, or when it has no label of its own
// and the sense opens with it: in "(computing) slow; unresponsive" both
// are, in "(news) anchor; (Internet) streamer" only the second.
func Glosses(sense string) []Gloss {
	var out []Gloss
	add := func(g string, computing bool) {
		if !termRE.MatchString(g) || tokenize.IsStopWord(g) {
			return
		}
		for i := range out {
			if out[i].Text == g {
				out[i].Computing = out[i].Computing || computing
				return
			}
		}
		out = append(out, Gloss{g, computing})
	}
	alts := strings.Split(sense, ";")
	opens := computingRE.FindStringIndex(alts[0])
	scoped := opens != nil && strings.TrimSpace(alts[0][:opens[0]]) == ""
	for _, alt := range alts {
		if notGloss.MatchString(alt) {
			continue
		}
		computing := computingRE.MatchString(alt) || scoped && !strings.HasPrefix(strings.TrimSpace(alt), "(")
		for _, m := range acronymRE.FindAllStringSubmatch(alt, -1) {
			if len(m[1]) <= 8 {
				add(strings.ToLower(m[1]), computing)
			}
		}
		g := strings.ToLower(strings.Join(strings.Fields(removeParens(alt)), " "))
		g = strings.Trim(g, " .,!?\"")
		for _, prefix := range []string{"to ", "a ", "an ", "the "} {
			g = strings.TrimPrefix(g, prefix)
		}
		add(g, computing)
	}
	return out
}

// removeParens drops every parenthesised stretch, nested ones included.
func removeParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}
