package tokenize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/skillroute/skillroute/internal/table"

	"gopkg.in/yaml.v3"
)

// SynonymWeight is the weight of a word added by synonym expansion. Below 1
// so that the user's own word always outweighs what we guessed it means;
// 0.6 sits between bookworm's two levels (0.7 and 0.4).
const SynonymWeight = 0.6

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
	Groups []string // group ids, for explanations
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
	out := make([]Expansion, 0, s.Start[i+1]-s.Start[i])
	for m := s.Start[i]; m < s.Start[i+1]; m++ {
		// Weights are stored as float32; round off the binary noise.
		w := math.Round(float64(s.Weight[m])*1e4) / 1e4
		out = append(out, Expansion{Term: s.Words.At(int(s.Mates[m])), Weight: w, Group: s.Groups[s.Group[m]]})
	}
	return out
}

type synonymFile struct {
	Groups []struct {
		ID     string   `yaml:"id" json:"id"`
		Note   string   `yaml:"note" json:"note"`
		Words  []string `yaml:"words" json:"words"`
		Weight float64  `yaml:"weight" json:"weight"`
	} `yaml:"groups" json:"groups"`
}

// ParseSynonyms reads a synonym file: our YAML, or bookworm's synonyms.json
// (recognised by its leading '{'). In bookworm's format the first three
// words of a group expand at 0.7 and the rest at 0.4, as that router does.
func ParseSynonyms(name string, data []byte) (*Synonyms, error) {
	var f synonymFile
	bookworm := bytes.HasPrefix(bytes.TrimSpace(data), []byte("{"))
	var err error
	if bookworm {
		err = json.Unmarshal(data, &f)
	} else {
		err = yaml.Unmarshal(data, &f)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	expand := map[string][]Expansion{}
	var groups []string
	for gi, g := range f.Groups {
		id := g.ID
		if id == "" {
			id = fmt.Sprintf("#%d", gi+1)
		}
		nonEmpty := 0
		for _, w := range g.Words {
			if strings.TrimSpace(w) != "" {
				nonEmpty++
			}
		}
		if nonEmpty < 2 {
			return nil, fmt.Errorf("%s: group %s: needs at least two words", name, id)
		}
		weight := SynonymWeight
		if g.Weight != 0 {
			if g.Weight < 0 || g.Weight >= 1 {
				return nil, fmt.Errorf("%s: group %s: weight %.2f must be above 0 and below 1", name, id, g.Weight)
			}
			weight = g.Weight
		}
		groups = append(groups, id)
		terms := make([]Expansion, 0, len(g.Words))
		for wi, w := range g.Words {
			w = strings.TrimSpace(w)
			if w == "" {
				continue
			}
			ew := weight
			if bookworm {
				ew = 0.4
				if wi < 3 {
					ew = 0.7
				}
			}
			terms = append(terms, Expansion{Term: Normalize(w), Weight: ew, Group: id})
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
		}
	}
	return flatten(expand, groups), nil
}

// flatten stores an expansion map in the flat form.
func flatten(expand map[string][]Expansion, groups []string) *Synonyms {
	words := make([]string, 0, len(expand))
	for w := range expand {
		words = append(words, w)
	}
	sort.Strings(words)
	s := &Synonyms{Words: table.New(words), Groups: groups}
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
