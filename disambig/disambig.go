// Package disambig adjusts a ranking with external disambiguation rules.
//
// Keywords alone cannot tell "测试" in 单元测试 (unit tests) from 渗透测试
// (a pentest) or A/B 测试 (an experiment). A rule names a trigger (a regular
// expression over the prompt), the skill it favours and the skills it
// disfavours:
//
//   - id: test-pentest
//     note: 渗透测试 is security work, not unit testing
//     trigger: '渗透测试|penetration test|pentest'
//     boost: security-expert
//     penalty: [tester-expert]
//     weight: 0.3
//     examples: [下周上线前要做一次渗透测试]
//
// When rules fire, each boosted skill's score becomes base × (1 + w) with w
// the largest weight among the rules that boost it: the max, never the
// product, so three overlapping rules do not triple a score. A boosted
// skill that BM25 did not find enters at half the top score. A penalised
// skill is lowered by (1 − 0.3 × w) and, if it still stands above the skill
// its rule boosts, is put just below it: a rule's verdict on rank holds.
// When fired rules disagree, the most specific (the longest matched text)
// has the last word, over its penalties and over what weaker rules boosted;
// two equally specific rules that disagree on a pair (one penalises or
// outranks what the other boosts) leave it in the order of its own
// scores. Names and file order never decide.
//
// Rules adjust, they never bury: no score moves by more than √ClearLead
// from the candidate's own, and a rule touches only the skills its boosted
// skill could overtake, so a skill that wins clearly on its own evidence
// stays above whatever a rule favours.
//
// A trigger matches whole words in English and anywhere in Chinese, and a
// trigger written for JavaScript (look-around) runs on a backtracking
// engine with a time bound (match.go).
//
// Rules are read from our YAML (Parse), or built from RuleSpecs by an
// adapter for another router's file (package bookworm reads the bookworm
// router's disambiguation-rules.json) with Build, whose lenient option
// drops the rules that cannot work here. A rule may declare a mutual
// exclusion with another (mutual_exclusion: {with, on_keyword}): of the
// two, only one applies. A file's problems are counted by rule (Tally): a
// rule is loaded, loaded trimmed, or skipped.
package disambig

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/skillroute/skillroute/explain"
	"github.com/skillroute/skillroute/tokenize"
	"gopkg.in/yaml.v3"
)

// PenaltyFactor scales a rule's weight into the share a penalty removes:
// the peer's 0.3, enough to reorder near-ties without erasing a skill.
const PenaltyFactor = 0.3

// EntryShare is the share of the top score at which a boosted skill that
// BM25 did not score enters the ranking, as the peer does.
const EntryShare = 0.5

// BelowBoosted is where a penalised skill is put when it would stay above
// the boosted one: just under it, keeping the order of the rest.
const BelowBoosted = 0.95

// ClearLead is how far ahead on its own evidence a candidate must be to
// win clearly: no rule reorders two candidates whose own scores differ by
// this factor, and rules move a score by at most its square root (1.5)
// either way. Fitted by cross-validation (cmd/skillroute TestFitClearLead,
// run with -fit-rules): over 70 % of each dev set (dev, bookworm's
// golden-dev, real-dev, fresh, sessions; 30 % held out by hash), the mean
// top-1 of the sets climbs from 0.867 at 1.1 to 0.889 at 2.25, stays
// within 0.001 of it up to 4, and is 0.885 with no bound; 5-fold CV chose
// 2.25 in four folds (2.0 in one), CV top-1 0.883. On the held-out 30 %
// it routes as the unbounded rules do. 2.25 also lets a skill that only a
// rule names (entered at EntryShare of the top score, raised by at most
// 1.5) pass the top only where its rule pins the top down (÷ 1.5): a rule
// can name a skill BM25 missed, but not bury a strong match with it.
const ClearLead = 2.25

