package disambig

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// How a trigger matches.
//
// Engines. A trigger is a Go (RE2) expression when RE2 can compile it:
// linear time, whatever the prompt. Rules written for JavaScript engines
// (bookworm's) also use look-around and JavaScript's classes ("[^]"),
// which RE2 cannot compile; such a pattern runs on regexp2, a port of
// .NET's backtracking engine, in its ECMAScript mode, with every match
// bounded by MatchTimeout. Each top-level alternative of a trigger picks
// its engine on its own, so a JavaScript rule's plain branches still run
// on RE2 and still pass the literal screen (prefilter.go).
//
// Whole words. An English trigger matches whole words: where the text a
// trigger matched begins or ends with a word character (ASCII letter,
// digit or '_', as \b reads them), the prompt must not go on with another
// word character there. So 'pen ?test' no longer fires on "open testing",
// nor 'api' inside "rapid". Chinese text has no spaces to mark words, so a
// match that begins or ends with a Chinese character is accepted anywhere,
// as before; "用react写" still matches 'react'. The condition is compiled
// into the expression itself (a \b next to each edge character that is a
// word character, see guard), so the engine finds the first match that
// satisfies it: 'test|testing' still matches all of "testing".

// MatchTimeout bounds one backtracking match. A catastrophic pattern
// (nested quantifiers over a long prompt) gives up after it, and the rule
// does not fire on that prompt; the hook's own budget is 200 ms for the
// whole route, so a tenth of it is the most one rule may take. regexp2's
// own matches of the bookworm rules take microseconds
// (TestBacktrackingTimeBound measures a runaway one).
const MatchTimeout = 20 * time.Millisecond

// timeoutCheckPeriod is how often regexp2's clock ticks while a bounded
// match runs. Its default of 100 ms would let a 20 ms bound run for up to
// 200 ms; at 5 ms a match ends within MatchTimeout + 10 ms.
const timeoutCheckPeriod = 5 * time.Millisecond

// Engine says which engine runs a pattern.
type Engine uint8

// The engines.
const (
	RE2       Engine = iota // Go's regexp: linear time
	Backtrack               // regexp2 (ECMAScript mode), bounded by MatchTimeout
)

// String names the engine, as messages say it.
func (e Engine) String() string {
	if e == Backtrack {
		return "backtracking"
	}
	return "RE2"
}

// anyEngine asks the matcher to pick the engine itself, once.
const anyEngine Engine = 255

var setClock sync.Once

// checkPattern compiles a pattern as a check: with RE2 when it can, else
// with the backtracking engine. The error is RE2's when neither can.
func checkPattern(p string) (Engine, error) {
	_, err := regexp.Compile("(?i)" + p)
	if err == nil {
		return RE2, nil
	}
	if _, err2 := compileBacktrack(p); err2 == nil {
		return Backtrack, nil
	}
	return RE2, err
}

// matcher is a pattern compiled on first use, with its whole-word guard.
// Copies of a rule share it.
type matcher struct {
	once     sync.Once
	re       *regexp.Regexp
	bt       *regexp2.Regexp
	check    bool         // re is unguarded: check the edges of its match (guard failed)
	timeouts atomic.Int64 // backtracking matches that ran out of time
	// form is the guarded expression (guardedForm) when the rules cache
	// brought it (formSet), "" for a pattern guard does not model:
	// working it out again is most of a compile (see guardedForm).
	form    string
	formSet bool
	// parts is the guarded form split at its top level (splitForm), when
	// the rules cache brought it: the first prunedUses matches compile
	// only the alternatives the prompt can match (pruned).
	parts []formPart
	uses  atomic.Int32
}

// prunedUses is how many matches of a branch compile a pruned expression
// of their own before the whole form is compiled once for the rest. A
// hook process matches a branch once: the long branch of the built-in
// perf-ui-slow rule, compiled whole, was a sixth of its instructions
// (callgrind of one prompt event); in a process that routes many prompts
// (eval) the whole form soon pays for itself.
const prunedUses = 2

