package disambig

import (
	"encoding/binary"
	"fmt"
	mathbits "math/bits"
	"strconv"
	"sync"
	"unsafe"

	"github.com/skillroute/skillroute/store"
)

// A rules file is parsed and checked once; the hook then loads the checked
// rules from a cache file, skipping YAML and regular-expression compiling
// (17 ms for the built-in rules, against about 0.1 ms for the cache).

// cacheKind names rules caches in their store frame.
const cacheKind = "rules"

// cacheVersion is the format version of the rules cache: 7 since the
// store frame replaced the "skillroute-rules 6" opening line, 8 since the
// payload carries the count of rules read, each branch's engine and the
// problems as fields (rule, whether skipped) rather than messages, 9 since
// each expression branch carries its guarded form (formOf) and the
// literals their filter keys, 10 since the literals are a table read in
// place (literalTable) and each rule's branches two counted parts, their
// literal groups in words and the rest, decoded on first use, and a
// guarded form is followed by its split (splitForm), 11 since the
// rules' headers lie together, each with the lengths of its screen,
// pattern and body, which follow them all: the screens, then each rule's
// pattern and body (Save).
const cacheVersion = 11

// How a branch's guarded form is stored: none (a plain-text or
// backtracking branch, which has none), "guard does not model it", or
// the form itself.
const (
	formNone = iota
	formUnguarded
	formGuarded
)

// Save writes a checked rule set, with the problems found in it, to path.
// Notes and examples stay out: routing does not read them, and `rules
// lint` parses the file itself.
// The format is a plain sequence of counted strings: the cache is read on
// every hook call, and gob's reflection cost more than the rest of loading
// (0.5 ms). It is written in a store frame, whose checksum LoadCached
// verifies.
func (s *Set) Save(path string, problems []Problem) error {
	var w cacheWriter
	w.str(s.Source)
	w.bool(s.Lenient)
	w.num(s.Read)
	w.num(len(problems))
	for _, p := range problems {
		w.str(p.File)
		w.num(p.Line)
		w.num(p.Rule)
		w.str(p.RuleID)
		w.str(p.Reason)
		w.bool(p.Skipped)
	}
	s.number()
	w.str(string(s.lits.text))
	w.str(string(s.lits.ends))
	w.str(string(s.lits.keys))
	s.writeScreens(&w)
	w.num(len(s.Rules))
	// The rules' headers first, together, then their screens, then each
	// rule's pattern and body, in the rules' order: a hook reads every
	// header, the screens of the rules its prompt's literals point to, and
	// the bodies of a few. Each header before its rule's rest put every
	// header on a page of its own in the 508 KB of the built-in rules: 5.8
	// faults a hook process on the file's pages in the rules' decoding and
	// screens, 2.0 so (perf record -d -e page-faults of 20 prompt events
	// at 50 skills).
	var screens, rest, body cacheWriter
	for i := range s.Rules {
		r := &s.Rules[i]
		for _, f := range []string{r.ID, r.Boost, r.ExclusiveWith, r.OnKeyword,
			strconv.FormatFloat(r.Weight, 'g', -1, 64), strconv.Itoa(r.Line)} {
			w.str(f)
		}
		w.list(r.Penalty)
		bs := r.AllBranches()
		// The screen: each branch's literal groups in words (uint32), each
		// branch and group counted, so that a branch whose group fails,
		// or the rest of a group one of whose literals occurs, is skipped
		// in one step.
		var screen words
		screen.put(len(bs))
		for _, b := range bs {
			size := 1
			for _, g := range b.ids {
				size += 1 + len(g)
			}
			screen.put(size)
			screen.put(len(b.ids))
			for _, g := range b.ids {
				screen.put(len(g))
				for _, id := range g {
					screen.put(int(id))
				}
			}
		}
		// The body: what the branches match with.
		body.buf = body.buf[:0]
		for _, b := range bs {
			body.str(b.Pattern)
			body.num(int(b.Engine))
			body.list(b.Exact)
			kind, form := formOf(b)
			body.num(kind)
			if kind == formGuarded {
				body.str(form)
				body.parts(partsOf(b, form))
			}
		}
		w.num(len(screen.b))
		w.num(len(r.Pattern))
		w.num(len(body.buf))
		screens.buf = append(screens.buf, screen.b...)
		rest.buf = append(append(rest.buf, r.Pattern...), body.buf...)
	}
	w.buf = append(append(w.buf, screens.buf...), rest.buf...)
	return store.WriteCache(path, cacheKind, cacheVersion, w.buf)
}