// Rule is one disambiguation rule.
type Rule struct {
	ID       string
	Note     string
	Pattern  string // the trigger as written; matched case-insensitively
	Boost    string // may be empty: a rule that only penalises
	Penalty  []string
	Weight   float64
	Examples []string
	Line     int // line in the rules file, 0 if unknown

	// Mutual exclusion: when the rule ExclusiveWith also fires and
	// OnKeyword matches the prompt, only one of the two applies.
	ExclusiveWith string
	OnKeyword     string

	// The trigger's top-level alternatives, each filtered and matched on
	// its own (prefilter.go). Nil for a rule loaded from the cache, which
	// decodes them when a prompt needs them: AllBranches reads either.
	Branches []Branch

	kw *matcher // OnKeyword, compiled on first use; shared by copies of the rule
	// lazy holds the branches of a rule loaded from the cache, decoded
	// when a prompt passes its screen; Branches stays nil. Shared by
	// copies of the rule.
	lazy *lazyBranches
}

// AllBranches returns the rule's branches: Branches, or for a rule loaded
// from the cache (whose Branches field stays nil) its branches, decoded
// now if they were not.
func (r *Rule) AllBranches() []Branch {
	if r.Branches == nil && r.lazy != nil {
		return r.lazy.get()
	}
	return r.Branches
}

// Branch is one top-level alternative of a trigger.
type Branch struct {
	Pattern string
	// Engine runs the branch: RE2, or the backtracking engine for a
	// pattern RE2 cannot compile.
	Engine Engine
	// What a prompt must contain for the branch to have a chance: one
	// literal of each group. Exact holds the alternatives of a plain-text
	// branch, which its literals decide without a regular expression.
	Literals [][]string
	Exact    []string

	ids [][]int32 // Literals numbered across the set, once (Set.memo)
	re  *matcher
}

// find returns where the branch matches a lower-cased prompt as whole
// words: start byte and length in runes, or -1.
func (b *Branch) find(prompt string, seen literalMemo) (start, length int) {
	if !seen.mayMatch(b, prompt) {
		return -1, -1
	}
	if b.Exact != nil {
		return exactMatch(b.Exact, prompt)
	}
	if b.re == nil {
		b.re = &matcher{} // built by hand, outside Parse
	}
	// Most branches never pass their filter on a given prompt, and
	// compiling them all cost the hook more than routing (17 ms for 73
	// rules): the expression is compiled on first use.
	return b.re.find(b.Pattern, b.Engine, prompt)
}

// onKeywordMatches reports whether the mutual-exclusion keyword matches,
// as whole words.
func (r *Rule) onKeywordMatches(prompt string) bool {
	if r.OnKeyword == "" {
		return true
	}
	if r.kw == nil {
		r.kw = &matcher{} // a Rule built by hand, outside Parse
	}
	start, _ := r.kw.find(r.OnKeyword, anyEngine, prompt)
	return start >= 0
}

// TimedOut returns how many of the rule's backtracking matches ran out of
// MatchTimeout, in this process: such a match does not fire the rule.
func (r *Rule) TimedOut() int64 {
	var n int64
	for _, b := range r.AllBranches() {
		if b.re != nil {
			n += b.re.timeouts.Load()
		}
	}
	return n
}

// Match reports whether the trigger matches a lower-cased prompt.
func (r *Rule) Match(prompt string) bool {
	return r.matchLength(prompt, literalMemo{}) >= 0
}

// matchLength returns the length in runes of the text the trigger matches
// in a lower-cased prompt, or -1: the rule's specificity. As the whole
// expression would: the leftmost match, and at one position the earliest
// alternative.
func (r *Rule) matchLength(prompt string, seen literalMemo) int {
	bs := r.Branches
	switch {
	case bs != nil:
	case r.lazy != nil:
		if !r.lazy.mayFire(prompt, seen) {
			return -1
		}
		bs = r.lazy.get()
	case r.Pattern != "":
		r.Branches = branches(r.Pattern) // a Rule built by hand, outside Parse
		bs = r.Branches
	}
	at, length := -1, -1
	for i := range bs {
		if s, n := bs[i].find(prompt, seen); s >= 0 && (at < 0 || s < at) {
			at, length = s, n
		}
	}
	return length
}

