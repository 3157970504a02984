package disambig

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Most rules do not fire on most prompts, and a case-insensitive regular
// expression is the costliest step of routing (two thirds of the time on
// the peer's 133 rules before this filter). So each trigger is reduced to
// literals of which the prompt must contain at least one for the trigger
// to have a chance; the expression itself runs only when one is present.
// BenchmarkApply measures it.

// prefilter is a set of lower-case literals; nil means "always run".
type prefilter []string

// mayMatch reports whether the lower-cased prompt contains a literal.
func (p prefilter) mayMatch(prompt string) bool {
	if p == nil {
		return true
	}
	for _, lit := range p {
		if strings.Contains(prompt, lit) {
			return true
		}
	}
	return false
}

// newPrefilter derives the literals of a case-insensitive trigger.
func newPrefilter(trigger string) prefilter {
	re, err := syntax.Parse(trigger, syntax.Perl|syntax.FoldCase)
	if err != nil {
		return nil
	}
	return required(re.Simplify())
}

// required returns literals one of which every match contains, or nil.
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any part's literals will do; the longest shortest literal filters best.
		var best []string
		bestLen := 0
		for _, sub := range re.Sub {
			if lits := required(sub); lits != nil {
				if l := shortest(lits); l > bestLen {
					best, bestLen = lits, l
				}
			}
		}
		return best
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			lits := required(sub)
			if lits == nil {
				return nil
			}
			all = append(all, lits...)
		}
		return all
	}
	return nil
}

func shortest(lits []string) int {
	n := -1
	for _, l := range lits {
		if c := utf8.RuneCountInString(l); n < 0 || c < n {
			n = c
		}
	}
	return n
}
