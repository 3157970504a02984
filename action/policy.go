package action

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
)

// The learned policy is the seed's next step after the rule baseline,
// taken safely. From logged outcomes (a recommended skill or tool that the
// session used, and whose turn then went without a failed tool call; a
// correction or a recommendation left unused counts against) it keeps per
// (task category, action) Beta posteriors of success, and their means
// become the feature router's success_rate. Nothing in it calls a model:
// it is counting, done offline by `skillroute policy`, and the hook only
// reads the small table that results.
//
// It is off until enabled, and it is compared first: `skillroute replay
// --policy` re-runs the logged decisions with its success rates next to
// the router without them, so the change it would make is seen before it
// is made. Exploration (trying, now and then, a candidate just under its
// bar, to learn whether it would have helped) is off by default, bounded
// by MaxExplore, never tries a risky tool or a clarification, and logs the
// probability of what it chose, so that later evaluations can weigh it.

// PriorAlpha and PriorBeta are the Beta prior of every success rate: two
// imagined successes and two failures, a mean of 0.5 that a handful of
// real outcomes already moves. 0.5 passes the rule router's skill gate
// (success rate ≥ 0.4): with nothing learned, no kind of help is ruled out.
const (
	PriorAlpha = 2.0
	PriorBeta  = 2.0
)

// PolicyFile is the policy's file name in the state folder.
const PolicyFile = "policy.json"

// MaxExplore bounds the exploration rate: one decision in ten at most may
// try a near miss. More would make the hook's advice noticeably erratic.
const MaxExplore = 0.1

// ExploreBand is how far below its bar a candidate may be and still be
// tried when exploring: the near misses, about which an outcome teaches
// most. Further below, it was rightly left out.
const ExploreBand = 0.1

// Cell is the outcomes of one (category, action).
type Cell struct {
	Successes float64 `json:"successes"`
	Failures  float64 `json:"failures"`
}

// Mean is the cell's posterior mean success.
func (c Cell) Mean() float64 {
	return (PriorAlpha + c.Successes) / (PriorAlpha + PriorBeta + c.Successes + c.Failures)
}

// Policy is the learned part of the feature router.
type Policy struct {
	// Version fingerprints the cells: a logged decision names the policy
	// version it used (its table version).
	Version  string          `json:"version"`
	Built    time.Time       `json:"built"`
	Outcomes int             `json:"outcomes"` // outcomes counted
	Cells    map[string]Cell `json:"cells"`    // key: category "/" action
	// Skills are each skill's own outcomes, from the feedback log: a
	// recommendation the session followed, or one it corrected.
	Skills map[string]Cell `json:"skills,omitempty"`
	// Enabled makes the hook use the policy; a built policy starts off.
	Enabled bool `json:"enabled"`
	// Explore is the exploration rate in [0, MaxExplore]; 0 is off.
	Explore float64 `json:"explore"`
}

func cellKey(category, action string) string { return category + "/" + action }

// SkillPriorWeight is how many outcomes the category's rate counts for
// when a skill's own outcomes refine it: a skill with a handful of its
// own confirmations moves off its category's rate, one with a single
// outcome barely does.
const SkillPriorWeight = 4.0

// SuccessRate returns the posterior mean success of an action for a
// category: the prior's mean for a nil policy or an unseen cell. For a
// skill with outcomes of its own in the feedback log, the category's rate
// is the prior (worth SkillPriorWeight outcomes) that they refine.
func (p *Policy) SuccessRate(category, action, ref string) float64 {
	if p == nil {
		return PriorAlpha / (PriorAlpha + PriorBeta)
	}
	mean := p.Cells[cellKey(category, action)].Mean()
	if action == LoadSkill {
		if c, ok := p.Skills[skills.BareName(ref)]; ok {
			return (SkillPriorWeight*mean + c.Successes) / (SkillPriorWeight + c.Successes + c.Failures)
		}
	}
	return mean
}