// Set is an ordered list of rules.
type Set struct {
	Source  string
	Rules   []Rule
	Lenient bool // built with BuildOptions.Lenient: unusable rules were dropped
	Read    int  // rules in the file, loaded or not
	// Lead replaces ClearLead when above 0: for fitting it
	// (cmd/skillroute's TestFitClearLead) and for tests.
	Lead float64

	prepare sync.Once
	lits    literalTable // every filter literal of every branch, numbered
	// screens lists the rules by the literals of their screens: read from
	// a cached set's file, built on first use for a set parsed in process
	// (ruleScreens).
	screens     ruleIndex
	screensOnce sync.Once
}

// memo returns a fresh literal memo for a prompt over the set's literals,
// numbering them on first use.
func (s *Set) memo(prompt string) literalMemo {
	s.number()
	return literalMemo{state: make([]uint8, s.lits.len()), lits: &s.lits, filter: promptFilter(prompt)}
}

// number numbers the set's literals, once, in rule and branch order.
func (s *Set) number() {
	s.prepare.Do(func() {
		ids := map[string]int32{}
		for i := range s.Rules {
			for j := range s.Rules[i].Branches {
				b := &s.Rules[i].Branches[j]
				b.ids = make([][]int32, len(b.Literals))
				for g, group := range b.Literals {
					for _, lit := range group {
						id, ok := ids[lit]
						if !ok {
							id = int32(s.lits.len())
							ids[lit] = id
							s.lits.add(lit)
						}
						b.ids[g] = append(b.ids[g], id)
					}
				}
			}
		}
	})
}

// Problem is something wrong with one rule of a file: the rule is either
// skipped (not loaded) or loaded trimmed (a penalty naming an unknown
// skill left out). A rule may have several problems; it is still one
// rule (Tally).
type Problem struct {
	File    string
	Line    int // 0 when the format has no lines (JSON)
	Rule    int // the rule's position in the file, from 1
	RuleID  string
	Reason  string
	Skipped bool // the rule is not loaded
}

// Error renders the problem as file:line: rule: reason.
func (p Problem) Error() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s: rule %s: %s", loc, p.RuleID, p.Reason)
}

// Tally counts the rules the problems concern, not the problems: how many
// rules were skipped and how many were loaded trimmed.
func Tally(problems []Problem) (skipped, trimmed int) {
	state := map[int]bool{} // rule position -> skipped
	for _, p := range problems {
		state[p.Rule] = state[p.Rule] || p.Skipped
	}
	for _, s := range state {
		if s {
			skipped++
		} else {
			trimmed++
		}
	}
	return skipped, trimmed
}

// Summary says what became of a file's rules: "133 rules: 111 loaded (17
// of them trimmed), 22 skipped".
func Summary(read int, problems []Problem) string {
	skipped, trimmed := Tally(problems)
	out := fmt.Sprintf("%d rules: %d loaded", read, read-skipped)
	if trimmed > 0 {
		out += fmt.Sprintf(" (%d of them trimmed)", trimmed)
	}
	if skipped > 0 {
		out += fmt.Sprintf(", %d skipped", skipped)
	}
	return out
}

// RuleSpec is a rule as a file writes it, before Build checks it.
type RuleSpec struct {
	ID   string // "" numbers the rule by its position (#1, #2, …)
	Note string
	// Trigger is a regular expression, matched case-insensitively and as
	// whole words in English: RE2, or JavaScript's syntax (look-around)
	// run on the backtracking engine with a time bound (match.go).
	Trigger  string
	Boost    string
	Penalty  []string
	Weight   float64
	Examples []string
	// Mutual exclusion: when the rule ExclusiveWith also fires and
	// OnKeyword (a regular expression, as Trigger; "" for always) matches
	// the prompt, only one of the two applies (Set.Fired).
	ExclusiveWith string
	OnKeyword     string
	Line          int // where the rule starts in its file; 0 if the format has no lines
	// Unknown are the fields the file gives the rule that no rule has: a
	// misspelt "penalties" or "example" would be ignored, the rule
	// loading without it.
	Unknown []string
}

