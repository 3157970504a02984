package action

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The six actions.
const (
	DirectAnswer = "direct_answer"    // inject nothing
	InjectMemory = "inject_memory"    // put remembered facts in front of the model
	LoadSkill    = "load_skill"       // recommend the routed skill
	CallTool     = "call_tool"        // suggest a declared tool
	Clarify      = "clarify"          // suggest asking the user for the missing detail
	Composite    = "composite_action" // ordered steps of different types
)

// Actions lists the six actions in the seed's conflict order (tool >
// memory > skill > direct_answer > clarify), composite first.
func Actions() []string {
	return []string{Composite, CallTool, InjectMemory, LoadSkill, DirectAnswer, Clarify}
}

// Candidate types.
const (
	TypeMemory = "memory"
	TypeSkill  = "skill"
	TypeTool   = "tool"
)

// ActionOf returns the action that uses a candidate of the type.
func ActionOf(typ string) string {
	switch typ {
	case TypeMemory:
		return InjectMemory
	case TypeSkill:
		return LoadSkill
	case TypeTool:
		return CallTool
	}
	return ""
}

// typeOrder is the order of steps in a composite: a fact first (it may
// supply the argument of what follows), then the procedure, then the tool
// that gathers evidence for it.
var typeOrder = []string{TypeMemory, TypeSkill, TypeTool}

// Step is one part of a decision: an action and what it uses (a memory
// id, a skill name, a tool name).
type Step struct {
	Action string `json:"action"`
	Ref    string `json:"ref"`
}

// Decision is what the action layer decided for one prompt.
type Decision struct {
	Action string `json:"action"`
	// Steps are what the action uses, in order: one step for a single
	// action, two or three for a composite, none for direct_answer and
	// clarify.
	Steps []Step `json:"steps,omitempty"`
	// Question is the clarifying suggestion, for clarify.
	Question string `json:"question,omitempty"`
	// Propensity is the probability with which an exploring router made
	// this decision (0: it was not exploring).
	Propensity float64    `json:"propensity,omitempty"`
	Breakdown  *Breakdown `json:"breakdown,omitempty"`
}

// Ref returns the ref of the decision's first step of an action, or "".
func (d Decision) Ref(action string) string {
	for _, s := range d.Steps {
		if s.Action == action {
			return s.Ref
		}
	}
	return ""
}

// Contribution is one feature's part of a candidate's score.
type Contribution struct {
	Feature      string  `json:"feature"`
	Value        float64 `json:"value"`
	Weight       float64 `json:"weight"`
	Contribution float64 `json:"contribution"`
}

// Scored is one candidate as a router saw it.
type Scored struct {
	Type     string         `json:"type"`
	Ref      string         `json:"ref"`
	Score    float64        `json:"score"`
	Bar      float64        `json:"bar"`
	Passed   bool           `json:"passed"`
	Features []Contribution `json:"features,omitempty"`
	// Reasons are the gates' reason codes: below_threshold,
	// failure_penalty, precondition_failed:<what>, risk_gate …
	Reasons []string `json:"reasons,omitempty"`
}

// Breakdown says why a decision came out as it did.
type Breakdown struct {
	Router  string    `json:"router"`
	Version string    `json:"version"`
	Cues    []Matched `json:"cues,omitempty"`
	// Scores holds every candidate's score, type by type, best first.
	Scores []Scored `json:"scores,omitempty"`
	// Reasons are the decision's reason codes, in the order they applied.
	Reasons []string `json:"reasons"`
}

// Marshal encodes a decision as compact JSON, deterministically: the
// same decision always gives the same bytes (replay compares them).
func (d Decision) Marshal() []byte {
	data, err := json.Marshal(d)
	if err != nil {
		panic(fmt.Sprintf("action: decision does not encode: %v", err)) // only plain fields: cannot happen
	}
	return data
}

// String renders the decision in one line: "composite_action: inject_memory m1 → load_skill devops-expert".
func (d Decision) String() string {
	if len(d.Steps) == 0 {
		return d.Action
	}
	parts := make([]string, len(d.Steps))
	for i, s := range d.Steps {
		parts[i] = s.Action + " " + s.Ref
	}
	return d.Action + ": " + strings.Join(parts, " → ")
}

// round keeps breakdown figures to four decimals, so that the encoded
// decision does not depend on the last bits of a float sum.
func round(x float64) float64 {
	const k = 10000
	if x < 0 {
		return -float64(int64(-x*k+0.5)) / k
	}
	return float64(int64(x*k+0.5)) / k
}

// String renders the breakdown for people: the cues, then each candidate
// with its score, bar, reason codes and each feature's contribution.
func (b *Breakdown) String() string {
	if b == nil {
		return ""
	}
	var s strings.Builder
	fmt.Fprintf(&s, "action router %s (%s): %s\n", b.Router, b.Version, strings.Join(b.Reasons, ", "))
	for _, m := range b.Cues {
		fmt.Fprintf(&s, "  cues %s: %s\n", m.Set, strings.Join(m.Cues, ", "))
	}
	for _, c := range b.Scores {
		verdict := "passed"
		if !c.Passed {
			verdict = "not used"
		}
		fmt.Fprintf(&s, "  %-6s %-28s score %6.3f  bar %.2f  %s", c.Type, c.Ref, c.Score, c.Bar, verdict)
		if len(c.Reasons) > 0 {
			fmt.Fprintf(&s, " (%s)", strings.Join(c.Reasons, ", "))
		}
		s.WriteByte('\n')
		for _, f := range c.Features {
			if f.Contribution != 0 {
				fmt.Fprintf(&s, "      %+.3f  %s %.3g × %+.2f\n", f.Contribution, f.Feature, f.Value, f.Weight)
			}
		}
	}
	return s.String()
}
