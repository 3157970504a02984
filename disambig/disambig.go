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
// has the last word, over its penalties and over what weaker rules boosted.
//
// Rules are read from our YAML (Parse), or built from RuleSpecs by an
// adapter for another router's file (package bookworm reads the bookworm
// router's disambiguation-rules.json) with Build, whose lenient option
// drops the rules that cannot work here. A rule may declare a mutual
// exclusion with another (mutual_exclusion: {with, on_keyword}): of the
// two, only one applies.
package disambig

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

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
	// its own (prefilter.go).
	Branches []Branch

	re *lazyRegexps // shared by copies of the rule
}

// Branch is one top-level alternative of a trigger.
type Branch struct {
	Pattern string
	// What a prompt must contain for the branch to have a chance: one
	// literal of each group. Exact holds the alternatives of a plain-text
	// branch, which its literals decide without a regular expression.
	Literals [][]string
	Exact    []string

	ids [][]int32 // Literals numbered across the set, once (Set.memo)
	re  *lazyRegexp
}

type lazyRegexp struct {
	once sync.Once
	re   *regexp.Regexp
}

type lazyRegexps struct {
	onKeyword     *regexp.Regexp
	onKeywordOnce sync.Once
}

// compiled returns the branch's expression, compiled on first use: most
// branches never pass their filter on a given prompt, and compiling them
// all cost the hook more than routing (17 ms for 73 rules). Patterns were
// validated when the rules file was parsed.
func (b *Branch) compiled() *regexp.Regexp {
	if b.re == nil {
		b.re = &lazyRegexp{} // built by hand, outside Parse
	}
	l := b.re
	l.once.Do(func() {
		// Parse checked the pattern; one that no longer compiles (a
		// damaged cache) never matches, rather than stop the router.
		l.re, _ = regexp.Compile("(?i)" + b.Pattern)
	})
	return l.re
}

// find returns where the branch matches a lower-cased prompt: start byte
// and length in runes, or -1.
func (b *Branch) find(prompt string, seen literalMemo) (start, length int) {
	if !seen.mayMatch(b, prompt) {
		return -1, -1
	}
	if b.Exact != nil {
		return exactMatch(b.Exact, prompt)
	}
	re := b.compiled()
	if re == nil {
		return -1, -1
	}
	loc := re.FindStringIndex(prompt)
	if loc == nil {
		return -1, -1
	}
	return loc[0], utf8.RuneCountInString(prompt[loc[0]:loc[1]])
}

// onKeywordRegexp returns the mutual-exclusion keyword, compiled on first
// use, or nil.
func (r *Rule) onKeywordRegexp() *regexp.Regexp {
	if r.OnKeyword == "" {
		return nil
	}
	if r.re == nil {
		r.re = &lazyRegexps{} // a Rule built by hand, outside Parse
	}
	l := r.re
	l.onKeywordOnce.Do(func() { l.onKeyword, _ = regexp.Compile("(?i)" + r.OnKeyword) })
	return l.onKeyword
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
	if r.Branches == nil && r.Pattern != "" {
		r.Branches = branches(r.Pattern) // a Rule built by hand, outside Parse
	}
	at, length := -1, -1
	for i := range r.Branches {
		if s, n := r.Branches[i].find(prompt, seen); s >= 0 && (at < 0 || s < at) {
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

	prepare  sync.Once
	literals []string // every filter literal of every branch, numbered
	keys     []uint16 // their filter keys
}

// memo returns a fresh literal memo for a prompt over the set's literals,
// numbering them on first use.
func (s *Set) memo(prompt string) literalMemo {
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
							id = int32(len(s.literals))
							ids[lit] = id
							s.literals = append(s.literals, lit)
							s.keys = append(s.keys, openingKey(lit))
						}
						b.ids[g] = append(b.ids[g], id)
					}
				}
			}
		}
	})
	return literalMemo{state: make([]uint8, len(s.literals)), lits: s.literals, keys: s.keys, filter: promptFilter(prompt)}
}

// Problem is a rule the loader could not accept.
type Problem struct {
	File   string
	Line   int
	RuleID string
	Reason string
}

func (p Problem) Error() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s: rule %s: %s", loc, p.RuleID, p.Reason)
}

