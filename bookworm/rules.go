package bookworm

import (
	"encoding/json"

	"github.com/skillroute/skillroute/disambig"
)

// ruleFile is disambiguation-rules.json.
type ruleFile struct {
	Rules []struct {
		ID              string   `json:"id"`
		Note            string   `json:"note"`
		Trigger         string   `json:"trigger"`
		Boost           string   `json:"boost"`
		Penalty         []string `json:"penalty"`
		Weight          float64  `json:"weight"`
		Examples        []string `json:"examples"` // not bookworm's; checked by rules lint when present
		MutualExclusion *struct {
			With      string `json:"with"`
			OnKeyword string `json:"on_keyword"`
		} `json:"mutual_exclusion"`
	} `json:"rules"`
}

// Rules reads a disambiguation-rules.json (its content, data; name for
// messages) against a catalog: known reports whether a skill exists. The
// rules are built leniently (see the package doc): problems lists what
// was dropped or trimmed, to warn about; err is for a file that cannot
// be read as bookworm's at all. Rules has the signature of disambig.Parse,
// so that a loader can call either.
func Rules(name string, data []byte, known func(string) bool) (*disambig.Set, []disambig.Problem, error) {
	var f ruleFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, jsonError(name, data, err)
	}
	specs := make([]disambig.RuleSpec, len(f.Rules))
	for i, r := range f.Rules {
		specs[i] = disambig.RuleSpec{ID: r.ID, Note: r.Note, Trigger: r.Trigger, Boost: r.Boost,
			Penalty: r.Penalty, Weight: r.Weight, Examples: r.Examples}
		if me := r.MutualExclusion; me != nil {
			specs[i].ExclusiveWith, specs[i].OnKeyword = me.With, me.OnKeyword
		}
	}
	return disambig.Build(name, specs, known, disambig.BuildOptions{Lenient: true})
}
