package eval

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/skillroute/skillroute/action"
)

// Action labels. A case may say what the action layer should do: its
// "action" (one of the six), and what that uses: "memory" (a memory id)
// for inject_memory, "tool" (a tool name) for call_tool, and "steps" for a
// composite_action, [{"action","ref"}, …] in order. "expected" keeps its
// meaning: the skill of load_skill or of a composite's skill step, else
// "none". The fixtures the labels refer to (the memories and the tools)
// are passed to the command (--memories, --tools).

// checkAction validates a case's action labels.
func (c Case) checkAction() error {
	if c.Action == "" {
		if c.Memory != "" || c.Tool != "" || len(c.Steps) > 0 {
			return fmt.Errorf("\"memory\", \"tool\" and \"steps\" label an \"action\", which is missing")
		}
		return nil
	}
	if !slices.Contains(action.Actions(), c.Action) {
		return fmt.Errorf("action %q is none of %s", c.Action, strings.Join(action.Actions(), ", "))
	}
	if c.Memory != "" && c.Action != action.InjectMemory {
		return fmt.Errorf("\"memory\" labels inject_memory, not %s (a composite names its memory in \"steps\")", c.Action)
	}
	if c.Tool != "" && c.Action != action.CallTool {
		return fmt.Errorf("\"tool\" labels call_tool, not %s (a composite names its tool in \"steps\")", c.Action)
	}
	if len(c.Steps) > 0 && c.Action != action.Composite {
		return fmt.Errorf("\"steps\" label composite_action, not %s", c.Action)
	}
	if c.Action == action.Composite {
		if len(c.Steps) < 2 {
			return fmt.Errorf("composite_action needs at least two \"steps\"")
		}
		seen := map[string]bool{}
		for _, s := range c.Steps {
			if s.Action != action.InjectMemory && s.Action != action.LoadSkill && s.Action != action.CallTool {
				return fmt.Errorf("a step's action is inject_memory, load_skill or call_tool, not %q", s.Action)
			}
			if s.Ref == "" {
				return fmt.Errorf("step %s has no \"ref\"", s.Action)
			}
			if seen[s.Action] {
				return fmt.Errorf("composite steps are of different types; %s appears twice", s.Action)
			}
			seen[s.Action] = true
		}
	}
	return nil
}

// HasActions reports whether any case carries an action label.
func HasActions(cases []Case) bool {
	return slices.ContainsFunc(cases, func(c Case) bool { return c.Action != "" })
}

// ActionOutcome is what the action layer did with one labelled case.
type ActionOutcome struct {
	Case
	Decision action.Decision
}

// Actions returns the action layer's decision for each outcome whose
// case has an action label, as HookLines worked it out: each prompt is
// routed once, for the skill figures and the action figures alike.
func Actions(outs []Outcome) []ActionOutcome {
	var out []ActionOutcome
	for _, o := range outs {
		if o.Action != "" && o.Hooked {
			out = append(out, ActionOutcome{Case: o.Case, Decision: o.ActionDecision})
		}
	}
	return out
}

// HookLines works out, for each outcome of a single prompt, the action
// layer's decision (with its router) after the router's, and the skill
// the hook's line would name: a skill is injected by load_skill, or by a
// composite's skill step; any other action injects none. eval reports it
// beside the router's figures, since what a user is shown is the line:
// until session 20 the action layer's skill bar withheld a third of the
// router's right MEDIUM routes on the published skills, which the router's
// figures did not show.
func HookLines(outs []Outcome, l *action.Layer, ar action.Router, now time.Time) {
	for i := range outs {
		o := &outs[i]
		d := ar.Decide(l.Input(o.Query, o.Decision, action.Context{Now: now}))
		o.Hooked, o.Injected, o.ActionDecision = true, "", d
		if d.Ref(action.LoadSkill) != "" {
			o.Injected = o.Decision.Skill
		}
	}
}

