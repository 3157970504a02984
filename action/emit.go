package action

import (
	"fmt"
	"strings"
)

// Emission: what the hook puts in front of the model for a decision. Each
// step is one short, factual line, in the decision's order; direct_answer
// puts nothing, clarify one line suggesting the question to ask.

// memoryLine is the injected line of a remembered fact.
func memoryLine(c Candidate) string {
	return fmt.Sprintf("skillroute: remembered fact (%s): %s", c.Ref, strings.TrimSpace(c.Text))
}

// toolLine is the injected hint of a declared tool.
func toolLine(c Candidate) string {
	desc := strings.TrimSpace(c.Text)
	if desc != "" {
		desc = " (" + strings.TrimSuffix(desc, ".") + ")"
	}
	return fmt.Sprintf("skillroute: the declared tool %q can answer this from live state%s.", c.Ref, desc)
}

// Emit returns the text to inject for a decision: skillLine stands for
// the skill step (the hook words it), the candidates of in supply the
// facts and the tools. "" for direct_answer.
func Emit(d Decision, in Input, skillLine string) string {
	if d.Action == Clarify {
		return "skillroute: " + d.Question
	}
	var lines []string
	for _, s := range d.Steps {
		c, ok := in.candidate(typeOfAction(s.Action), s.Ref)
		switch {
		case s.Action == LoadSkill:
			if skillLine != "" {
				lines = append(lines, skillLine)
			}
		case !ok:
			continue
		case s.Action == InjectMemory:
			lines = append(lines, memoryLine(c))
		case s.Action == CallTool:
			lines = append(lines, toolLine(c))
		}
	}
	return strings.Join(lines, " ")
}

// Tokens estimates what a decision injects: its steps' Tokens, or the
// question of a clarification.
func Tokens(d Decision, in Input) int {
	if d.Action == Clarify {
		return TextTokens("skillroute: " + d.Question)
	}
	n := 0
	for _, s := range d.Steps {
		if c, ok := in.candidate(typeOfAction(s.Action), s.Ref); ok {
			n += c.Tokens
		}
	}
	return n
}

func typeOfAction(action string) string {
	for _, t := range typeOrder {
		if ActionOf(t) == action {
			return t
		}
	}
	return ""
}

// candidate finds a candidate of the input.
func (in Input) candidate(typ, ref string) (Candidate, bool) {
	for _, c := range in.Candidates {
		if c.Type == typ && c.Ref == ref {
			return c, true
		}
	}
	return Candidate{}, false
}
