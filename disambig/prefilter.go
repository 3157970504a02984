package disambig

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"
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
	case syntax.OpCharClass:
		// A class of a few characters ('[抓爬]', a case-folded 's'): one
		// of them must occur.
		var lits []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] >= rune(maxClassLiterals-len(lits)) {
				return nil
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if lit := strings.ToLower(string(r)); !slices.Contains(lits, lit) {
					lits = append(lits, lit)
				}
			}
		}
		if len(lits) == 0 {
			return nil
		}
		return [][]string{lits}
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

// maxClassLiterals bounds the characters of a class that required reads
// as literals: a digit class ([0-9]) and the case variants of a letter fit,
// '.' and a range of scripts do not.
const maxClassLiterals = 16

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
	groups = required(re.Simplify())
	sort.SliceStable(groups, func(i, j int) bool { return len(groups[i]) < len(groups[j]) })
	return groups, nil
}

// literalMemo remembers, for one prompt, which literals it contains: the
// rules share most of theirs ("慢", "react"), and each is searched once.
// Literals are numbered across the set (Set.memo); state is 0 unknown, 1
// present, 2 absent. The zero memo searches every time.
//
// Most literals are absent from any one prompt, and the built-in rules
// have thousands, so a search is first screened by a 4,096-bit filter of
// the prompt's characters and character pairs: a literal whose first pair
// is not in it cannot occur. Measured: the screen cut rule matching from
// 75 µs to a few µs a prompt (BenchmarkRoute).
type literalMemo struct {
	state  []uint8
	lits   *literalTable
	filter *[64]uint64
}

// literalTable is a set's literals, numbered: their text end to end, the
// end of each (little-endian uint32) and the filter key of each one's
// opening (uint16). A cached set's table is the cache file's bytes as
// they are: 3,713 built-in literals, each a string and a key decoded on
// every hook call, were 4 % of its instructions (callgrind).
type literalTable struct {
	text []byte
	ends []byte
	keys []byte
}

func (t *literalTable) len() int { return len(t.ends) / 4 }

// at returns literal i, a view of the text, never written; false where
// its ends are out of order or beyond the text. A cached table is not
// checked whole when it loads (valid): each literal read is, and a
// damaged one is in no prompt (TestDamagedLiteralsNeverMatch).
func (t *literalTable) at(i int32) (string, bool) {
	start := uint32(0)
	if i > 0 {
		start = binary.LittleEndian.Uint32(t.ends[4*i-4:])
	}
	end := binary.LittleEndian.Uint32(t.ends[4*i:])
	if start > end || end > uint32(len(t.text)) {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(t.text[start:end]), end-start), true
}

func (t *literalTable) key(i int32) uint16 {
	return binary.LittleEndian.Uint16(t.keys[2*i:]) & (filterBits - 1)
}

// add numbers a literal next.
func (t *literalTable) add(lit string) {
	t.text = append(t.text, lit...)
	t.ends = binary.LittleEndian.AppendUint32(t.ends, uint32(len(t.text)))
	t.keys = binary.LittleEndian.AppendUint16(t.keys, openingKey(lit))
}

// valid reports whether the table's columns agree in length, in constant
// time; each literal's ends are checked where it is read (at). Checking
// every end of the built-in rules' 3,713 literals on each load was
// 0.08 M instructions of a hook process at 50 skills (cachegrind: the
// cache's decode, 94 K before, 10 K after).
func (t *literalTable) valid() bool {
	return len(t.ends)%4 == 0 && len(t.keys) == 2*t.len()
}

// openingKey hashes a text's first character pair (or its one character)
// into the filter's 4,096 positions.
func openingKey(s string) uint16 {
	r0, n := utf8.DecodeRuneInString(s)
	if n == len(s) {
		return pairKey(r0, -1)
	}
	r1, _ := utf8.DecodeRuneInString(s[n:])
	return pairKey(r0, r1)
}

func pairKey(a, b rune) uint16 {
	h := uint32(a)*0x9e3779b1 ^ uint32(b)*0x85ebca6b
	return uint16((h ^ h>>15) & (filterBits - 1))
}

// filterBits is the size of the prompt filter, 64 words of 64 bits.
const filterBits = 4096

// promptFilter sets the filter bits of every character and pair of prompt.
func promptFilter(prompt string) *[64]uint64 {
	var f [64]uint64
	prev := rune(-2)
	for _, r := range prompt {
		for _, k := range [2]uint16{pairKey(r, -1), pairKey(prev, r)} {
			f[k>>6] |= 1 << (k & 63)
		}
		prev = r
	}
	return &f
}

