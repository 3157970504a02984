package disambig

import (
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Most rules do not fire on most prompts, and compiling and running a
// case-insensitive regular expression is the costliest step of routing. So
// each trigger is reduced, once, to what a prompt must contain for it to
// have a chance: groups of literals, one of each group required ("react"
// or "vue", and "慢" or "卡", for '(react|vue).*(慢|卡)'). The expression is
// compiled and run only for the rules whose groups all occur. A trigger
// that is nothing but alternatives of plain text ('渗透测试|pentest') is
// decided by its literals alone and never compiled. BenchmarkApply and
// BenchmarkHookProcess measure the effect: without the filter, compiling
// the rules was most of the hook's time.

// required returns the literal groups a match must contain (each group a
// disjunction, all groups required), or nil when nothing is required.
func required(re *syntax.Regexp) [][]string {
	switch re.Op {
	case syntax.OpLiteral:
		return [][]string{{strings.ToLower(string(re.Rune))}}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every part must match: every part's groups are required.
		var all [][]string
		for _, sub := range re.Sub {
			all = append(all, required(sub)...)
		}
		return all
	case syntax.OpAlternate:
		// One branch must match: each branch contributes its most
		// selective group, and the union of those is required.
		var any []string
		for _, sub := range re.Sub {
			groups := required(sub)
			if len(groups) == 0 {
				return nil
			}
			any = append(any, best(groups)...)
		}
		return [][]string{any}
	}
	return nil
}

// best picks the group whose shortest literal is longest: the rarest.
func best(groups [][]string) []string {
	var out []string
	bestLen := -1
	for _, g := range groups {
		if l := shortest(g); l > bestLen {
			out, bestLen = g, l
		}
	}
	return out
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

// literalAlternatives returns the alternatives of a trigger made only of
// plain text ('a|b|c', case-insensitive), in pattern order; nil otherwise.
func literalAlternatives(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpCapture:
		return literalAlternatives(re.Sub[0])
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			lits := literalAlternatives(sub)
			if lits == nil {
				return nil
			}
			out = append(out, lits...)
		}
		return out
	case syntax.OpEmptyMatch:
		return []string{""}
	case syntax.OpQuest:
		// Greedy: the text first, then nothing.
		if lits := literalAlternatives(re.Sub[0]); lits != nil && re.Flags&syntax.NonGreedy == 0 {
			return append(lits, "")
		}
	case syntax.OpConcat:
		// The parser factors common prefixes out ("渗透测试|渗透漏洞" is read
		// as 渗透(?:测试|漏洞)): multiply them back, in preference order.
		out := []string{""}
		for _, sub := range re.Sub {
			lits := literalAlternatives(sub)
			if lits == nil || len(out)*len(lits) > maxAlternatives {
				return nil
			}
			next := make([]string, 0, len(out)*len(lits))
			for _, a := range out {
				for _, b := range lits {
					next = append(next, a+b)
				}
			}
			out = next
		}
		return out
	}
	return nil
}

// maxAlternatives bounds the plain-text expansion of one trigger; beyond
// it the regular expression is cheaper than the list.
const maxAlternatives = 256

// analyse derives a trigger's filter and, for plain-text triggers, its
// exact alternatives.
func analyse(trigger string) (groups [][]string, exact []string) {
	re, err := syntax.Parse(trigger, syntax.Perl|syntax.FoldCase)
	if err != nil {
		return nil, nil
	}
	// Parse, not Simplify: simplification factors common prefixes out of
	// alternatives ("渗透测试|渗透" -> "渗透(?:测试)?"), which hides the text.
	if exact = literalAlternatives(re); exact != nil {
		for _, lit := range exact {
			if lit == "" {
				return nil, nil // an empty alternative matches everything
			}
		}
		return [][]string{exact}, exact
	}
	return required(re.Simplify()), nil
}

// mayMatch reports whether the lower-cased prompt holds every group.
func mayMatch(groups [][]string, prompt string) bool {
	for _, g := range groups {
		found := false
		for _, lit := range g {
			if strings.Contains(prompt, lit) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// exactMatch finds what a plain-text trigger matches, as the regular
// expression would: the leftmost occurrence, and at that position the first
// alternative in pattern order. It returns the matched length in runes, or
// -1.
func exactMatch(alts []string, prompt string) int {
	at, length := -1, -1
	for _, lit := range alts {
		if i := strings.Index(prompt, lit); i >= 0 && (at < 0 || i < at) {
			at, length = i, utf8.RuneCountInString(lit)
		}
	}
	return length
}