// BuildOptions say how Build treats a rule it cannot use.
type BuildOptions struct {
	// Lenient is for a file written for another router, for a larger
	// catalog. Its unusable rules (a boost naming an unknown skill, a
	// trigger that compiles in no engine, …) are skipped, unknown names
	// in a penalty list are left out of the list (the rule loads
	// trimmed), and each is returned as a Problem to warn about. Without
	// it every problem is an error: our own files are written for this
	// router. Triggers written for JavaScript (look-around) load either
	// way and run on the backtracking engine (match.go).
	Lenient bool
}

// Build checks rule specs read from file against the catalog (known
// reports whether a skill exists) and returns them as a Set, in order.
// Strict (the zero BuildOptions), any problem fails the whole file, the
// error listing them all; lenient, it returns the rules it could use and
// the problems to warn about, each saying which rule (Problem.Rule) and
// whether it was skipped; Set.Read counts every spec, loaded or not.
func Build(file string, specs []RuleSpec, known func(string) bool, opt BuildOptions) (*Set, []Problem, error) {
	set := &Set{Source: file, Lenient: opt.Lenient, Read: len(specs)}
	var problems []Problem
	ids := map[string]int{}
	for i, e := range specs {
		if e.ID == "" {
			e.ID = fmt.Sprintf("#%d", i+1)
		}
		r, probs := build(file, e, known, opt.Lenient)
		if prev, dup := ids[e.ID]; dup {
			probs = append(probs, Problem{File: file, Line: e.Line, RuleID: e.ID, Reason: fmt.Sprintf("duplicate id (first at rule %d)", prev+1)})
		}
		ids[e.ID] = i
		if e.ExclusiveWith != "" && !slices.ContainsFunc(specs, func(o RuleSpec) bool { return o.ID == e.ExclusiveWith }) {
			// Never fires with it: the exclusion would do nothing.
			probs = append(probs, Problem{File: file, Line: e.Line, RuleID: e.ID, Reason: fmt.Sprintf("mutual_exclusion names no rule of the file (%q)", e.ExclusiveWith)})
		}
		for k := range probs {
			probs[k].Rule, probs[k].Skipped = i+1, r == nil
		}
		problems = append(problems, probs...)
		if r != nil {
			set.Rules = append(set.Rules, *r)
		}
	}
	if !opt.Lenient && len(problems) > 0 {
		return nil, nil, joinProblems(problems)
	}
	return set, problems, nil
}

// ruleEntry is one rule of our rules file.
type ruleEntry struct {
	ID              string   `yaml:"id"`
	Note            string   `yaml:"note"`
	Trigger         string   `yaml:"trigger"`
	Boost           string   `yaml:"boost"`
	Penalty         []string `yaml:"penalty"`
	Weight          float64  `yaml:"weight"`
	Examples        []string `yaml:"examples"`
	MutualExclusion *struct {
		With      string `yaml:"with"`
		OnKeyword string `yaml:"on_keyword"`
	} `yaml:"mutual_exclusion"`
}

// Parse reads our rules file (YAML; see rules/disambiguation.yaml) and
// checks it with Build, strictly: every problem is an error naming the
// file, line and rule. known reports whether a skill exists. It returns
// problems as Build does, none when strict, so that a loader can call it
// or another format's adapter (package bookworm) alike.
func Parse(file string, data []byte, known func(string) bool) (*Set, []Problem, error) {
	specs, err := decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", file, err)
	}
	return Build(file, specs, known, BuildOptions{})
}

func joinProblems(ps []Problem) error {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Error()
	}
	return fmt.Errorf("%s", strings.Join(msgs, "\n"))
}

// ruleFields are the fields of a rule, and of its mutual_exclusion.
var ruleFields = map[string][]string{
	"":                 {"id", "note", "trigger", "boost", "penalty", "weight", "examples", "mutual_exclusion"},
	"mutual_exclusion": {"with", "on_keyword"},
}