// compile builds the matcher's expression once. A pattern that no longer
// compiles (a damaged cache) leaves both nil: it never matches, rather
// than stop the router.
func (m *matcher) compile(pattern string, engine Engine) {
	m.once.Do(func() {
		if engine == anyEngine {
			engine, _ = checkPattern(pattern)
		}
		if engine == Backtrack {
			m.bt, _ = compileBacktrack(pattern)
			return
		}
		if !m.formSet {
			m.form, m.formSet = guardedForm(pattern), true
		}
		m.re, m.check = compileForm(pattern, m.form)
	})
}

// find returns where the pattern matches a lower-cased prompt as whole
// words: the start byte and the length in runes, or -1, -1.
func (m *matcher) find(pattern string, engine Engine, prompt string) (start, length int) {
	if m.parts != nil && m.uses.Add(1) <= prunedUses {
		expr, ok := pruned(m.parts, prompt)
		if !ok {
			return -1, -1 // an alternation of which no alternative can match
		}
		if re, err := regexp.Compile(expr); err == nil {
			return findIn(re, false, prompt)
		}
	}
	m.compile(pattern, engine)
	switch {
	case m.re != nil:
		return findIn(m.re, m.check, prompt)
	case m.bt != nil:
		match, err := m.bt.FindStringMatch(prompt)
		if err != nil {
			m.timeouts.Add(1)
			return -1, -1
		}
		if match == nil {
			return -1, -1
		}
		return runeOffset(prompt, match.Index), match.Length
	}
	return -1, -1
}

// findIn runs an RE2 expression on a lower-cased prompt, with the
// whole-word check when the expression lacks its guard: the start byte
// and the length in runes, or -1, -1.
func findIn(re *regexp.Regexp, check bool, prompt string) (start, length int) {
	loc := re.FindStringIndex(prompt)
	if loc == nil || check && !wholeWords(prompt, loc[0], loc[1]) {
		return -1, -1
	}
	return loc[0], utf8.RuneCountInString(prompt[loc[0]:loc[1]])
}

// formPart is one part of a guarded form split at its top level: an
// expression kept whole (re), or an alternation (alts).
type formPart struct {
	re   string
	alts []formAlt
}

// formAlt is one alternative of an alternation: its expression and the
// literals it requires (required: one of each group).
type formAlt struct {
	re   string
	need [][]string
}

// splitForm splits a guarded form (guardedForm) into the parts of its top
// level concatenation, each alternation into its alternatives with what
// they require; nil when no part is an alternation. An alternative that
// requires a literal the prompt lacks cannot match anywhere in it, so
// leaving it out changes no match: the leftmost match, and at its start
// the earliest alternative, are those of the whole form (TestCacheRoundTrip
// compares the two over every rule's examples).
func splitForm(form string) []formPart {
	tree, err := syntax.Parse(form, syntax.Perl)
	if err != nil {
		return nil
	}
	subs := []*syntax.Regexp{tree}
	if tree.Op == syntax.OpConcat {
		subs = tree.Sub
	}
	var parts []formPart
	split := false
	for _, sub := range subs {
		if sub.Op != syntax.OpAlternate {
			parts = append(parts, formPart{re: printRE(sub)})
			continue
		}
		split = true
		alts := make([]formAlt, len(sub.Sub))
		for i, alt := range sub.Sub {
			alts[i] = formAlt{re: printRE(alt), need: required(alt.Simplify())}
		}
		parts = append(parts, formPart{alts: alts})
	}
	if !split {
		return nil
	}
	return parts
}

// pruned writes the split form with only the alternatives whose literals
// occur in the lower-cased prompt; false when an alternation keeps none,
// and the form cannot match.
func pruned(parts []formPart, prompt string) (string, bool) {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("(?:")
		if p.alts == nil {
			b.WriteString(p.re)
		}
		kept := 0
		for _, a := range p.alts {
			if !allGroups(a.need, func(lit string) bool { return strings.Contains(prompt, lit) }) {
				continue
			}
			if kept > 0 {
				b.WriteByte('|')
			}
			b.WriteString(a.re)
			kept++
		}
		if p.alts != nil && kept == 0 {
			return "", false
		}
		b.WriteString(")")
	}
	return b.String(), true
}

