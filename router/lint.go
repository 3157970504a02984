package router

import (
	"fmt"
)

// ExampleFailure is a rule example that does not route to the rule's boost.
type ExampleFailure struct {
	File    string
	Line    int
	RuleID  string
	Example string
	Want    string
	Got     string // "" when the router abstained
}

// Error names the rule's file and line, the example, and where it routes.
func (f ExampleFailure) Error() string {
	got := f.Got
	if got == "" {
		got = "nothing (abstained)"
	}
	return fmt.Sprintf("%s:%d: rule %s: example %q routes to %s, want %s", f.File, f.Line, f.RuleID, f.Example, got, f.Want)
}

// CheckExamples routes every rule's examples and returns those that do not
// reach the skill the rule boosts.
func (r *Router) CheckExamples() []ExampleFailure {
	var out []ExampleFailure
	for _, rule := range r.Rules.Rules {
		if rule.Boost == "" {
			continue
		}
		for _, ex := range rule.Examples {
			if d := r.Route(ex, Session{}); d.Skill != rule.Boost {
				out = append(out, ExampleFailure{File: r.Rules.Source, Line: rule.Line, RuleID: rule.ID, Example: ex, Want: rule.Boost, Got: d.Skill})
			}
		}
	}
	return out
}
