package tokenize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// SynonymWeight is the weight of a word added by synonym expansion. Below 1
// so that the user's own word always outweighs what we guessed it means;
// 0.6 sits between bookworm's two levels (0.7 and 0.4).
const SynonymWeight = 0.6

// Synonyms maps a word to the words it expands to. Its fields are exported
// so that a compiled index can carry it without parsing YAML per prompt.
type Synonyms struct {
	Expansions map[string][]Expansion // normalised word -> group-mates
	Source     []string               // every word of every group, as written
}

// Expansion is one word a synonym group adds to a query.
type Expansion struct {
	Term   string  // normalised form
	Weight float64 // below 1
	Group  string  // the group's id, for explanations
}

// Words returns every word of every group, as written.
func (s *Synonyms) Words() []string {
	if s == nil {
		return nil
	}
	return s.Source
}

// Expand returns what the normalised term expands to.
func (s *Synonyms) Expand(term string) []Expansion {
	if s == nil {
		return nil
	}
	return s.Expansions[term]
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
	s := &Synonyms{Expansions: map[string][]Expansion{}}
	for gi, g := range f.Groups {
		id := g.ID
		if id == "" {
			id = fmt.Sprintf("#%d", gi+1)
		}
		if len(g.Words) < 2 {
			return nil, fmt.Errorf("%s: group %s: needs at least two words", name, id)
		}
		weight := SynonymWeight
		if g.Weight > 0 {
			if g.Weight >= 1 {
				return nil, fmt.Errorf("%s: group %s: weight %.2f must be below 1", name, id, g.Weight)
			}
			weight = g.Weight
		}
		terms := make([]Expansion, 0, len(g.Words))
		for wi, w := range g.Words {
			w = strings.TrimSpace(w)
			if w == "" {
				continue
			}
			s.Source = append(s.Source, w)
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
			for _, to := range terms {
				if to.Term != from.Term {
					s.Expansions[from.Term] = append(s.Expansions[from.Term], to)
				}
			}
		}
	}
	return s, nil
}