// ActionReport is the action layer's accuracy on labelled cases.
type ActionReport struct {
	N       int
	Correct int // the action is the labelled one
	// Refs: of the cases that label a memory, tool or steps, how many the
	// decision got exactly right (action and what it uses).
	RefN, RefCorrect int
	// Confusion[expected][decided] counts cases.
	Confusion map[string]map[string]int
	Misses    []ActionOutcome
}

// Accuracy is the share of cases with the labelled action.
func (r ActionReport) Accuracy() float64 {
	if r.N == 0 {
		return 0
	}
	return float64(r.Correct) / float64(r.N)
}

// RefAccuracy is the share of cases with a labelled memory, tool or
// steps that the decision matched exactly.
func (r ActionReport) RefAccuracy() float64 {
	if r.RefN == 0 {
		return 0
	}
	return float64(r.RefCorrect) / float64(r.RefN)
}

// SummarizeActions builds the report.
func SummarizeActions(outs []ActionOutcome) ActionReport {
	rep := ActionReport{Confusion: map[string]map[string]int{}}
	for _, o := range outs {
		rep.N++
		if rep.Confusion[o.Action] == nil {
			rep.Confusion[o.Action] = map[string]int{}
		}
		rep.Confusion[o.Action][o.Decision.Action]++
		if o.Decision.Action == o.Action {
			rep.Correct++
		} else {
			rep.Misses = append(rep.Misses, o)
		}
		if want := o.labelSteps(); len(want) > 0 {
			rep.RefN++
			if o.Decision.Action == o.Action && slices.Equal(o.Decision.Steps, want) {
				rep.RefCorrect++
			}
		}
	}
	return rep
}

// labelSteps are the steps a case labels: its composite steps, or the one
// step of a labelled memory, tool, or load_skill skill.
func (c Case) labelSteps() []action.Step {
	switch {
	case len(c.Steps) > 0:
		return c.Steps
	case c.Memory != "":
		return []action.Step{{Action: action.InjectMemory, Ref: c.Memory}}
	case c.Tool != "":
		return []action.Step{{Action: action.CallTool, Ref: c.Tool}}
	case c.Action == action.LoadSkill && c.Expected != None:
		return []action.Step{{Action: action.LoadSkill, Ref: c.Expected}}
	}
	return nil
}

// Write prints the report for people; verbose adds the confusion matrix
// of actions and every miss.
func (r ActionReport) Write(w io.Writer, title string, verbose bool) {
	fmt.Fprintf(w, "%s\n", title)
	fmt.Fprintf(w, "  action accuracy %.1f%% (%d/%d); what it uses (memory, tool, skill, steps) exactly right %.1f%% (%d/%d)\n",
		100*r.Accuracy(), r.Correct, r.N, 100*r.RefAccuracy(), r.RefCorrect, r.RefN)
	actions := action.Actions()
	fmt.Fprintf(w, "  per action (recall):\n")
	for _, a := range actions {
		row := r.Confusion[a]
		n := 0
		for _, k := range row {
			n += k
		}
		if n > 0 {
			fmt.Fprintf(w, "    %-17s %5.1f%%  n=%d\n", a, 100*float64(row[a])/float64(n), n)
		}
	}
	if !verbose {
		return
	}
	short := map[string]string{action.Composite: "composite", action.CallTool: "tool", action.InjectMemory: "memory",
		action.LoadSkill: "skill", action.DirectAnswer: "direct", action.Clarify: "clarify"}
	fmt.Fprintf(w, "  confusion (rows: labelled, columns: decided):\n    %-17s", "")
	for _, a := range actions {
		fmt.Fprintf(w, " %9s", short[a])
	}
	fmt.Fprintln(w)
	for _, a := range actions {
		if len(r.Confusion[a]) == 0 {
			continue
		}
		fmt.Fprintf(w, "    %-17s", a)
		for _, b := range actions {
			fmt.Fprintf(w, " %9d", r.Confusion[a][b])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  action misses:\n")
	for _, o := range r.Misses {
		fmt.Fprintf(w, "    [%s -> %s] %s\n", o.Action, o.Decision.String(), oneLine(o.Query))
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 100 {
		return string(r[:100]) + "…"
	}
	return s
}
