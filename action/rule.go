package action

import "fmt"

// Router decides an action from an Input. Both routers are pure: the same
// Input always gives the same Decision, byte for byte (Decision.Marshal),
// which is what makes replay exact.
type Router interface {
	Name() string
	Version() string
	Decide(in Input) Decision
}

// RouterNamed returns the router of a name: "feature" (the default, also
// for "") or "rule".
func RouterNamed(name string) (Router, error) {
	switch name {
	case "", "feature":
		return Feature{}, nil
	case "rule":
		return Rule{}, nil
	}
	return nil, fmt.Errorf("unknown action router %q (want rule or feature)", name)
}

// Rule is the seed's rule-based router, kept as the baseline the feature
// router is measured against. It reads trigger words (ruleCues) and gates
// candidates on fixed thresholds:
//
//	Rule 1  why, think, design, name, and no realtime trigger → direct_answer
//	Rule 2  check, run, open, current, list, time → a tool with confidence ≥ 0.6 and risk ≤ 0.7
//	Rule 3  prefer, remember, usually, my, our → a memory with confidence ≥ 0.65 and freshness ≥ 0.3
//	Rule 4  fix, deploy, review, setup, workflow → a skill with confidence ≥ 0.55 and success rate ≥ 0.4
//	Rule 5  nothing passes its gate on a prompt that needs something (Rules 2–4 fired) → clarify
//
// When several rules propose, the conflict order decides: tool > memory >
// skill > direct_answer > clarify. A candidate that passes its gate
// without its trigger is still used when no triggered rule proposed
// anything (the triggers say what to look for first, not what alone
// counts). It never composes: the seed's baseline is single-action.
type Rule struct{}

// RuleVersion changes whenever the rule router's words or gates change.
const RuleVersion = "rule-1"

// The seed's gates.
const (
	RuleToolConfidence   = 0.6
	RuleToolRisk         = 0.7
	RuleMemoryConfidence = 0.65
	RuleMemoryFreshness  = 0.3
	RuleSkillConfidence  = 0.55
	RuleSkillSuccess     = 0.4
)

// Name implements Router.
func (Rule) Name() string { return "rule" }

// Version implements Router.
func (Rule) Version() string { return RuleVersion }

// passes applies the seed's gate of the candidate's type.
func rulePasses(c Candidate) (bool, string) {
	switch c.Type {
	case TypeTool:
		if c.Risk > RuleToolRisk {
			return false, "risk_gate"
		}
		return c.Confidence >= RuleToolConfidence, "below_threshold"
	case TypeMemory:
		if c.Freshness < RuleMemoryFreshness {
			return false, "stale"
		}
		return c.Confidence >= RuleMemoryConfidence, "below_threshold"
	case TypeSkill:
		if c.SuccessRate < RuleSkillSuccess {
			return false, "low_success_rate"
		}
		return c.Confidence >= RuleSkillConfidence, "below_threshold"
	}
	return false, "unknown_type"
}

// Decide implements Router.
func (r Rule) Decide(in Input) Decision {
	p := readPrompt(in.Prompt)
	cues := p.match(compiledRuleSets)
	fired := func(set string) bool { return cueSet(cues, set) != nil }
	bd := &Breakdown{Router: r.Name(), Version: r.Version(), Cues: cues}
	d := Decision{Breakdown: bd}

	passing := map[string]Candidate{} // type -> best passing candidate
	for _, c := range in.Candidates {
		ok, why := rulePasses(c)
		s := Scored{Type: c.Type, Ref: c.Ref, Score: c.Confidence, Passed: ok}
		if !ok {
			s.Reasons = append(s.Reasons, why)
		}
		bd.Scores = append(bd.Scores, s)
		if b, seen := passing[c.Type]; ok && (!seen || c.Confidence > b.Confidence) {
			passing[c.Type] = c
		}
	}

	trigger := map[string]string{TypeTool: CueRealtime, TypeMemory: CueStable, TypeSkill: CueWorkflow}
	order := []string{TypeTool, TypeMemory, TypeSkill} // the conflict order
	for _, typ := range order {
		if c, ok := passing[typ]; ok && fired(trigger[typ]) {
			bd.Reasons = append(bd.Reasons, "rule:"+trigger[typ])
			return single(d, c)
		}
	}
	if fired(CueReasoning) && !fired(CueRealtime) {
		bd.Reasons = append(bd.Reasons, "rule:"+CueReasoning)
		d.Action = DirectAnswer
		return d
	}
	for _, typ := range order {
		if c, ok := passing[typ]; ok {
			bd.Reasons = append(bd.Reasons, "gate_passed_untriggered")
			return single(d, c)
		}
	}
	if fired(CueRealtime) || fired(CueStable) || fired(CueWorkflow) {
		bd.Reasons = append(bd.Reasons, "rule:nothing_passed")
		d.Action, d.Question = Clarify, questionWeak
		return d
	}
	bd.Reasons = append(bd.Reasons, "no_trigger")
	d.Action = DirectAnswer
	return d
}

func single(d Decision, c Candidate) Decision {
	d.Action = ActionOf(c.Type)
	d.Steps = []Step{{Action: d.Action, Ref: c.Ref}}
	return d
}