// RuleSpec is a rule as a file writes it, before Build checks it.
type RuleSpec struct {
	ID       string // "" numbers the rule by its position (#1, #2, …)
	Note     string
	Trigger  string // a regular expression (RE2), matched case-insensitively
	Boost    string
	Penalty  []string
	Weight   float64
	Examples []string
	// Mutual exclusion: when the rule ExclusiveWith also fires and
	// OnKeyword (a regular expression; "" for always) matches the prompt,
	// only one of the two applies (Set.Fired).
	ExclusiveWith string
	OnKeyword     string
	Line          int // where the rule starts in its file; 0 if the format has no lines
}

// BuildOptions say how Build treats a rule it cannot use.
type BuildOptions struct {
	// Lenient is for a file written for another router: for a larger
	// catalog and for another regular-expression dialect (JavaScript's
	// look-around, which RE2 lacks). Its unusable rules (a boost naming
	// an unknown skill, a trigger that does not compile, …) are dropped,
	// unknown names in a penalty list are left out of the list, and each
	// is returned as a Problem to warn about. Without it every problem is
	// an error: our own files are written for this router.
	Lenient bool
}

// Build checks rule specs read from file against the catalog (known
// reports whether a skill exists) and returns them as a Set, in order.
// Strict (the zero BuildOptions), any problem fails the whole file, the
// error listing them all; lenient, it returns the rules it could use and
// the problems to warn about.
func Build(file string, specs []RuleSpec, known func(string) bool, opt BuildOptions) (*Set, []Problem, error) {
	set := &Set{Source: file, Lenient: opt.Lenient}
	var problems []Problem
	ids := map[string]int{}
	for i, e := range specs {
		if e.ID == "" {
			e.ID = fmt.Sprintf("#%d", i+1)
		}
		r, probs := build(file, e, known, opt.Lenient)
		if prev, dup := ids[e.ID]; dup {
			probs = append(probs, Problem{file, e.Line, e.ID, fmt.Sprintf("duplicate id (first at rule %d)", prev+1)})
		}
		ids[e.ID] = i
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

func decode(data []byte) ([]RuleSpec, error) {
	var doc struct {
		Rules []yaml.Node `yaml:"rules"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	out := make([]RuleSpec, len(doc.Rules))
	for i := range doc.Rules {
		var e ruleEntry
		if err := doc.Rules[i].Decode(&e); err != nil {
			return nil, fmt.Errorf("line %d: %v", doc.Rules[i].Line, err)
		}
		out[i] = RuleSpec{ID: e.ID, Note: e.Note, Trigger: e.Trigger, Boost: e.Boost, Penalty: e.Penalty,
			Weight: e.Weight, Examples: e.Examples, Line: doc.Rules[i].Line}
		if me := e.MutualExclusion; me != nil {
			out[i].ExclusiveWith, out[i].OnKeyword = me.With, me.OnKeyword
		}
	}
	return out, nil
}

func build(file string, e RuleSpec, known func(string) bool, lenient bool) (*Rule, []Problem) {
	var probs []Problem
	bad := func(format string, args ...any) {
		probs = append(probs, Problem{file, e.Line, e.ID, fmt.Sprintf(format, args...)})
	}
	r := &Rule{ID: e.ID, Note: e.Note, Boost: e.Boost, Weight: e.Weight, Examples: e.Examples, Line: e.Line, re: &lazyRegexps{}}
	fatal := false
	if strings.TrimSpace(e.Trigger) == "" {
		bad("no trigger")
		fatal = true
	} else if re, err := regexp.Compile("(?i)" + e.Trigger); err != nil {
		bad("trigger does not compile: %v", err)
		fatal = true
	} else if re.MatchString("") {
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
			if _, err := regexp.Compile("(?i)" + e.OnKeyword); err != nil {
				bad("mutual_exclusion on_keyword does not compile: %v", err)
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
	if s == nil {
		return nil
	}
	fired, _ := s.fired(p.Lower)
	return fired
}

// fired returns the rules that fire, with the length of text each matched.
func (s *Set) fired(prompt string) ([]*Rule, map[*Rule]int) {
	var fired []*Rule
	length := map[*Rule]int{}
	byID := map[string]int{}
	seen := s.memo(prompt) // rules share literals: look each up once
	for i := range s.Rules {
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
		if kw := r.onKeywordRegexp(); kw != nil && !kw.MatchString(prompt) {
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

// Apply adjusts the candidates by the rules that fire on the prompt and
// returns them re-ranked, with the fired rules.
func (s *Set) Apply(p tokenize.Text, cands []Candidate) ([]Candidate, []*Rule) {
	if s == nil {
		return cands, nil
	}
	prompt := p.Lower
	// A rule's specificity is the length of the text its trigger matched.
	fired, specificity := s.fired(prompt)
	if len(fired) == 0 {
		return cands, nil
	}
	sort.SliceStable(fired, func(i, j int) bool { return specificity[fired[i]] < specificity[fired[j]] })
	top := 0.0
	pos := map[string]int{}
	for i, c := range cands {
		top = max(top, c.Score)
		pos[c.Skill] = i
	}
	boost, boostBy := map[string]float64{}, map[string]string{}
	penalty, penaltyBy := map[string]float64{}, map[string]string{}
	for _, r := range fired {
		if r.Boost != "" && r.Weight > boost[r.Boost] {
			boost[r.Boost], boostBy[r.Boost] = r.Weight, r.ID
		}
		for _, p := range r.Penalty {
			if r.Weight > penalty[p] {
				penalty[p], penaltyBy[p] = r.Weight, r.ID
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(boost)) {
		i, ok := pos[name]
		if !ok {
			entry := top * EntryShare
			cands = append(cands, Candidate{Skill: name, Score: entry, Explain: &explain.Node{
				Value: entry, Message: fmt.Sprintf("not matched; entered by rule %s at %.1f × top score", boostBy[name], EntryShare)}})
			i = len(cands) - 1
			pos[name] = i
		}
		c := &cands[i]
		c.Score *= 1 + boost[name]
		c.Explain = explain.Wrap(c.Score, fmt.Sprintf("rule %s boosts %s × (1 + %.2f)", boostBy[name], name, boost[name]), c.Explain)
	}
	for _, name := range slices.Sorted(maps.Keys(penalty)) {
		if i, ok := pos[name]; ok {
			c := &cands[i]
			c.Score *= 1 - PenaltyFactor*penalty[name]
			c.Explain = explain.Wrap(c.Score, fmt.Sprintf("rule %s penalises %s × (1 − %.1f × %.2f)", penaltyBy[name], name, PenaltyFactor, penalty[name]), c.Explain)
		}
	}
	// Rank verdicts, least specific rule first, so that the most specific
	// one speaks last: when "部署" (deploy → devops) and "kubernetes.*部署"
	// (→ kubernetes) both fire, the longer match knows more. A rule's
	// verdict also covers what less specific rules boosted instead.
	for i, r := range fired {
		bi, ok := pos[r.Boost]
		if r.Boost == "" || !ok {
			continue
		}
		below := append([]string(nil), r.Penalty...)
		for _, weaker := range fired[:i] {
			if weaker.Boost != "" && weaker.Boost != r.Boost && specificity[weaker] < specificity[r] {
				below = append(below, weaker.Boost)
			}
		}
		for _, p := range below {
			// Ties too: a name sort must not decide against the rule.
			if pi, ok := pos[p]; ok && pi != bi && cands[pi].Score >= cands[bi].Score {
				c := &cands[pi]
				c.Score = cands[bi].Score * BelowBoosted
				c.Explain = explain.Wrap(c.Score, fmt.Sprintf("rule %s keeps %s below %s", r.ID, p, r.Boost), c.Explain)
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].Score != cands[j].Score {
			return cands[i].Score > cands[j].Score
		}
		return cands[i].Skill < cands[j].Skill
	})
	return cands, fired
}

// Restrict fits a rule set to a catalog: resolve maps a name the rules use
// to the catalog's own ("security-expert" to a plugin's
// "skillroute:security-expert"), or reports it absent. A rule whose boost is
// absent is dropped, absent penalties are left out, so the built-in rules
// work over whatever skills are installed.
func (s *Set) Restrict(resolve func(string) (string, bool)) {
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
