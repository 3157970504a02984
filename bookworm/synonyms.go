package bookworm

import (
	"encoding/json"
	"fmt"

	"github.com/skillroute/skillroute/tokenize"
)

// Bookworm's two expansion levels: the first leadWords words of a group
// are its usual names and expand at leadWeight, the rest at tailWeight,
// as that router weighs them. Both stay below 1, as tokenize requires.
const (
	leadWords  = 3
	leadWeight = 0.7
	tailWeight = 0.4
)

// synonymFile is synonyms.json.
type synonymFile struct {
	Groups []struct {
		ID    string   `json:"id"`
		Words []string `json:"words"`
	} `json:"groups"`
}

// Synonyms reads a synonyms.json (its content, data; name for errors).
// Groups keep their ids; a group needs two words that are not blank.
func Synonyms(name string, data []byte) (*tokenize.Synonyms, error) {
	var f synonymFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, jsonError(name, data, err)
	}
	groups := make([]tokenize.SynonymGroup, len(f.Groups))
	for gi, g := range f.Groups {
		groups[gi].ID = g.ID
		for wi, w := range g.Words {
			weight := tailWeight
			if wi < leadWords {
				weight = leadWeight
			}
			groups[gi].Words = append(groups[gi].Words, tokenize.SynonymWord{Text: w, Weight: weight})
		}
	}
	syn, err := tokenize.NewSynonyms(groups...)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return syn, nil
}