// compileBacktrack compiles a pattern for regexp2 with the whole-word
// condition as look-around, which that engine has.
func compileBacktrack(p string) (*regexp2.Regexp, error) {
	setClock.Do(func() { regexp2.SetTimeoutCheckPeriod(timeoutCheckPeriod) })
	// At each edge: not (a word character before and a word character
	// after), so a word is never entered or left in its middle.
	const edge = `(?:(?<![A-Za-z0-9_])|(?![A-Za-z0-9_]))`
	re, err := regexp2.Compile(edge+"(?:"+p+")"+edge, regexp2.IgnoreCase|regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = MatchTimeout
	return re, nil
}

// guardedForm returns an RE2 pattern in the flag-free form compileForm
// compiles (plain, with the word boundaries of guardEdges, printed by
// printRE), or "" when guard does not model its shape. It is the larger
// part of compiling a branch: for the built-in perf-ui-slow rule's long
// branch, 0.55 of 0.92 ms (parse, plain, guard and print against the
// compile of the printed form), so the rules cache stores it (Save) and
// the hook compiles only the printed form (BenchmarkLoadCachedAndFire).
func guardedForm(p string) string {
	tree, err := syntax.Parse(p, syntax.Perl|syntax.FoldCase)
	if err != nil {
		return ""
	}
	g, ok := guardEdges(plain(tree))
	if !ok {
		return ""
	}
	return printRE(g)
}

// compileForm compiles a pattern by its guarded form (guardedForm: a
// word boundary beside each edge character that is a word character);
// without one, or when the form does not compile, as written with its
// match to be checked afterwards (check), which can miss a whole-word
// match that overlaps a rejected one.
func compileForm(p, form string) (re *regexp.Regexp, check bool) {
	if form != "" {
		if re, err := regexp.Compile(form); err == nil {
			return re, false
		}
	}
	re, _ = regexp.Compile("(?i)" + p)
	return re, true
}

// plain returns a copy of a parsed expression that needs no flags: the
// prompt is lower-cased, so a case-folded literal becomes its lower-case
// text (or, for a character whose case variants lower-case apart, such as
// σ and ς, a class of them), and '.' a class. The guarded tree is printed
// by printRE, which knows no flags: syntax's own printer, which does,
// spends milliseconds per large class deciding on them, and dropped a
// parenthesis on trees that mix flagged and unflagged parts (Go 1.26).
func plain(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Flags &= syntax.NonGreedy
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			break
		}
		var parts []*syntax.Regexp
		var text []rune
		flush := func() {
			if len(text) > 0 {
				parts = append(parts, &syntax.Regexp{Op: syntax.OpLiteral, Rune: text})
				text = nil
			}
		}
		for _, r := range re.Rune {
			variants := lowerVariants(r)
			if len(variants) == 1 {
				text = append(text, variants[0])
				continue
			}
			flush()
			class := make([]rune, 0, 2*len(variants))
			for _, v := range variants {
				class = append(class, v, v)
			}
			parts = append(parts, &syntax.Regexp{Op: syntax.OpCharClass, Rune: class})
		}
		flush()
		return concat(parts...)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return &syntax.Regexp{Op: syntax.OpCharClass, Rune: classRanges(re)}
	}
	if len(re.Sub) > 0 {
		c.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, sub := range re.Sub {
			c.Sub[i] = plain(sub)
		}
	}
	return &c
}