func (m literalMemo) has(prompt string, id int32) bool {
	switch m.state[id] {
	case 1:
		return true
	case 2:
		return false
	}
	k := m.lits.key(id)
	in := m.filter[k>>6]&(1<<(k&63)) != 0
	if in {
		lit, ok := m.lits.at(id)
		in = ok && strings.Contains(prompt, lit)
	}
	m.state[id] = 2
	if in {
		m.state[id] = 1
	}
	return in
}

// mayMatch reports whether the lower-cased prompt holds every group of the
// branch. Groups are checked smallest first: the branch usually fails on
// the first, and a small group fails fastest.
func (m literalMemo) mayMatch(b *Branch, prompt string) bool {
	if m.state != nil && (b.ids != nil || b.Literals == nil) {
		return allGroups(b.ids, func(id int32) bool { return m.has(prompt, id) })
	}
	return allGroups(b.Literals, func(lit string) bool { return strings.Contains(prompt, lit) })
}

// allGroups reports whether every group has a member that is present.
func allGroups[T any](groups [][]T, present func(T) bool) bool {
	for _, g := range groups {
		if !slices.ContainsFunc(g, present) {
			return false
		}
	}
	return true
}

// exactMatch finds what a plain-text branch matches, as the guarded
// regular expression would: the leftmost occurrence that stands as whole
// words (match.go), and at that position the first alternative in pattern
// order. It returns the start byte and the length in runes, or -1, -1.
func exactMatch(alts []string, prompt string) (start, length int) {
	at, n := -1, -1
	for _, lit := range alts {
		if i := wordIndex(prompt, lit); i >= 0 && (at < 0 || i < at) {
			at, n = i, utf8.RuneCountInString(lit)
		}
	}
	return at, n
}

// wordIndex returns the first occurrence of lit in prompt that neither
// begins nor ends inside a word, or -1.
func wordIndex(prompt, lit string) int {
	for from := 0; from <= len(prompt); {
		i := strings.Index(prompt[from:], lit)
		if i < 0 {
			return -1
		}
		i += from
		if wholeWords(prompt, i, i+len(lit)) {
			return i
		}
		_, size := utf8.DecodeRuneInString(prompt[i:])
		from = i + max(size, 1)
	}
	return -1
}

// branches splits a trigger into its top-level alternatives, each with its
// filter and its engine. A trigger such as
// '(react|vue).{0,25}(慢|卡顿)|首屏慢|lighthouse' compiles, whole, to a
// program too large for Go's fast backtracking matcher; apart, only the
// branches whose literals occur are compiled and run, each small, and the
// plain-text ones not at all. Measured on the built-in rules: route 689 µs
// -> see BenchmarkRoute. A branch RE2 cannot compile (look-around) runs on
// the backtracking engine; its filter is that of the branch read as RE2
// without its look-around (screenPattern).
func branches(trigger string) []Branch {
	alts := splitTopLevel(trigger)
	// Every branch must stand as an expression of its own; a split that
	// cut through something the splitter does not model keeps the trigger
	// whole, which is only slower.
	engines := make([]Engine, len(alts))
	for i, alt := range alts {
		e, err := checkPattern(alt)
		if err != nil {
			alts = []string{trigger}
			engines = []Engine{RE2}
			engines[0], _ = checkPattern(trigger)
			break
		}
		engines[i] = e
	}
	var out []Branch
	for i, alt := range alts {
		b := Branch{Pattern: alt, Engine: engines[i], re: &matcher{}}
		if b.Engine == Backtrack {
			b.Literals, _ = analyse(screenPattern(alt))
		} else {
			b.Literals, b.Exact = analyse(alt)
		}
		out = append(out, b)
	}
	return out
}

// splitTopLevel splits a pattern at the '|' that are outside any group or
// character class. An unbalanced pattern is returned whole.
func splitTopLevel(p string) []string {
	// A leading flag group ("(?s)") applies to the whole trigger: it is
	// not split, since no branch would keep it.
	if strings.HasPrefix(p, "(?") && !strings.HasPrefix(p, "(?:") && !strings.HasPrefix(p, "(?P<") {
		return []string{p}
	}
	var parts []string
	depth, inClass, start := 0, false, 0
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case strings.HasPrefix(p[i:], `\Q`):
			// Quoted text runs to \E (or the end): its '|' are literal.
			end := strings.Index(p[i+2:], `\E`)
			if end < 0 {
				return []string{p}
			}
			i += 2 + end + 1
		case c == '\\':
			i++ // skip the escaped byte
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
			if i+1 < len(p) && p[i+1] == ']' {
				i++ // a ']' first in a class is literal
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			parts = append(parts, p[start:i])
			start = i + 1
		}
	}
	if depth != 0 || inClass {
		return []string{p}
	}
	return append(parts, p[start:])
}
