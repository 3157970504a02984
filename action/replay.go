package action

import (
	"bytes"
	"sort"

	"github.com/skillroute/skillroute/skills"
)

// Replay re-runs a router over logged decisions: what it would have
// decided on exactly the inputs the logged router saw (the candidates and
// their features as they were, not as the files are now), how often it
// agrees, what it changes by task category, and the outcome metrics of
// the logged decisions next to those of the replayed ones. Every router
// is pure, so replaying a decision with the router and policy that made
// it gives the logged decision byte for byte (Identical).

// StepOutcome is what became of one step of a logged decision.
type StepOutcome struct {
	Step Step
	// Known: the turn holds evidence either way. A recommended skill or
	// tool is known once the turn is logged (used or not); a fact only
	// when the turn called tools at all.
	Known   bool
	Adopted bool // the skill or tool was used in the turn
	Success bool // adopted, and no tool call failed after it
}

// Outcomes credits each step of the logged decision with the turn's tool
// events. A skill is adopted when the turn called it (the Skill tool or
// its /command); a tool when the turn called it (ToolMatches); success
// after adoption is no failed call from the adoption on. A fact has no
// adoption of its own: its step succeeds when the turn's tool calls all
// succeeded, and is unknown in a turn without any.
func (t Trajectory) Outcomes() []StepOutcome {
	var out []StepOutcome
	for _, s := range t.Decision.Steps {
		o := StepOutcome{Step: s}
		switch s.Action {
		case LoadSkill, CallTool:
			o.Known = true
			for i, e := range t.Events {
				if !e.OK || !t.uses(e, s) {
					continue
				}
				o.Adopted = true
				o.Success = true
				for _, later := range t.Events[i:] {
					if !later.OK {
						o.Success = false
					}
				}
				break
			}
		case InjectMemory:
			o.Known = len(t.Events) > 0
			o.Success = o.Known
			for _, e := range t.Events {
				if !e.OK {
					o.Success = false
				}
			}
		}
		out = append(out, o)
	}
	return out
}

// uses reports whether a tool event used the step's skill or tool.
func (t Trajectory) uses(e ToolEvent, s Step) bool {
	switch s.Action {
	case LoadSkill:
		if e.Tool == "Skill" {
			return e.Ref == s.Ref || skills.BareName(e.Ref) == skills.BareName(s.Ref)
		}
		return e.Tool == "/"+s.Ref || e.Tool == "/"+skills.BareName(s.Ref)
	case CallTool:
		return ToolMatches(e.Tool, s.Ref)
	}
	return false
}

// PolicyOutcomes turns logged decisions into the policy's samples: one
// per step whose outcome is known, keyed by the decision's category.
func PolicyOutcomes(ts []Trajectory) []Outcome {
	var out []Outcome
	for _, t := range ts {
		for _, o := range t.Outcomes() {
			if o.Known {
				out = append(out, Outcome{Category: t.Input.Category, Action: o.Step.Action, Success: o.Success})
			}
		}
	}
	return out
}

// Metrics are the outcome figures of a set of decisions.
type Metrics struct {
	Decisions int            `json:"decisions"`
	Actions   map[string]int `json:"actions"`
	// InjectionRate is the share of decisions that injected anything.
	InjectionRate float64 `json:"injection_rate"`
	// Recommended counts skill and tool steps whose outcome is known;
	// Adoption is the share of them the turn used, SuccessAfterAdoption
	// the share of adopted ones after which no tool call failed.
	Recommended          int     `json:"recommended"`
	Adoption             float64 `json:"adoption"`
	SuccessAfterAdoption float64 `json:"success_after_adoption"`
	TokensP50            int     `json:"tokens_p50"`
	TokensP95            int     `json:"tokens_p95"`
}

// Change is a count of decisions of one category whose action changed.
type Change struct {
	Category string `json:"category"`
	From     string `json:"from"`
	To       string `json:"to"`
	Count    int    `json:"count"`
}

// ReplayReport is the result of a replay.
type ReplayReport struct {
	Router string `json:"router"`
	// Policy is the version of the policy the replay used ("": none).
	Policy    string `json:"policy"`
	Decisions int    `json:"decisions"`
	// Agreement is the share of decisions with the same action and steps
	// as logged; Identical counts those equal byte for byte (breakdown
	// included), which every decision made by the same router version
	// and policy must be.
	Agreement float64  `json:"agreement"`
	Identical int      `json:"identical"`
	Changed   []Change `json:"changed"`
	Logged    Metrics  `json:"logged"`
	// Replayed are the replayed decisions' figures; adoption and success
	// only over the steps it shares with the logged decision, whose
	// outcome was observed.
	Replayed Metrics `json:"replayed"`
}