// lowerVariants returns, sorted, the lower-case forms of the characters
// that fold to r: what a case-insensitive r can meet in a lower-cased
// prompt.
func lowerVariants(r rune) []rune {
	out := []rune{unicode.ToLower(r)}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if l := unicode.ToLower(f); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

// maxGuardGrowth bounds how much larger than the pattern its guarded form
// may be; past it the edges are checked after matching instead.
const maxGuardGrowth = 16

// guardEdges returns the tree with the whole-word condition at both edges.
func guardEdges(tree *syntax.Regexp) (*syntax.Regexp, bool) {
	size := len(printRE(tree))
	g, _, ok := guard(tree, true)
	if !ok || g == nil {
		return nil, false
	}
	g, _, ok = guard(g, false)
	if !ok || g == nil || len(printRE(g)) > maxGuardGrowth*size+256 {
		return nil, false
	}
	return g, true
}

// printRE prints a flag-free expression (plain) in RE2 syntax.
func printRE(re *syntax.Regexp) string {
	var b strings.Builder
	writeRE(&b, re)
	return b.String()
}

func writeRE(b *strings.Builder, re *syntax.Regexp) {
	group := func(sub *syntax.Regexp) {
		b.WriteString("(?:")
		writeRE(b, sub)
		b.WriteString(")")
	}
	switch re.Op {
	case syntax.OpNoMatch:
		b.WriteString(`[^\x00-\x{10FFFF}]`)
	case syntax.OpEmptyMatch:
		b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if r < utf8.RuneSelf && strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
				b.WriteByte('\\')
				b.WriteRune(r)
			} else if unicode.IsPrint(r) {
				b.WriteRune(r)
			} else {
				fmt.Fprintf(b, `\x{%x}`, r)
			}
		}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			b.WriteString(`[^\x00-\x{10FFFF}]`)
			return
		}
		b.WriteByte('[')
		for i := 0; i+1 < len(re.Rune); i += 2 {
			fmt.Fprintf(b, `\x{%x}-\x{%x}`, re.Rune[i], re.Rune[i+1])
		}
		b.WriteByte(']')
	case syntax.OpAnyCharNotNL:
		b.WriteString(`[^\n]`)
	case syntax.OpAnyChar:
		b.WriteString(`(?s:.)`)
	case syntax.OpBeginLine:
		b.WriteString(`(?m:^)`)
	case syntax.OpEndLine:
		b.WriteString(`(?m:$)`)
	case syntax.OpBeginText:
		b.WriteString(`\A`)
	case syntax.OpEndText:
		b.WriteString(`\z`)
	case syntax.OpWordBoundary:
		b.WriteString(`\b`)
	case syntax.OpNoWordBoundary:
		b.WriteString(`\B`)
	case syntax.OpCapture:
		group(re.Sub[0]) // only where the match lies is read
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		group(re.Sub[0])
		switch re.Op {
		case syntax.OpStar:
			b.WriteByte('*')
		case syntax.OpPlus:
			b.WriteByte('+')
		case syntax.OpQuest:
			b.WriteByte('?')
		default:
			switch {
			case re.Max < 0:
				fmt.Fprintf(b, "{%d,}", re.Min)
			case re.Min == re.Max:
				fmt.Fprintf(b, "{%d}", re.Min)
			default:
				fmt.Fprintf(b, "{%d,%d}", re.Min, re.Max)
			}
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b.WriteByte('?')
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpAlternate {
				group(sub)
			} else {
				writeRE(b, sub)
			}
		}
	case syntax.OpAlternate:
		for i, sub := range re.Sub {
			if i > 0 {
				b.WriteByte('|')
			}
			writeRE(b, sub)
		}
	}
}

// isWord reports whether r is a word character as \b reads it.
func isWord(r rune) bool {
	return r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
}

// wholeWords reports whether prompt[start:end] neither begins nor ends in
// the middle of a word.
func wholeWords(prompt string, start, end int) bool {
	if start > 0 {
		before, _ := utf8.DecodeLastRuneInString(prompt[:start])
		first, _ := utf8.DecodeRuneInString(prompt[start:])
		if isWord(before) && isWord(first) {
			return false
		}
	}
	if end < len(prompt) && end > start {
		last, _ := utf8.DecodeLastRuneInString(prompt[:end])
		after, _ := utf8.DecodeRuneInString(prompt[end:])
		if isWord(last) && isWord(after) {
			return false
		}
	}
	return true
}

