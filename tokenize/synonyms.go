package tokenize

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/skillroute/skillroute/internal/table"

	"gopkg.in/yaml.v3"
)

// SynonymWeight is the weight of a word added by synonym expansion. Below 1
// so that the user's own word always outweighs what we guessed it means;
// 0.6 sits between the two levels of the bookworm router's synonyms
// (0.7 and 0.4; package bookworm).
const SynonymWeight = 0.6

// ImpliedWeight is the weight of a word a group implies (SynonymGroup.
// Implies): a concept the prompt's words point at without naming it
// ("screen reader" implies accessibility). It is below SynonymWeight, as
// an implied concept is a guess at what the user means where a synonym
// says the same thing; nor does it count as naming a skill's keyword
// (router's specific). Fitted by 2-fold cross-validation by prompt hash
// (`skillroute eval --split 2 --catalog ../shared/eval/real-dev/skills`
// on real-dev's prompts, real-fresh, real-fresh2, train-real and
// train-noisy3, right answers summed per half) among 0.25, 0.4, 0.5 and
// 0.55: both halves chose 0.5 (0.55 equal), 332 and 318 right against
// 329 and 314 with no implied concepts; 0.25 gave 329 and 316.
const ImpliedWeight = 0.5

// Synonyms maps a word to the words it expands to. It is stored flat, so
// that a compiled index carries it and loading builds no map:
// Mates[Start[i]:Start[i+1]] are the word ids that Words.At(i) expands
// to, each with its weight and group.
type Synonyms struct {
	Words  table.Strings // normalised words, sorted
	Start  []uint32
	Mates  []uint32
	Weight []float32
	Group  []uint32 // index into Groups
	// Groups are the group ids, for explanations, by position: a table,
	// which an index file carries as it is. As a []string, loading the
	// built-in 937 built a slice of 15 KB, four fresh pages of every hook
	// process (perf record -d -e page-faults of 20 prompt events at 50
	// skills: 3-4 faults in index's reader.strs).
	Groups table.Strings
}

// Expansion is one word a synonym group adds to a query.
type Expansion struct {
	Term   string  // normalised form
	Weight float64 // below 1
	Group  string  // the group's id, for explanations
}

// WordList returns every word of every group, normalised.
func (s *Synonyms) WordList() []string {
	if s == nil {
		return nil
	}
	return s.Words.All()
}

// Expand returns what the normalised term expands to.
func (s *Synonyms) Expand(term string) []Expansion {
	if s == nil {
		return nil
	}
	i := s.Words.Find(term)
	if i < 0 {
		return nil
	}
	from, to := mates(s.Start, i, min(len(s.Mates), len(s.Weight), len(s.Group)))
	out := make([]Expansion, 0, to-from)
	for m := from; m < to; m++ {
		mate, group := int(s.Mates[m]), int(s.Group[m])
		if mate >= s.Words.Len() || group >= s.Groups.Len() {
			continue // a damaged table's entry (see mates)
		}
		// Weights are stored as float32; round off the binary noise.
		w := math.Round(float64(s.Weight[m])*1e4) / 1e4
		out = append(out, Expansion{Term: s.Words.At(mate), Weight: w, Group: s.Groups.At(group)})
	}
	return out
}

// mates returns the range of a flat table's Mates (Synonyms, Glossary)
// that word i maps to, of the n entries every column holds: empty where
// the offsets are out of order or beyond the columns. A table read from
// an index file is not checked whole when the file loads (index.Load: it
// was 6 % of a hook process's instructions at 50 skills), so each read
// checks what it reads, and a damaged table maps a word to nothing, or to
// other words of the table, rather than panic (TestDamagedTablesNeverPanic
// in package index).
func mates(start []uint32, i, n int) (from, to uint32) {
	if i < 0 || i+1 >= len(start) {
		return 0, 0
	}
	from, to = start[i], start[i+1]
	if from > to || int(to) > n {
		return 0, 0
	}
	return from, to
}

// SynonymGroup is one group of words that stand for each other: a prompt
// holding any of them is expanded by the others, and by the words the
// group implies.
type SynonymGroup struct {
	ID    string        // names the group in explanations; "" numbers it (#1, #2, …)
	Words []SynonymWord // as written; blank words are skipped
	// Implies are the concepts the group's words point at, one way: a
	// prompt that says "视障用户" is about accessibility, but one that
	// says accessibility need not be about blind users.
	Implies []SynonymWord
}

// SynonymWord is one word of a group, with the weight it is added at when
// another word of the group expands to it.
type SynonymWord struct {
	Text   string
	Weight float64 // above 0 and below 1; 0 means SynonymWeight
}