// Replay re-runs r over the logged decisions; with a policy, candidates
// take its success rates instead of the logged ones.
func Replay(ts []Trajectory, r Router, p *Policy) ReplayReport {
	rep := ReplayReport{Router: r.Name(), Policy: p.TableVersion(), Decisions: len(ts)}
	changed := map[[3]string]int{}
	var logged, replayed metricsBuilder
	agree := 0
	for _, t := range ts {
		in := t.Input
		if p != nil {
			in.Candidates = append([]Candidate(nil), in.Candidates...)
			for i := range in.Candidates {
				c := &in.Candidates[i]
				c.SuccessRate = round(p.SuccessRate(in.Category, ActionOf(c.Type), c.Ref))
			}
		}
		d := r.Decide(in)
		if bytes.Equal(d.Marshal(), t.Decision.Marshal()) {
			rep.Identical++
		}
		if sameSteps(d, t.Decision) {
			agree++
		} else if d.Action != t.Decision.Action {
			changed[[3]string{in.Category, t.Decision.Action, d.Action}]++
		}
		outcomes := t.Outcomes()
		logged.add(t.Decision, t.Tokens, outcomes)
		var shared []StepOutcome
		for _, o := range outcomes {
			for _, s := range d.Steps {
				if s == o.Step {
					shared = append(shared, o)
				}
			}
		}
		tokens := Tokens(d, in)
		if sameSteps(d, t.Decision) && d.Question == t.Decision.Question {
			// The logged decision's injection, counted from its text:
			// the estimate (a skill line a flat skillLineTokens) would
			// show an agreeing router as injecting less than logged.
			tokens = t.Tokens
		}
		replayed.add(d, tokens, shared)
	}
	if len(ts) > 0 {
		rep.Agreement = float64(agree) / float64(len(ts))
	}
	for k, n := range changed {
		rep.Changed = append(rep.Changed, Change{Category: k[0], From: k[1], To: k[2], Count: n})
	}
	sort.Slice(rep.Changed, func(i, j int) bool {
		a, b := rep.Changed[i], rep.Changed[j]
		if a.Category != b.Category {
			return a.Category < b.Category
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.From+a.To < b.From+b.To
	})
	rep.Logged, rep.Replayed = logged.metrics(), replayed.metrics()
	return rep
}

// nearestRank is the p-th percentile of sorted values: the smallest value
// with at least p % of them at or below it.
func nearestRank(sorted []int, p int) int {
	i := (p*len(sorted) + 99) / 100 // ceil(p·n/100)
	return sorted[max(i, 1)-1]
}

func sameSteps(a, b Decision) bool {
	if a.Action != b.Action || len(a.Steps) != len(b.Steps) {
		return false
	}
	for i := range a.Steps {
		if a.Steps[i] != b.Steps[i] {
			return false
		}
	}
	return true
}

type metricsBuilder struct {
	n, injected, recommended, adopted, succeeded int
	actions                                      map[string]int
	tokens                                       []int
}

func (m *metricsBuilder) add(d Decision, tok int, outcomes []StepOutcome) {
	if m.actions == nil {
		m.actions = map[string]int{}
	}
	m.n++
	m.actions[d.Action]++
	if d.Action != DirectAnswer {
		m.injected++
	}
	m.tokens = append(m.tokens, tok)
	for _, o := range outcomes {
		if !o.Known || (o.Step.Action != LoadSkill && o.Step.Action != CallTool) {
			continue
		}
		m.recommended++
		if o.Adopted {
			m.adopted++
			if o.Success {
				m.succeeded++
			}
		}
	}
}

func (m *metricsBuilder) metrics() Metrics {
	frac := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return round(float64(a) / float64(b))
	}
	out := Metrics{Decisions: m.n, Actions: m.actions, InjectionRate: frac(m.injected, m.n), Recommended: m.recommended,
		Adoption: frac(m.adopted, m.recommended), SuccessAfterAdoption: frac(m.succeeded, m.adopted)}
	if out.Actions == nil {
		out.Actions = map[string]int{}
	}
	if len(m.tokens) > 0 {
		s := append([]int(nil), m.tokens...)
		sort.Ints(s)
		out.TokensP50, out.TokensP95 = nearestRank(s, 50), nearestRank(s, 95)
	}
	return out
}