// LoadCached reads a rule set written by Save, and the problems it had. A
// cache that is truncated, damaged (its checksum fails), of another
// version or not a rules cache is an error naming the file: the caller
// parses the rules again.
func LoadCached(path string) (*Set, []Problem, error) {
	data, err := store.LoadCache(path, cacheKind, cacheVersion)
	if err != nil {
		return nil, nil, err
	}
	return decodeCache(path, data)
}

// decodeCache reads a rule set from the payload of its cache file, named
// path in errors. Damaged data is an error, never a panic
// (FuzzLoadCached).
func decodeCache(path string, data []byte) (*Set, []Problem, error) {
	r := cacheReader{data: data}
	s := &Set{Source: r.str(), Lenient: r.bool(), Read: r.val()}
	problems := make([]Problem, r.num())
	for i := range problems {
		problems[i] = Problem{File: r.str(), Line: r.val(), Rule: r.val(), RuleID: r.str(), Reason: r.str(), Skipped: r.bool()}
	}
	// The literals and their filter keys, read in place (literalTable).
	s.lits = literalTable{text: r.bytes(r.num()), ends: r.bytes(r.num()), keys: r.bytes(r.num())}
	if r.err == nil && !s.lits.valid() {
		r.err = fmt.Errorf("damaged rules cache")
	}
	s.prepare.Do(func() {}) // numbered already
	s.screens = ruleIndex{always: r.bytes(r.num()), keys: r.bytes(r.num()), entries: r.bytes(r.num()), rules: r.bytes(r.num())}
	n := r.num()
	if r.err == nil {
		s.Rules = make([]Rule, n)
	}
	// A rule's branches, most of the file, are decoded when a prompt
	// passes the literal groups of one of them (lazyBranches): decoding
	// all of them was a tenth of a hook process (perf record of 200
	// prompt events at 50 skills), and a prompt passes few.
	bodies := make([]lazyBranches, len(s.Rules))
	sizes := make([]int, 3*len(s.Rules)) // each rule's screen, pattern and body
	var penalties arena[string]          // a few allocations, not one per rule
	for i := range s.Rules {
		rule := &s.Rules[i]
		rule.ID, rule.Boost = r.str(), r.str()
		rule.ExclusiveWith, rule.OnKeyword = r.str(), r.str()
		rule.Weight, _ = strconv.ParseFloat(r.str(), 64)
		rule.Line, _ = strconv.Atoi(r.str())
		rule.Penalty = r.listIn(&penalties, 256)
		sizes[3*i], sizes[3*i+1], sizes[3*i+2] = r.num(), r.num(), r.num()
		if rule.OnKeyword != "" {
			rule.kw = &matcher{} // read only when the keyword is set (onKeywordMatches)
		}
		if r.err != nil {
			break
		}
	}
	// The rest of each rule, viewed where it lies, not read: decoding
	// touches the headers' pages alone (TestDecodeCacheReadsHeadersOnly).
	for i := range s.Rules {
		bodies[i].screen = r.bytes(sizes[3*i])
	}
	for i := range s.Rules {
		if r.err != nil {
			break
		}
		rule, lazy := &s.Rules[i], &bodies[i]
		pattern := r.bytes(sizes[3*i+1])
		rule.Pattern = unsafe.String(unsafe.SliceData(pattern), len(pattern))
		lazy.body = r.bytes(sizes[3*i+2])
		lazy.lits = s.lits.len()
		rule.lazy = lazy
	}
	if r.err == nil && len(r.data) != 0 {
		r.err = fmt.Errorf("damaged rules cache")
	}
	if r.err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, r.err)
	}
	return s, problems, nil
}