func decode(data []byte) ([]RuleSpec, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	if len(root.Content) == 1 && root.Content[0].Kind == yaml.MappingNode {
		top := root.Content[0].Content
		for i := 0; i+1 < len(top); i += 2 {
			if k := top[i]; k.Value != "rules" {
				// "rule:" read as no rules at all, and lint said ok.
				return nil, fmt.Errorf("line %d: unknown key %q (a rules file holds rules:)", k.Line, k.Value)
			}
		}
	}
	var doc struct {
		Rules []yaml.Node `yaml:"rules"`
	}
	if err := root.Decode(&doc); err != nil {
		return nil, err
	}
	out := make([]RuleSpec, len(doc.Rules))
	for i := range doc.Rules {
		var e ruleEntry
		if err := doc.Rules[i].Decode(&e); err != nil {
			return nil, fmt.Errorf("line %d: %v", doc.Rules[i].Line, err)
		}
		out[i] = RuleSpec{ID: e.ID, Note: e.Note, Trigger: e.Trigger, Boost: e.Boost, Penalty: e.Penalty,
			Weight: e.Weight, Examples: e.Examples, Line: doc.Rules[i].Line, Unknown: unknownFields(&doc.Rules[i], "")}
		if me := e.MutualExclusion; me != nil {
			out[i].ExclusiveWith, out[i].OnKeyword = me.With, me.OnKeyword
		}
	}
	return out, nil
}

// unknownFields returns the keys of a rule's mapping (or of its field
// named in) that ruleFields lacks, as "in.key".
func unknownFields(n *yaml.Node, in string) []string {
	var out []string
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i].Value, n.Content[i+1]
		name := key
		if in != "" {
			name = in + "." + key
		}
		switch {
		case !slices.Contains(ruleFields[in], key):
			out = append(out, name)
		case in == "" && ruleFields[key] != nil:
			out = append(out, unknownFields(val, key)...)
		}
	}
	return out
}

func build(file string, e RuleSpec, known func(string) bool, lenient bool) (*Rule, []Problem) {
	var probs []Problem
	bad := func(format string, args ...any) {
		probs = append(probs, Problem{File: file, Line: e.Line, RuleID: e.ID, Reason: fmt.Sprintf(format, args...)})
	}
	r := &Rule{ID: e.ID, Note: e.Note, Boost: e.Boost, Weight: e.Weight, Examples: e.Examples, Line: e.Line, kw: &matcher{}}
	fatal := false
	for _, f := range e.Unknown {
		bad("unknown field %q", f)
	}
	if strings.TrimSpace(e.Trigger) == "" {
		bad("no trigger")
		fatal = true
	} else if engine, err := checkPattern(e.Trigger); err != nil {
		bad("trigger does not compile, as RE2 or as JavaScript: %v", err)
		fatal = true
	} else if matchesEmpty(e.Trigger, engine) {
		bad("trigger matches the empty string, so it would fire on every prompt")
		fatal = true
	} else {
		r.Pattern = e.Trigger
		r.Branches = branches(e.Trigger)
	}
	if e.Boost == "" && len(e.Penalty) == 0 {
		bad("neither boost nor penalty")
		fatal = true
	}
	if e.Boost != "" && !known(e.Boost) {
		bad("boost names unknown skill %q", e.Boost)
		fatal = true
	}
	if e.Weight <= 0 || e.Weight > 2 {
		bad("weight %.2f out of range (0, 2]", e.Weight)
		fatal = true
	}
	for _, p := range e.Penalty {
		switch {
		case !known(p):
			bad("penalty names unknown skill %q", p)
		case p == e.Boost:
			bad("penalises the skill it boosts (%q)", p)
			fatal = true
		default:
			r.Penalty = append(r.Penalty, p)
		}
	}
	if lenient && len(r.Penalty) == 0 && r.Boost == "" {
		fatal = true // every name it penalised was left out: nothing remains
	}
	if e.ExclusiveWith != "" {
		r.ExclusiveWith = e.ExclusiveWith
		if e.OnKeyword != "" {
			if _, err := checkPattern(e.OnKeyword); err != nil {
				bad("mutual_exclusion on_keyword does not compile, as RE2 or as JavaScript: %v", err)
			} else {
				r.OnKeyword = e.OnKeyword
			}
		}
	}
	if fatal {
		return nil, probs
	}
	return r, probs
}

// matchesEmpty reports whether a trigger matches the empty prompt.
func matchesEmpty(p string, engine Engine) bool {
	if engine == Backtrack {
		re, err := compileBacktrack(p)
		if err != nil {
			return false
		}
		ok, _ := re.MatchString("")
		return ok
	}
	return regexp.MustCompile("(?i)" + p).MatchString("")
}