// runeOffset returns the byte offset of the n-th rune of s.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// guard rewrites re so that the character it consumes first (first) or
// last (!first) is preceded (followed) by a word boundary whenever that
// character is a word character: next to a word character, \b asserts
// exactly that the other side is not one. It returns the rewritten
// expression restricted to non-empty matches (nil when re matches only
// the empty string), whether re can match the empty string, and ok false
// for a shape it does not model (a repeated sub-expression that can match
// the empty string).
func guard(re *syntax.Regexp, first bool) (g *syntax.Regexp, nullable bool, ok bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return re, false, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, true, true
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil, true, true
		}
		edge := re.Rune[0]
		if !first {
			edge = re.Rune[len(re.Rune)-1]
		}
		if !isWord(edge) {
			return re, false, true
		}
		return bounded(re, first), false, true
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		word, other := splitClass(classRanges(re))
		if len(word) == 0 {
			return re, false, true
		}
		w := bounded(&syntax.Regexp{Op: syntax.OpCharClass, Rune: word}, first)
		if len(other) == 0 {
			return w, false, true
		}
		return alternate(w, &syntax.Regexp{Op: syntax.OpCharClass, Rune: other}), false, true
	case syntax.OpCapture:
		sub, nullable, ok := guard(re.Sub[0], first)
		if sub == nil || !ok {
			return nil, nullable, ok
		}
		c := *re
		c.Sub = []*syntax.Regexp{sub}
		return &c, nullable, true
	case syntax.OpAlternate:
		var subs []*syntax.Regexp
		for _, s := range re.Sub {
			g, n, ok := guard(s, first)
			if !ok {
				return nil, false, false
			}
			nullable = nullable || n
			if g != nil {
				subs = append(subs, g)
			}
		}
		return alternate(subs...), nullable, true
	case syntax.OpConcat:
		return guardConcat(re.Sub, first)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		x := re.Sub[0]
		gx, xNullable, ok := guard(x, first)
		if !ok || xNullable {
			return nil, false, false
		}
		if gx == nil {
			return nil, true, true
		}
		min, max := 1, 1
		switch re.Op {
		case syntax.OpStar:
			min, max = 0, -1
		case syntax.OpPlus:
			min, max = 1, -1
		case syntax.OpQuest:
			min, max = 0, 1
		case syntax.OpRepeat:
			min, max = re.Min, re.Max
		}
		if max == 0 {
			return nil, true, true
		}
		// One guarded repetition at the edge, the rest as written.
		restMax := max - 1
		if max < 0 {
			restMax = -1
		}
		parts := []*syntax.Regexp{gx}
		if restMax != 0 {
			parts = append(parts, &syntax.Regexp{Op: syntax.OpRepeat, Flags: re.Flags, Min: maxInt(min-1, 0), Max: restMax, Sub: []*syntax.Regexp{x}})
		}
		if !first {
			parts[0], parts[len(parts)-1] = parts[len(parts)-1], parts[0]
		}
		return concat(parts...), min == 0, true
	}
	return nil, false, false
}

// guardConcat guards the edge of a sequence: the edge character comes from
// the first part (from the edge) that consumes one, each part before it
// matching empty.
func guardConcat(subs []*syntax.Regexp, first bool) (*syntax.Regexp, bool, bool) {
	n := len(subs)
	at := func(i int) int { // i-th part counted from the edge
		if first {
			return i
		}
		return n - 1 - i
	}
	var alts []*syntax.Regexp
	var empties []int // parts before the edge part, each matched empty
	for i := range n {
		k := at(i)
		g, nullable, ok := guard(subs[k], first)
		if !ok {
			return nil, false, false
		}
		if g != nil {
			parts := make([]*syntax.Regexp, 0, n)
			for j := range n {
				switch {
				case j == k:
					parts = append(parts, g)
				case slices.Contains(empties, j):
					e, ok := emptyPart(subs[j])
					if !ok {
						return nil, false, false
					}
					parts = append(parts, e)
				case (first && j > k) || (!first && j < k):
					parts = append(parts, subs[j])
				}
			}
			alts = append(alts, concat(parts...))
		}
		if !nullable {
			return alternate(alts...), false, true
		}
		empties = append(empties, k)
	}
	return alternate(alts...), true, true
}