// lazyBranches is a cached rule's branches, decoded on first use. Its
// screen holds each branch's literal groups (Branch.ids) as Save wrote
// them, read in place to tell whether a prompt passes one branch; its
// body, the rest of the branches. A rule whose bytes do not decode (a
// damaged cache the frame's checksum missed) has no branches: it never
// fires.
type lazyBranches struct {
	once     sync.Once
	screen   []byte
	body     []byte
	lits     int // literals in the set: ids must be below
	branches []Branch
}

// mayFire reports whether the prompt holds a literal of each group of
// one branch (literalMemo.mayMatch), reading the screen in place; true
// without the set's memo (Rule.Match), or for a damaged screen, which
// get then refuses.
func (l *lazyBranches) mayFire(prompt string, seen literalMemo) bool {
	if seen.state == nil {
		return true
	}
	r := words{b: l.screen}
	for n := r.next(); n > 0 && !r.bad; n-- {
		b := r.sub(r.next())
		pass := true
		for groups := b.next(); groups > 0 && pass && !b.bad; groups-- {
			g := b.sub(b.next())
			found := false
			for !found && len(g.b) > 0 {
				if id := g.next(); id < l.lits {
					found = seen.has(prompt, int32(id))
				}
			}
			pass = found
		}
		if pass || b.bad {
			return true
		}
	}
	return r.bad
}

// get returns the branches, decoding them once.
func (l *lazyBranches) get() []Branch {
	l.once.Do(func() {
		screen, body := words{b: l.screen}, cacheReader{data: l.body}
		bs := decodeBranches(&screen, &body, l.lits)
		if !screen.bad && body.err == nil && len(screen.b) == 0 && len(body.data) == 0 {
			l.branches = bs
		}
	})
	return l.branches
}

// decodeBranches reads the branches of one rule, as Save writes them: the
// literal groups from the screen, the rest from the body; literal ids
// must be below lits. The rule's lists of text, literal numbers and
// matchers share a few backing arrays: the hook runs with its collector
// off, so every fresh page is a fault.
func decodeBranches(screen *words, body *cacheReader, lits int) []Branch {
	var idArena arena[int32]
	var groupArena arena[[]int32]
	var strArena arena[string]
	var matchers arena[matcher]
	forms := formArenas{strs: &strArena}
	n := screen.next()
	if screen.bad || n > len(screen.b)/4 {
		return nil
	}
	out := make([]Branch, n)
	for bi := range out {
		b := &out[bi]
		// Literals stay nil: the set's memo works on the numbers, and
		// Rule.Match without a set falls back to the expression.
		b.Pattern, b.Engine, b.Exact = body.str(), Engine(body.val()), body.listIn(&strArena, ruleStrings)
		if b.Engine > Backtrack {
			body.err = fmt.Errorf("damaged rules cache")
		}
		kind, form, parts := body.val(), "", []formPart(nil)
		switch kind {
		case formNone, formUnguarded:
		case formGuarded:
			form = body.str()
			parts = body.parts(&forms)
		default:
			body.err = fmt.Errorf("damaged rules cache")
		}
		if b.Exact == nil {
			// A plain-text branch is decided by its text (find): only
			// the others need a matcher, about a third of the built-in
			// rules' branches.
			b.re = &matchers.take(1, n)[0]
			b.re.form, b.re.formSet, b.re.parts = form, kind != formNone, parts
		}
		g := screen.sub(screen.next())
		groups := g.next()
		if groups > len(g.b)/4 {
			return nil
		}
		b.ids = groupArena.take(groups, 16)
		for gi := range b.ids {
			group := g.sub(g.next())
			ids := idArena.take(len(group.b)/4, 256)
			for k := range ids {
				if ids[k] = int32(group.next()); int(ids[k]) >= lits || ids[k] < 0 {
					return nil
				}
			}
			b.ids[gi] = ids
		}
		if g.bad || len(g.b) != 0 || body.err != nil || screen.bad {
			return nil
		}
	}
	return out
}