// Candidate is one ranked skill as the rules see it.
type Candidate struct {
	Skill   string
	Score   float64
	Explain *explain.Node
}

// Fired returns the rules whose trigger matches the prompt, after mutual
// exclusion: of two exclusive rules that both fire on their keyword, the
// one that declares the exclusion wins; if both declare it, the earlier.
func (s *Set) Fired(p tokenize.Text) []*Rule {
	return s.Match(p).Rules
}

// Firing is what a rule set's triggers found in one prompt: the rules that
// fire, each with the length of the text it matched (its specificity).
// Matching is most of what rules cost a route, so a router matches once
// and passes the Firing on (ApplyFiring) rather than the prompt.
type Firing struct {
	Rules       []*Rule
	specificity map[*Rule]int
}

// Match returns the rules that fire on a prompt (a nil set fires none).
func (s *Set) Match(p tokenize.Text) *Firing {
	if s == nil {
		return &Firing{}
	}
	fired, length := s.fired(p.Lower)
	return &Firing{Rules: fired, specificity: length}
}

// fired returns the rules that fire, with the length of text each matched.
func (s *Set) fired(prompt string) ([]*Rule, map[*Rule]int) {
	var fired []*Rule
	length := map[*Rule]int{}
	byID := map[string]int{}
	seen := s.memo(prompt) // rules share literals: look each up once
	maybe := s.ruleScreens().mayFire(prompt, seen, len(s.Rules))
	for i := range s.Rules {
		if maybe != nil && !maybe[i] {
			continue
		}
		if n := s.Rules[i].matchLength(prompt, seen); n >= 0 {
			byID[s.Rules[i].ID] = len(fired)
			fired = append(fired, &s.Rules[i])
			length[&s.Rules[i]] = n
		}
	}
	drop := map[int]bool{}
	for i, r := range fired {
		j, ok := byID[r.ExclusiveWith]
		if !ok || drop[i] {
			continue
		}
		if !r.onKeywordMatches(prompt) {
			continue
		}
		drop[j] = true // r declares the exclusion, or is the earlier of two that do
	}
	out := fired[:0:0]
	for i, r := range fired {
		if !drop[i] {
			out = append(out, r)
		}
	}
	return out, length
}

// ruleScreens returns the set's rule index, building it once for a set
// parsed in process. Without it such a set (eval, route, the rules lint)
// looked up the first literal group of every branch of every rule on
// each prompt: with the built-in rules, 41 % of a route
// (BenchmarkRoute).
func (s *Set) ruleScreens() *ruleIndex {
	s.screensOnce.Do(func() {
		if s.screens.keys == nil {
			s.number()
			s.screens = s.buildScreens()
		}
	})
	return &s.screens
}

// Apply adjusts the candidates by the rules that fire on the prompt and
// returns them re-ranked, with the fired rules.
//
// Rules adjust, they never bury: every score stays within a factor of
// √ClearLead of the candidate's own score (the score it came with; for a
// skill a rule entered, EntryShare × the top score), so a candidate whose
// own score is ClearLead times another's stays above it whatever fires.
// Within that bound, a rule's penalties and its verdict on rank reach only
// the skills its boosted skill could overtake: one that wins clearly over
// the boosted skill is left alone, rather than lowered so that a third,
// unrelated skill wins.
func (s *Set) Apply(p tokenize.Text, cands []Candidate) ([]Candidate, []*Rule) {
	return s.ApplyFiring(s.Match(p), cands)
}