// emptyPart returns what a part that may match empty is when it does: a
// zero-width assertion stays, a repetition that may be skipped vanishes;
// ok is false when the part cannot match empty.
func emptyPart(re *syntax.Regexp) (*syntax.Regexp, bool) {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return re, true
	case syntax.OpStar, syntax.OpQuest:
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}, true
	case syntax.OpRepeat:
		if re.Min == 0 {
			return &syntax.Regexp{Op: syntax.OpEmptyMatch}, true
		}
		if e, ok := emptyPart(re.Sub[0]); ok {
			return e, true
		}
	case syntax.OpPlus, syntax.OpCapture:
		return emptyPart(re.Sub[0])
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return re, true
		}
	case syntax.OpAlternate:
		var subs []*syntax.Regexp
		for _, sub := range re.Sub {
			if e, ok := emptyPart(sub); ok {
				subs = append(subs, e)
			}
		}
		if len(subs) > 0 {
			return alternate(subs...), true
		}
	case syntax.OpConcat:
		parts := make([]*syntax.Regexp, len(re.Sub))
		for i, sub := range re.Sub {
			e, ok := emptyPart(sub)
			if !ok {
				return nil, false
			}
			parts[i] = e
		}
		return concat(parts...), true
	}
	return nil, false
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

var wordBoundary = &syntax.Regexp{Op: syntax.OpWordBoundary}

// bounded puts a word boundary before (first) or after re.
func bounded(re *syntax.Regexp, first bool) *syntax.Regexp {
	if first {
		return concat(wordBoundary, re)
	}
	return concat(re, wordBoundary)
}

func concat(parts ...*syntax.Regexp) *syntax.Regexp {
	if len(parts) == 1 {
		return parts[0]
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: parts}
}

func alternate(subs ...*syntax.Regexp) *syntax.Regexp {
	switch len(subs) {
	case 0:
		return &syntax.Regexp{Op: syntax.OpNoMatch}
	case 1:
		return subs[0]
	}
	return &syntax.Regexp{Op: syntax.OpAlternate, Sub: subs}
}

// classRanges returns the rune ranges a one-character expression accepts.
// Case folding was applied to the class's ranges by the parser.
func classRanges(re *syntax.Regexp) []rune {
	switch re.Op {
	case syntax.OpAnyChar:
		return []rune{0, utf8.MaxRune}
	case syntax.OpAnyCharNotNL:
		return []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}
	}
	return re.Rune
}

// wordRanges are the word characters, sorted.
var wordRanges = []rune{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}

// splitClass splits sorted rune ranges into word characters and the rest.
func splitClass(ranges []rune) (word, other []rune) {
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for j := 0; j < len(wordRanges) && lo <= hi; j += 2 {
			wlo, whi := wordRanges[j], wordRanges[j+1]
			if hi < wlo {
				break
			}
			if lo > whi {
				continue
			}
			if lo < wlo {
				other = append(other, lo, wlo-1)
			}
			word = append(word, max(lo, wlo), min(hi, whi))
			lo = whi + 1
		}
		if lo <= hi {
			other = append(other, lo, hi)
		}
	}
	return word, other
}

// screenPattern returns, for the literal screen of a backtracking
// pattern, an RE2 pattern that matches wherever it does: its look-around
// groups removed (they only restrict where the rest may match, so what the
// rest must contain, the whole must too), and JavaScript's spellings that
// RE2 lacks rewritten ("\\u4e00" as "\\x{4e00}", "[^]" as any character).
func screenPattern(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+5 < len(p) && p[i+1] == 'u' && isHex(p[i+2:i+6]):
			b.WriteString(`\x{` + p[i+2:i+6] + `}`)
			i += 5
			continue
		case c == '\\' && i+1 < len(p):
			b.WriteString(p[i : i+2])
			i++
			continue
		case strings.HasPrefix(p[i:], "[^]"):
			b.WriteString(`(?s:.)`)
			i += 2
			continue
		}
		if c == '(' && (strings.HasPrefix(p[i:], "(?=") || strings.HasPrefix(p[i:], "(?!") ||
			strings.HasPrefix(p[i:], "(?<=") || strings.HasPrefix(p[i:], "(?<!")) {
			if end := closing(p, i); end > 0 {
				i = end
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isHex(s string) bool {
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// closing returns the index of the ')' that closes the group opening at
// p[open], or -1.
func closing(p string, open int) int {
	depth, inClass := 0, false
	for i := open; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