// ruleIndex lists a set's rules by the literals of their screens
// (each branch's first literal group, the smallest): a rule can fire only
// on a prompt that holds one of them, or when a branch of it requires no
// literal (always). The literals are listed by their filter keys
// (literalMemo), so that a prompt looks up only those whose key its
// filter holds, about one per bit it sets: reading every rule's screen,
// then looking up every screen literal, were 8 % and 4 % of a hook
// process's instructions (callgrind). Rules are numbered in the set's
// order.
//
// All in words: always, the rules with a branch that requires nothing;
// keys, for each filter key, the end of its entries; entries, pairs of a
// literal and the end of its rules; rules, the rules of each entry.
type ruleIndex struct {
	always, keys, entries, rules []byte
}

// buildScreens builds the rule index of a set whose literals are
// numbered.
func (s *Set) buildScreens() ruleIndex {
	var always words
	byLiteral := make([][]int, s.lits.len())
	for i := range s.Rules {
		seen := map[int32]bool{}
		for _, b := range s.Rules[i].AllBranches() {
			if len(b.ids) == 0 {
				if len(always.b) == 0 || int(binary.LittleEndian.Uint32(always.b[len(always.b)-4:])) != i {
					always.put(i)
				}
				continue
			}
			for _, id := range b.ids[0] {
				if !seen[id] {
					seen[id] = true
					byLiteral[id] = append(byLiteral[id], i)
				}
			}
		}
	}
	byKey := make([][]int32, filterBits)
	for id, rs := range byLiteral {
		if len(rs) > 0 {
			k := s.lits.key(int32(id))
			byKey[k] = append(byKey[k], int32(id))
		}
	}
	var keys, entries, rules words
	n, r := 0, 0
	for _, ids := range byKey {
		for _, id := range ids {
			for _, rule := range byLiteral[id] {
				rules.put(rule)
			}
			r += len(byLiteral[id])
			entries.put(int(id))
			entries.put(r)
		}
		n += len(ids)
		keys.put(n)
	}
	return ruleIndex{always: always.b, keys: keys.b, entries: entries.b, rules: rules.b}
}

// writeScreens writes the rule index of a set whose literals are
// numbered.
func (s *Set) writeScreens(w *cacheWriter) {
	x := s.buildScreens()
	for _, part := range [][]byte{x.always, x.keys, x.entries, x.rules} {
		w.str(string(part))
	}
}

// mayFire returns which of the set's n rules may fire on the prompt,
// marking in seen the screen literals it looked up; nil for all of them
// (an index that does not fit the set, or no index).
func (x *ruleIndex) mayFire(prompt string, seen literalMemo, n int) []bool {
	if x.keys == nil || seen.state == nil || len(x.keys) != 4*filterBits || len(x.entries)%8 != 0 {
		return nil
	}
	maybe := make([]bool, n)
	mark := func(rs []byte) bool {
		for i := 0; i+4 <= len(rs); i += 4 {
			r := binary.LittleEndian.Uint32(rs[i:])
			if r >= uint32(n) {
				return false
			}
			maybe[r] = true
		}
		return true
	}
	if !mark(x.always) {
		return nil
	}
	lits := uint32(seen.lits.len())
	for w, bits := range seen.filter {
		for bits != 0 {
			k := w*64 + mathbits.TrailingZeros64(bits)
			bits &= bits - 1
			from, to := uint32(0), binary.LittleEndian.Uint32(x.keys[4*k:])
			if k > 0 {
				from = binary.LittleEndian.Uint32(x.keys[4*k-4:])
			}
			if from > to || uint64(to)*8 > uint64(len(x.entries)) {
				return nil
			}
			for e := from; e < to; e++ {
				id, end := binary.LittleEndian.Uint32(x.entries[8*e:]), binary.LittleEndian.Uint32(x.entries[8*e+4:])
				start := uint32(0)
				if e > 0 {
					start = binary.LittleEndian.Uint32(x.entries[8*e-4:])
				}
				if id >= lits || start > end || uint64(end)*4 > uint64(len(x.rules)) {
					return nil
				}
				if seen.has(prompt, int32(id)) && !mark(x.rules[4*int(start):4*int(end)]) {
					return nil
				}
			}
		}
	}
	return maybe
}

// words reads and writes a sequence of little-endian uint32s; reading past
// the end, or a count past it, marks the reader bad and reads zeros.
type words struct {
	b   []byte
	bad bool
}

func (w *words) put(v int) { w.b = binary.LittleEndian.AppendUint32(w.b, uint32(v)) }

