package disambig

import "regexp/syntax"

// FindWhole runs a trigger as one expression on a lower-cased prompt, with
// no literal screen and no splitting into branches: the reference the
// screened, split matching must agree with.
func FindWhole(pattern, prompt string) (start, length int) {
	return WholeFinder(pattern)(prompt)
}

// WholeFinder is FindWhole with the pattern compiled once.
func WholeFinder(pattern string) func(prompt string) (start, length int) {
	engine, err := checkPattern(pattern)
	m := &matcher{}
	return func(prompt string) (int, int) {
		if err != nil {
			return -1, -1
		}
		return m.find(pattern, engine, prompt)
	}
}

// Guarded reports whether an RE2 trigger's whole-word condition is
// compiled into its expression (not checked after matching).
func Guarded(pattern string) bool {
	_, check := compileForm(pattern, guardedForm(pattern))
	return !check
}

// Plain returns an RE2 trigger as the matcher prints it before guarding:
// without flags, for a lower-cased prompt.
func Plain(pattern string) string {
	tree, err := syntax.Parse(pattern, syntax.Perl|syntax.FoldCase)
	if err != nil {
		return ""
	}
	return printRE(plain(tree))
}

// DecodeCache exposes decodeCache to the fuzz target, which feeds it
// cache bodies without writing a file for each.
var DecodeCache = decodeCache

// Specificity returns, for each rule that fires on a lower-cased prompt,
// the length in runes of the text its trigger matched.
func Specificity(s *Set, prompt string) map[string]int {
	fired, length := s.fired(prompt)
	out := map[string]int{}
	for _, r := range fired {
		out[r.ID] = length[r]
	}
	return out
}

// Unscreened returns a copy of the set that tries every rule on every
// prompt: no rule index (ruleScreens), the reference the index must agree
// with.
func Unscreened(s *Set) *Set {
	out := s.Without()
	out.screensOnce.Do(func() {})
	return out
}