// ApplyFiring is Apply with the prompt's rules already matched (Match).
func (s *Set) ApplyFiring(f *Firing, cands []Candidate) ([]Candidate, []*Rule) {
	if s == nil || f == nil || len(f.Rules) == 0 {
		return cands, nil
	}
	// A rule's specificity is the length of the text its trigger matched.
	fired, specificity := slices.Clone(f.Rules), f.specificity
	sort.SliceStable(fired, func(i, j int) bool { return specificity[fired[i]] < specificity[fired[j]] })
	lead := s.clearLead()
	reach := math.Sqrt(lead)
	top := 0.0
	// Sized once: grown from empty, the map of a 50-skill ranking was
	// most of what applying the rules cost (105,000 instructions of a
	// hook process, callgrind).
	pos := make(map[string]int, len(cands)+len(fired))
	for i, c := range cands {
		top = max(top, c.Score)
		pos[c.Skill] = i
	}
	// Boosts: the largest weight per skill, never the product.
	boost, boostBy := map[string]float64{}, map[string]string{}
	for _, r := range fired {
		if r.Boost != "" && r.Weight > boost[r.Boost] {
			boost[r.Boost], boostBy[r.Boost] = r.Weight, r.ID
		}
	}
	for _, r := range fired { // in order of specificity, not of names
		if _, ok := pos[r.Boost]; ok || r.Boost == "" {
			continue
		}
		entry := top * EntryShare
		cands = append(cands, Candidate{Skill: r.Boost, Score: entry, Explain: &explain.Node{
			Value: entry, Message: fmt.Sprintf("not matched; entered by rule %s at %.1f × top score", boostBy[r.Boost], EntryShare)}})
		pos[r.Boost] = len(cands) - 1
	}
	own := make([]float64, len(cands))
	for i, c := range cands {
		own[i] = c.Score
	}
	// clear reports whether candidate a wins clearly over b on its own
	// evidence: no rule may reorder the two.
	clear := func(a, b int) bool { return own[a] >= lead*own[b] }
	// Penalties: the largest weight per skill, among the rules whose
	// boosted skill it does not clearly beat.
	penalty, penaltyBy := map[string]float64{}, map[string]string{}
	for _, r := range fired {
		bi, boosted := pos[r.Boost]
		for _, name := range r.Penalty {
			pi, ok := pos[name]
			if !ok || boosted && clear(pi, bi) {
				continue
			}
			if r.Weight > penalty[name] {
				penalty[name], penaltyBy[name] = r.Weight, r.ID
			}
		}
	}
	for name, w := range boost {
		c := &cands[pos[name]]
		c.Score *= 1 + w
		c.Explain = explain.Wrap(c.Score, fmt.Sprintf("rule %s boosts %s × (1 + %.2f)", boostBy[name], name, w), c.Explain)
	}
	for name, w := range penalty {
		c := &cands[pos[name]]
		c.Score *= 1 - PenaltyFactor*w
		c.Explain = explain.Wrap(c.Score, fmt.Sprintf("rule %s penalises %s × (1 − %.1f × %.2f)", penaltyBy[name], name, PenaltyFactor, w), c.Explain)
	}
	lo := func(i int) float64 { return own[i] / reach }
	hi := func(i int) float64 { return own[i] * reach }
	for i := range cands {
		c := &cands[i]
		if b := min(max(c.Score, lo(i)), hi(i)); b != c.Score {
			c.Score = b
			c.Explain = explain.Wrap(c.Score, fmt.Sprintf("rules move a score by at most × or ÷ %.2f (√%.2f)", reach, lead), c.Explain)
		}
	}
	// Rank verdicts, least specific first, so that the most specific one
	// speaks last: when "部署" (deploy → devops) and "kubernetes.*部署"
	// (→ kubernetes) both fire, the longer match knows more.
	for _, v := range verdicts(fired, specificity, pos, own, clear) {
		b, q := &cands[v.above], &cands[v.below]
		if q.Score < b.Score {
			continue
		}
		// The lower one goes just below, as far as its bound allows, and
		// the other rises past it if that was not far enough.
		q.Score = max(b.Score*BelowBoosted, lo(v.below))
		if q.Score >= b.Score {
			b.Score = min(q.Score/BelowBoosted, hi(v.above))
			b.Explain = explain.Wrap(b.Score, fmt.Sprintf("rule %s puts %s above %s", v.rule, b.Skill, q.Skill), b.Explain)
		}
		q.Explain = explain.Wrap(q.Score, fmt.Sprintf("rule %s keeps %s below %s", v.rule, q.Skill, b.Skill), q.Explain)
	}
	// Equal scores keep the order they came in: never a name sort.
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].Score > cands[j].Score })
	return cands, fired
}