func (w *words) next() int {
	if len(w.b) < 4 {
		w.bad, w.b = true, nil
		return 0
	}
	v := binary.LittleEndian.Uint32(w.b)
	w.b = w.b[4:]
	return int(v)
}

// sub reads the next n words as a reader of their own.
func (w *words) sub(n int) words {
	if n < 0 || n > len(w.b)/4 {
		w.bad, w.b = true, nil
		return words{bad: true}
	}
	out := words{b: w.b[:4*n]}
	w.b = w.b[4*n:]
	return out
}

// formOf returns what the cache keeps of a branch's guarded form: an
// expression branch's (guardedForm, worked out here unless its matcher
// has it), nothing for the others. Working out every form of the built-in
// rules takes about 15 ms, once per rules cache; the hook then skips it
// for each branch it compiles.
func formOf(b Branch) (kind int, form string) {
	if b.Engine != RE2 || b.Exact != nil {
		return formNone, ""
	}
	if b.re != nil && b.re.formSet {
		form = b.re.form
	} else {
		form = guardedForm(b.Pattern)
	}
	if form == "" {
		return formUnguarded, ""
	}
	return formGuarded, form
}

// partsOf returns what the cache keeps of a guarded form split at its top
// level (splitForm): the matcher's, or worked out here.
func partsOf(b Branch, form string) []formPart {
	if b.re != nil && b.re.parts != nil {
		return b.re.parts
	}
	return splitForm(form)
}

// parts writes a split form: its count of parts (0 for none), and each
// part's count of alternatives (0 for an expression kept whole) and its
// expression, or each alternative's expression and literal groups.
func (w *cacheWriter) parts(parts []formPart) {
	if !w.optLen(len(parts), parts == nil) {
		return
	}
	for _, p := range parts {
		w.num(len(p.alts))
		if p.alts == nil {
			w.str(p.re)
			continue
		}
		for _, a := range p.alts {
			w.str(a.re)
			w.num(len(a.need))
			for _, g := range a.need {
				w.list(g)
			}
		}
	}
}

// parts reads a split form written by cacheWriter.parts.
func (r *cacheReader) parts(a *formArenas) []formPart {
	n, ok := r.optLen()
	if !ok {
		return nil
	}
	parts := takeOrMake(&a.parts, n, ruleParts)
	for i := range parts {
		alts := r.num()
		if alts == 0 {
			parts[i].re = r.str()
			continue
		}
		parts[i].alts = a.alts.take(alts, ruleParts)
		for j := range parts[i].alts {
			alt := &parts[i].alts[j]
			alt.re = r.str()
			if groups := r.num(); groups > 0 { // else nil, as splitForm leaves it
				alt.need = a.needs.take(groups, ruleParts)
			}
			for g := range alt.need {
				alt.need[g] = r.listIn(a.strs, ruleStrings)
			}
		}
		if r.err != nil {
			return nil
		}
	}
	return parts
}

// ruleStrings is the chunk of the arenas of one rule's strings (its
// branches' plain texts, its forms' literals): a rule decoded on a prompt
// holds tens of them, and a chunk of 1,024 made each such rule allocate
// 16 KB of which it used a few hundred bytes (allocation profile of a
// 50-skill hook process).
const ruleStrings = 64

// ruleParts is the chunk of the arenas of one rule's form parts,
// alternatives and literal groups: a rule's guarded forms have a dozen
// or so of each.
const ruleParts = 16

// formArenas hold the guarded forms' parts as decodeBranches reads them:
// a few allocations instead of one per part, alternative and literal list
// (330 of a 50-skill hook process's 3,000, by its allocation profile).
type formArenas struct {
	parts arena[formPart]
	alts  arena[formAlt]
	needs arena[[]string]
	strs  *arena[string] // the branches' own, for their plain texts
}

// takeOrMake is a.take, with an empty slice, not nil, for n == 0, as make
// gives.
func takeOrMake[T any](a *arena[T], n, chunk int) []T {
	if n == 0 {
		return []T{}
	}
	return a.take(n, chunk)
}

// arena hands out slices of a few large allocations (of chunk elements,
// or more for a longer slice) instead of many small ones. A slice handed
// out stays valid when the arena grows.
type arena[T any] struct{ free []T }

