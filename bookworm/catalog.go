package bookworm

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/skillroute/skillroute/skills"
)

// index is skills-index.json.
type index struct {
	Skills []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Maturity    string `json:"maturity"`
		Keywords    []struct {
			Keyword string  `json:"keyword"`
			Weight  float64 `json:"weight"`
			Tier    string  `json:"tier"`
		} `json:"keywords"`
		Composable struct {
			Enhances []string `json:"enhances"`
		} `json:"composable"`
	} `json:"skills"`
}

// Catalog reads a skills-index.json. Each skill's Source is "FILE#NAME";
// blank keywords are skipped. A skill without a name, or a name given
// twice, is an error naming the file.
func Catalog(path string) (*skills.Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	var ix index
	if err := json.Unmarshal(data, &ix); err != nil {
		return nil, jsonError(path, data, err)
	}
	list := make([]skills.Skill, 0, len(ix.Skills))
	for i, s := range ix.Skills {
		if s.Name == "" {
			return nil, fmt.Errorf("%s: skills[%d] has no name", path, i)
		}
		sk := skills.Skill{
			Name:        s.Name,
			Description: s.Description,
			Maturity:    s.Maturity,
			Enhances:    s.Composable.Enhances,
			Source:      path + "#" + s.Name,
		}
		for _, k := range s.Keywords {
			if strings.TrimSpace(k.Keyword) == "" {
				continue
			}
			sk.Keywords = append(sk.Keywords, skills.Keyword{Text: k.Keyword, Tier: tier(k.Tier), Weight: k.Weight})
		}
		list = append(list, sk)
	}
	return skills.NewCatalog(list)
}

// tier reads a keyword's tier. Bookworm has more names than our three
// ("knowledge", "table", …); all but core and strong point weakly, so
// they are extended.
func tier(s string) skills.Tier {
	switch strings.ToLower(s) {
	case "core":
		return skills.Core
	case "strong":
		return skills.Strong
	default:
		return skills.Extended
	}
}