// verdict is one rule's verdict on rank: candidate above before below.
type verdict struct {
	above, below int
	spec         int
	rule         string
}

// verdicts collects the fired rules' verdicts on rank, in order of
// specificity: a rule's boosted skill goes above the skills it penalises
// and above what rules no more specific boosted instead, unless that
// skill wins clearly on its own evidence. Two verdicts on one pair that
// disagree are settled by the evidence: the more specific rule's stands;
// of two equally specific, neither does, and the pair keeps the order of
// its own scores (a tie of those, no order at all).
func verdicts(fired []*Rule, specificity map[*Rule]int, pos map[string]int, own []float64, clear func(a, b int) bool) []verdict {
	type pair struct{ a, b int } // a < b
	best := map[pair]verdict{}
	var order []pair
	add := func(v verdict) {
		k := pair{min(v.above, v.below), max(v.above, v.below)}
		prev, seen := best[k]
		switch {
		case !seen:
			order = append(order, k)
			best[k] = v
		case v.spec > prev.spec:
			best[k] = v
		case v.spec == prev.spec && prev.above != v.above:
			// Equally specific rules pin each other: their own scores decide.
			v.rule = prev.rule + " and " + v.rule
			switch {
			case own[v.above] < own[v.below]:
				v.above, v.below = v.below, v.above
			case own[v.above] == own[v.below]:
				v.spec = -1 // no verdict
			}
			best[k] = v
		}
	}
	for _, r := range fired {
		bi, ok := pos[r.Boost]
		if r.Boost == "" || !ok {
			continue
		}
		below := slices.Clone(r.Penalty)
		for _, other := range fired {
			if other != r && other.Boost != "" && other.Boost != r.Boost && specificity[other] <= specificity[r] && !slices.Contains(below, other.Boost) {
				below = append(below, other.Boost)
			}
		}
		for _, name := range below {
			if pi, ok := pos[name]; ok && pi != bi && !clear(pi, bi) {
				add(verdict{above: bi, below: pi, spec: specificity[r], rule: r.ID})
			}
		}
	}
	out := make([]verdict, 0, len(order))
	for _, k := range order {
		if v := best[k]; v.spec >= 0 {
			out = append(out, v)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].spec < out[j].spec })
	return out
}

// clearLead is the set's ClearLead, or the one it was given to fit it.
func (s *Set) clearLead() float64 {
	if s.Lead > 0 {
		return s.Lead
	}
	return ClearLead
}

// Restrict fits a rule set to a catalog: resolve maps a name the rules use
// to the catalog's own ("security-expert" to a plugin's
// "skillroute:security-expert"), or reports it absent. A rule whose boost is
// absent is dropped, absent penalties are left out, so the built-in rules
// work over whatever skills are installed.
func (s *Set) Restrict(resolve func(string) (string, bool)) {
	// The rule index numbers the rules as they were: built again on
	// first use.
	s.screens, s.screensOnce = ruleIndex{}, sync.Once{}
	kept := s.Rules[:0]
	for _, r := range s.Rules {
		if r.Boost != "" {
			name, ok := resolve(r.Boost)
			if !ok {
				continue
			}
			r.Boost = name
		}
		var penalty []string
		for _, p := range r.Penalty {
			if name, ok := resolve(p); ok {
				penalty = append(penalty, name)
			}
		}
		r.Penalty = penalty
		if r.Boost == "" && len(r.Penalty) == 0 {
			continue
		}
		kept = append(kept, r)
	}
	s.Rules = kept
}

// Without returns a copy of the set without the rules of the given ids:
// an ablation, for `skillroute rules lint --eval`. The copy compiles and
// numbers its own patterns, so the two sets can be used side by side.
func (s *Set) Without(ids ...string) *Set {
	out := &Set{Source: s.Source, Lenient: s.Lenient, Read: s.Read, Lead: s.Lead}
	for _, r := range s.Rules {
		if slices.Contains(ids, r.ID) {
			continue
		}
		r.Branches = branches(r.Pattern)
		r.kw = &matcher{}
		out.Rules = append(out.Rules, r)
	}
	return out
}