func (a *arena[T]) take(n, chunk int) []T {
	if n > len(a.free) {
		a.free = make([]T, max(n, chunk))
	}
	out := a.free[:n:n]
	a.free = a.free[n:]
	return out
}

type cacheWriter struct{ buf []byte }

func (w *cacheWriter) num(n int)    { w.buf = binary.AppendUvarint(w.buf, uint64(n)) }
func (w *cacheWriter) str(s string) { w.num(len(s)); w.buf = append(w.buf, s...) }
func (w *cacheWriter) bool(b bool) {
	if b {
		w.num(1)
	} else {
		w.num(0)
	}
}

// list writes a nil list apart from an empty one: a nil Exact means "not
// a plain-text trigger".
func (w *cacheWriter) list(l []string) {
	if !w.optLen(len(l), l == nil) {
		return
	}
	for _, s := range l {
		w.str(s)
	}
}

// optLen writes the length of a list that may be nil, apart from an
// empty one: 0 for nil, else n+1. It reports whether the items follow.
func (w *cacheWriter) optLen(n int, isNil bool) bool {
	if isNil {
		w.num(0)
		return false
	}
	w.num(n + 1)
	return true
}

type cacheReader struct {
	data []byte
	err  error
}

func (r *cacheReader) num() int {
	if r.err != nil {
		return 0
	}
	// Most numbers (lengths, counts) take one byte: read it without
	// binary.Uvarint's loop, which with val was a fifth of loading the
	// rules (perf record of BenchmarkLoadCached).
	if len(r.data) > 0 && r.data[0] < 0x80 {
		v := int(r.data[0])
		if v > len(r.data) {
			r.err = fmt.Errorf("damaged rules cache")
			return 0
		}
		r.data = r.data[1:]
		return v
	}
	v, n := binary.Uvarint(r.data)
	if n <= 0 || v > uint64(len(r.data)) {
		r.err = fmt.Errorf("damaged rules cache")
		return 0
	}
	r.data = r.data[n:]
	return int(v)
}

// val reads a number that is not a length (a literal's id).
func (r *cacheReader) val() int {
	if r.err != nil {
		return 0
	}
	if len(r.data) > 0 && r.data[0] < 0x80 { // one byte, as in num
		v := int(r.data[0])
		r.data = r.data[1:]
		return v
	}
	v, n := binary.Uvarint(r.data)
	if n <= 0 || v > 1<<31 {
		r.err = fmt.Errorf("damaged rules cache")
		return 0
	}
	r.data = r.data[n:]
	return int(v)
}

func (r *cacheReader) str() string {
	n := r.num()
	if r.err != nil || n > len(r.data) {
		r.err = fmt.Errorf("damaged rules cache")
		return ""
	}
	// A view into the file's bytes, which are never written: thousands of
	// literals load without an allocation each (15,000 allocations before).
	s := unsafe.String(unsafe.SliceData(r.data), n)
	r.data = r.data[n:]
	return s
}

func (r *cacheReader) bool() bool { return r.num() == 1 }

// bytes reads n bytes as they are (zeros, and a damaged cache, when
// fewer are left).
func (r *cacheReader) bytes(n int) []byte {
	if r.err != nil || n > len(r.data) {
		r.err = fmt.Errorf("damaged rules cache")
		return make([]byte, n)
	}
	out := r.data[:n]
	r.data = r.data[n:]
	return out
}

// listIn reads a list as cacheWriter.list wrote it (nil apart from
// empty), into the arena's backing array.
func (r *cacheReader) listIn(a *arena[string], chunk int) []string {
	n, ok := r.optLen()
	if !ok {
		return nil
	}
	if n == 0 {
		return []string{} // empty, not nil
	}
	out := a.take(n, chunk)
	for i := range out {
		out[i] = r.str()
	}
	return out
}

// optLen reads what cacheWriter.optLen wrote: the list's length, and
// false for a nil list (or a damaged file).
func (r *cacheReader) optLen() (int, bool) {
	n := r.num()
	if n == 0 || r.err != nil {
		return 0, false
	}
	return n - 1, true
}