// TableVersion is the version a decision made with the policy logs ("" for
// none).
func (p *Policy) TableVersion() string {
	if p == nil {
		return ""
	}
	return p.Version
}

// Outcome is what became of one step of a logged decision.
type Outcome struct {
	Category string
	Action   string // the step's action
	Success  bool
}

// SkillOutcome is one verdict of the feedback log on a routed skill: the
// session used it (a success) or the user corrected it (a failure),
// weighted as the log weighs it (an implicit correction counts half).
type SkillOutcome struct {
	Skill   string
	Success bool
	Weight  float64
}

// BuildPolicy counts outcomes into a policy (disabled, no exploration):
// the logged decisions' steps into (category, action) cells, the feedback
// log's verdicts into each skill's own.
func BuildPolicy(outcomes []Outcome, verdicts []SkillOutcome, now time.Time) *Policy {
	p := &Policy{Built: now.UTC(), Cells: map[string]Cell{}}
	count := func(m map[string]Cell, k string, success bool, w float64) {
		c := m[k]
		if success {
			c.Successes += w
		} else {
			c.Failures += w
		}
		m[k] = c
	}
	for _, o := range outcomes {
		count(p.Cells, cellKey(o.Category, o.Action), o.Success, 1)
		p.Outcomes++
	}
	for _, o := range verdicts {
		if p.Skills == nil {
			p.Skills = map[string]Cell{}
		}
		count(p.Skills, skills.BareName(o.Skill), o.Success, o.Weight)
		p.Outcomes++
	}
	p.Version = p.fingerprint()
	return p
}

// fingerprint hashes the cells in key order.
func (p *Policy) fingerprint() string {
	h := sha256.New()
	for _, m := range []map[string]Cell{p.Cells, p.Skills} {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(h, "%s %g %g\n", k, m[k].Successes, m[k].Failures)
		}
		h.Write([]byte{0})
	}
	return "policy-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// Keys returns the cells' keys, sorted.
func (p *Policy) Keys() []string {
	keys := make([]string, 0, len(p.Cells))
	for k := range p.Cells {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// policyCodec frames policy.json (store.Codec): indented, as people read
// and compare it; synced, as it is written by a command, not per prompt.
var policyCodec = store.Codec{Kind: "policy", Version: 1, Indent: true}

// Save writes the policy atomically.
func (p *Policy) Save(path string) error {
	if p.Explore < 0 || p.Explore > MaxExplore {
		return fmt.Errorf("exploration rate %g is outside [0, %g]", p.Explore, MaxExplore)
	}
	return policyCodec.Write(path, p)
}

// LoadPolicy reads a policy; a missing file is fs.ErrNotExist, a damaged
// one or one of a newer format an error naming the file.
func LoadPolicy(path string) (*Policy, error) {
	var p Policy
	if err := policyCodec.Read(path, &p); err != nil {
		return nil, err
	}
	if p.Explore < 0 || p.Explore > MaxExplore {
		return nil, fmt.Errorf("%s: exploration rate %g is outside [0, %g]", path, p.Explore, MaxExplore)
	}
	if p.Cells == nil {
		p.Cells = map[string]Cell{}
	}
	return &p, nil
}

// LoadEnabledPolicy reads the state folder's policy when it is enabled:
// nil (and no error) when there is none or it is off.
func LoadEnabledPolicy(dir string) (*Policy, error) {
	p, err := LoadPolicy(dir + string(os.PathSeparator) + PolicyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil || !p.Enabled {
		return nil, err
	}
	return p, nil
}

// draw is a deterministic number in [0, 1) for a decision: exploration
// must replay exactly, so it is drawn from the decision's id, never from
// a clock or a process-seeded generator.
// It is SHA-256 rather than FNV: FNV's high bits barely move between ids
// that differ in a last digit, and the rate came out 15 % for 10 %.
func draw(seed string) float64 {
	sum := sha256.Sum256([]byte("explore\x00" + seed))
	return float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
}
