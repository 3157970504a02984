package recall

import (
	_ "embed"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// Memories and tools are retrieved as skills are: each is compiled as a
// small document (its name, its text as the description field, keyword
// tiers derived from that text, so the words few documents share weigh
// most) into an index.Index, and a prompt is scored against them with
// BM25. What differs is how a score becomes a confidence. A skill's
// curated keywords make one clear hit a sure sign; a fact's text is prose,
// and a prompt meets a few of its words by chance ("port", "staging").
// So a hit's confidence asks two things: how strong the match is (its
// score against MatchScale), and how much of what the prompt is about
// the document covers (the IDF-weighted share of the prompt's own words
// it matched). A question about the staging database's host and port
// covers most of itself with the staging-Postgres fact; a deploy request
// that mentions "staging" once does not.

// MatchScale is the BM25 score at which a hit's strength reaches
// 1 − 1/e ≈ 0.63: about two distinctive words of a fact, or one word and
// its synonym, in the 25-fact and 15-tool fixtures of the action dev set.
const MatchScale = 2.0

// CoverageFloor keeps part of the strength when a prompt covers little of
// itself with a hit: a long prompt about a task may need a fact it names
// in passing ("…, consistent with the rest of the web app").
const CoverageFloor = 0.35

// Doc is one retrievable document: a memory or a tool.
type Doc struct {
	Name string // memory id or tool name
	Text string // the fact, or the tool's description
	// Meta is the rest of the memory or tool, kept in the compiled index
	// so that a process that loads it need not parse the source file.
	Meta string
}

// Hit is one retrieved document.
type Hit struct {
	Doc        int      // position in the documents the index was built from
	Score      float64  // BM25
	Coverage   float64  // IDF-weighted share of the prompt's words it matched
	Confidence float64  // in [0, 1]
	Matched    []string // the prompt's words that matched, as written
}

// Index retrieves documents for prompts.
type Index struct {
	ix *index.Index
}

// glossary bridges the languages of prompts and facts: general developer
// vocabulary in Chinese and English (端口 port, 日志 log, 现在 now). The
// router's synonym groups are about what skills do; these are about what
// facts and tools mention.
//
//go:embed glossary.yaml
var glossary []byte

// GlossaryName is how the embedded glossary appears in messages.
const GlossaryName = "builtin:recall/glossary.yaml"

var synonyms = sync.OnceValues(func() (*tokenize.Synonyms, error) {
	return Synonyms(rules.Synonyms, glossary)
})

// GlossaryWeight is the weight a word of the glossary adds its
// group-mates at. Above the router's synonyms (tokenize.SynonymWeight,
// 0.6): a glossary group is one everyday word in two languages (端口,
// port), which a fact states plainly, where a synonym group's words are
// near senses of a skill's topic. Measured on the action set
// (../shared/eval/actions/, `skillroute eval --catalog builtin --memories
// … --tools …`): action accuracy 85.8 % at 0.6, 86.7 % at 0.75, 87.5 %
// at 0.9.
const GlossaryWeight = 0.9

// Synonyms reads the router's synonym groups and the glossary (both in
// the synonyms.yaml format) into one table, the glossary's words at
// GlossaryWeight. Errors name the file.
func Synonyms(routerGroups, glossaryGroups []byte) (*tokenize.Synonyms, error) {
	groups, err := tokenize.ParseSynonymGroups(rules.SynonymsName, routerGroups)
	if err != nil {
		return nil, err
	}
	gloss, err := tokenize.ParseSynonymGroups(GlossaryName, glossaryGroups)
	if err != nil {
		return nil, err
	}
	for _, g := range gloss {
		for i := range g.Words {
			g.Words[i].Weight = GlossaryWeight
		}
	}
	syn, err := tokenize.NewSynonyms(append(groups, gloss...)...)
	if err != nil {
		return nil, fmt.Errorf("%s and %s: %v", rules.SynonymsName, GlossaryName, err)
	}
	return syn, nil
}

// Build compiles documents into an index, with the built-in synonyms and
// glossary.
func Build(docs []Doc) (*Index, error) {
	syn, err := synonyms()
	if err != nil {
		return nil, err
	}
	return BuildWith(docs, syn), nil
}

// BuildWith compiles documents into an index with the given synonyms.
func BuildWith(docs []Doc, syn *tokenize.Synonyms) *Index {
	cat := &skills.Catalog{Skills: make([]skills.Skill, len(docs))}
	for i, d := range docs {
		cat.Skills[i] = skills.Skill{Name: d.Name, Description: d.Text, Source: d.Meta}
	}
	return &Index{ix: index.Compile(cat, syn, index.Options{})}
}

// MemoryDocs returns the documents of memories.
func MemoryDocs(mems []Memory) []Doc {
	out := make([]Doc, len(mems))
	for i, m := range mems {
		// The id is no word of the fact: "#m3" never meets a prompt
		// word, where "m3" would meet "bge-m3".
		out[i] = Doc{Name: "#" + m.ID, Text: m.Text, Meta: memoryMeta(m)}
	}
	return out
}

// ToolDocs returns the documents of tools: the name's words count (a tool
// is usually named for what it does), then the description.
func ToolDocs(tools []Tool) []Doc {
	out := make([]Doc, len(tools))
	for i, t := range tools {
		out[i] = Doc{Name: t.Name, Text: t.Description, Meta: toolMeta(t)}
	}
	return out
}

// Len returns the number of documents.
func (x *Index) Len() int {
	if x == nil || x.ix == nil {
		return 0
	}
	return x.ix.Skills.Len()
}

// Search returns the documents that match the prompt, best first, at most
// k (all when k <= 0).
func (x *Index) Search(text tokenize.Text, k int) []Hit {
	if x.Len() == 0 {
		return nil
	}
	q := x.ix.Tokenizer().TokenizeText(text)
	q.Terms = slices.DeleteFunc(q.Terms, func(t tokenize.Term) bool { return shortNumber(t.Text) })
	// A link in the prompt is a URL, whether or not the word is there:
	// "pull https://…" asks for what a tool that fetches URLs does.
	if urlRE().MatchString(text.Lower) && !slices.ContainsFunc(q.Terms, func(t tokenize.Term) bool { return t.Text == "url" }) {
		q.Terms = append(q.Terms, tokenize.Term{Text: "url", Surface: "url", Weight: 1})
	}
	results := bm25.Score(x.ix, q)
	if k > 0 && len(results) > k {
		results = results[:k]
	}
	// The prompt's own words, each weighted by its IDF among the
	// documents: what the prompt is about, as far as these documents can
	// tell. Words no document holds still count (at the IDF of a word in
	// none), so a prompt mostly about something else covers little.
	n := x.ix.Skills.Len()
	own := map[string]float64{}
	nEff := max(n, MinCollection)
	for _, t := range q.Terms {
		if t.From != "" || strings.Contains(t.Text, " ") || t.Negated {
			continue
		}
		// A Chinese term counts only as a word the dictionary knows: the
		// tokenizer's fallback windows ("能打", "里能") are cuts, not words.
		if tokenize.HanCount(t.Text) > 0 && x.ix.Dict.Find(t.Text) < 0 {
			continue
		}
		own[t.Text] = max(own[t.Text], index.IDF(nEff, x.ix.DocFreq(t.Text)))
	}
	total := 0.0
	for _, w := range own {
		total += w
	}
	out := make([]Hit, 0, len(results))
	for _, r := range results {
		h := Hit{Doc: r.Skill}
		for _, m := range r.Matches {
			df := x.ix.DocFreq(m.Term)
			h.Score += m.Score * index.IDF(nEff, df) / index.IDF(n, df)
		}
		covered := map[string]bool{}
		for _, m := range r.Matches {
			for _, part := range strings.Fields(m.Origin) {
				if _, ok := own[part]; ok && !covered[part] {
					covered[part] = true
					h.Coverage += own[part]
				}
			}
			if _, ok := own[m.Origin]; ok || m.Surface != "" {
				h.Matched = append(h.Matched, m.Surface)
			}
		}
		if total > 0 {
			h.Coverage = min(1, h.Coverage/total)
		}
		strength := 1 - math.Exp(-h.Score/MatchScale)
		h.Confidence = strength * (CoverageFloor + (1-CoverageFloor)*h.Coverage)
		h.Matched = unique(h.Matched)
		out = append(out, h)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Confidence > out[j].Confidence })
	return out
}

// MinCollection is the smallest collection IDF is reckoned over. In a
// handful of facts every word is in a large share of them, and IDF says
// nothing: a user's first and only memory would match nothing well. So
// IDF counts as if there were at least this many documents, the rest
// holding none of the words; from 15 on (the action dev set has 25 facts
// and 15 tools) it is the collection's own.
const MinCollection = 15

// shortNumber reports a number of fewer than MinNumber digits: "10",
// "412". Such numbers recur by chance across a fact and a prompt ("Next.js
// 14", "650 lines"); a longer one (a port, a ticket) identifies.
func shortNumber(term string) bool {
	if len(term) >= MinNumber {
		return false
	}
	for i := 0; i < len(term); i++ {
		if term[i] < '0' || term[i] > '9' {
			return false
		}
	}
	return term != ""
}

// urlRE finds a link in a prompt; compiled on first use, not at every
// process start.
var urlRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`https?://\S`) })

// MinNumber is the fewest digits a number needs to count as a match.
const MinNumber = 4

func unique(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