// NewSynonyms builds the synonym table of groups, whatever file they were
// read from. Words are stored in the form a prompt is read into (ReadAs). A
// group needs two words that are not blank, or one and a word it implies,
// and every weight must stay below 1 so that the user's own word
// outweighs its synonyms; errors name the group.
func NewSynonyms(groups ...SynonymGroup) (*Synonyms, error) {
	expand := map[string][]Expansion{}
	ids := make([]string, 0, len(groups))
	for gi, g := range groups {
		id := g.ID
		if id == "" {
			id = fmt.Sprintf("#%d", gi+1)
		}
		terms, err := groupWords(id, g.Words, SynonymWeight)
		if err != nil {
			return nil, err
		}
		implied, err := groupWords(id, g.Implies, ImpliedWeight)
		if err != nil {
			return nil, err
		}
		if len(terms) < 2 && (len(terms) == 0 || len(implied) == 0) {
			return nil, fmt.Errorf("group %s: needs at least two words, or one and a word it implies", id)
		}
		ids = append(ids, id)
		// A concept the group also names as a word is a synonym already.
		implied = slices.DeleteFunc(implied, func(to Expansion) bool {
			return slices.ContainsFunc(terms, func(e Expansion) bool { return e.Term == to.Term })
		})
		for _, to := range implied {
			if _, ok := expand[to.Term]; !ok {
				expand[to.Term] = nil // a word of the table, which expands to nothing by this group
			}
		}
		for _, from := range terms {
			if _, ok := expand[from.Term]; !ok {
				expand[from.Term] = nil
			}
			for _, to := range terms {
				if to.Term != from.Term {
					expand[from.Term] = append(expand[from.Term], to)
				}
			}
			expand[from.Term] = append(expand[from.Term], implied...)
		}
	}
	return flatten(expand, ids), nil
}

// groupWords reads a group's words in the form a prompt is read into,
// at their weight (def when unset), which must stay below 1.
func groupWords(id string, words []SynonymWord, def float64) ([]Expansion, error) {
	out := make([]Expansion, 0, len(words))
	for _, w := range words {
		text := strings.TrimSpace(w.Text)
		if text == "" {
			continue
		}
		weight := w.Weight
		if weight == 0 {
			weight = def
		}
		if weight < 0 || weight >= 1 {
			return nil, fmt.Errorf("group %s: %q: weight %.2f must be above 0 and below 1", id, text, w.Weight)
		}
		out = append(out, Expansion{Term: ReadAs(text), Weight: weight, Group: id})
	}
	return out, nil
}

// synonymFile is our synonym file (rules/synonyms.yaml).
type synonymFile struct {
	Groups []synonymEntry `yaml:"groups"`
}

// synonymEntry is one group of our synonym file (a named type: a YAML
// error names it, and goTypeName takes the name out).
type synonymEntry struct {
	ID      string   `yaml:"id"`
	Note    string   `yaml:"note"`
	Words   []string `yaml:"words"`
	Implies []string `yaml:"implies"`
	Weight  float64  `yaml:"weight"`
}

// goTypeName is the reader's Go type in a YAML error ("field x not found
// in type tokenize.synonymFile"), which says nothing to the file's author.
var goTypeName = regexp.MustCompile(` in type [\w.]+`)

// ParseSynonyms reads our synonym file (YAML; see rules/synonyms.yaml):
// groups of words, each group expanding at its weight, SynonymWeight by
// default, and to the words it implies at ImpliedWeight. Errors name the
// file. Another router's file is read by its adapter (package bookworm),
// which calls NewSynonyms.
func ParseSynonyms(name string, data []byte) (*Synonyms, error) {
	groups, err := ParseSynonymGroups(name, data)
	if err != nil {
		return nil, err
	}
	syn, err := NewSynonyms(groups...)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return syn, nil
}

// ParseSynonymGroups reads the groups of our synonym file as written,
// for a reader that needs to know which words a group implies (the
// glossary's vocabulary); ParseSynonyms builds the table from them.
func ParseSynonymGroups(name string, data []byte) ([]SynonymGroup, error) {
	var f synonymFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	// A misspelt key is an error: "group:" read as no groups at all,
	// which --synonyms puts in place of the built-in ones.
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %s", name, goTypeName.ReplaceAllString(err.Error(), ""))
	}
	groups := make([]SynonymGroup, len(f.Groups))
	for gi, g := range f.Groups {
		if g.Weight < 0 || g.Weight >= 1 {
			id := g.ID
			if id == "" {
				id = fmt.Sprintf("#%d", gi+1)
			}
			return nil, fmt.Errorf("%s: group %s: weight %.2f must be above 0 and below 1", name, id, g.Weight)
		}
		groups[gi].ID = g.ID
		for _, w := range g.Words {
			groups[gi].Words = append(groups[gi].Words, SynonymWord{Text: w, Weight: g.Weight})
		}
		for _, w := range g.Implies {
			groups[gi].Implies = append(groups[gi].Implies, SynonymWord{Text: w})
		}
	}
	return groups, nil
}

// flatten stores an expansion map in the flat form.
func flatten(expand map[string][]Expansion, groups []string) *Synonyms {
	words := make([]string, 0, len(expand))
	for w := range expand {
		words = append(words, w)
	}
	sort.Strings(words)
	s := &Synonyms{Words: table.New(words), Groups: table.New(groups)}
	groupID := map[string]uint32{}
	for i, g := range groups {
		groupID[g] = uint32(i)
	}
	for _, w := range words {
		s.Start = append(s.Start, uint32(len(s.Mates)))
		for _, e := range expand[w] {
			s.Mates = append(s.Mates, uint32(s.Words.Find(e.Term)))
			s.Weight = append(s.Weight, float32(e.Weight))
			s.Group = append(s.Group, groupID[e.Group])
		}
	}
	s.Start = append(s.Start, uint32(len(s.Mates)))
	return s
}
