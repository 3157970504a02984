// Package eval measures a router on labelled prompts.
//
// A case is one JSON line {"query","expected"}; expected is a skill name or
// "none" when the router should abstain. The report gives top-1 (the routed
// skill is the expected one; abstaining counts as a miss), top-3 and MRR
// over the candidate list, ranked top-1 (the first candidate even when the
// router abstained: how a router that always answers, like the bookworm
// peer with its fallback, is scored), the share of "none" prompts abstained, the share
// of skill prompts wrongly abstained, per-skill precision and recall, the
// most frequent confusions and route latency.
//
// It also says what the router's confidence is worth: the precision of
// its HIGH decisions, and a calibration curve (how often the first
// candidate was right, by its confidence, in buckets of 0.1). When the
// cases carry "lang" or "kind" labels the figures are broken down by them,
// and Split reports the parts of a hash split of the prompts (a session's
// turns kept together), so that a held-out half or the folds of a
// cross-validation are the same for everyone who checks.
package eval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/router"
)

// None is the label of a prompt that should get no skill.
const None = "none"

// Case is one labelled prompt. Lang ("en", "zh", "mixed") and Kind
// ("direct", "paraphrase", ...) are optional labels the report breaks down
// by. The action labels are optional too (see actions.go): the action the
// action layer should take, and the memory, tool or composite steps it
// should use.
type Case struct {
	Query    string        `json:"query"`
	Expected string        `json:"expected"`
	Lang     string        `json:"lang,omitempty"`
	Kind     string        `json:"kind,omitempty"`
	Action   string        `json:"action,omitempty"`
	Steps    []action.Step `json:"steps,omitempty"`
	Memory   string        `json:"memory,omitempty"`
	Tool     string        `json:"tool,omitempty"`
	// Line is the case's line in its file, for errors.
	Line int `json:"-"`
}

// Session is a multi-turn case: the turns are routed in order, in a
// project folder holding the listed marker files.
type Session struct {
	ID           string   `json:"id"`
	ProjectFiles []string `json:"project_files"`
	Turns        []Case   `json:"turns"`
	// Line is the session's line in its file, for errors.
	Line int `json:"-"`
}

// File is the content of an eval file: single prompts, sessions, or both.
type File struct {
	Path     string // as given to Read
	Cases    []Case
	Sessions []Session
}

// ResolveLabels maps every expected skill of the file to the catalog's
// name for it, by resolve ("none" stays). A label the catalog lacks is
// an error naming each line that uses it: scored anyway, it would count
// every prompt it labels as a miss, whatever the router did.
func (f *File) ResolveLabels(resolve func(label string) (name string, ok bool)) error {
	var missing []string
	check := func(c *Case, at string) {
		if c.Expected == None {
			return
		}
		if name, ok := resolve(c.Expected); ok {
			c.Expected = name
			return
		}
		missing = append(missing, fmt.Sprintf("%s:%s: expected %q: no such skill in the catalog", f.Path, at, c.Expected))
	}
	for i := range f.Cases {
		check(&f.Cases[i], strconv.Itoa(f.Cases[i].Line))
	}
	for i := range f.Sessions {
		s := &f.Sessions[i]
		for j := range s.Turns {
			check(&s.Turns[j], fmt.Sprintf("%d: turn %d", s.Line, j+1))
		}
	}
	const shown = 5
	switch n := len(missing); {
	case n == 0:
		return nil
	case n > shown:
		missing = append(missing[:shown], fmt.Sprintf("and %d more", n-shown))
	}
	return errors.New(strings.Join(missing, "\n"))
}

// Prompts returns every prompt of the file: the single prompts, then each
// session's turns in order (a file holds one kind or the other, so this is
// its line order).
func (f *File) Prompts() []string {
	out := make([]string, 0, len(f.Cases))
	for _, c := range f.Cases {
		out = append(out, c.Query)
	}
	for _, s := range f.Sessions {
		for _, t := range s.Turns {
			out = append(out, t.Query)
		}
	}
	return out
}

// Read parses an eval file. A malformed line is an error naming the line.
func Read(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := &File{Path: path}
	sc := bufio.NewScanner(f)
	const maxLine = 1 << 24
	sc.Buffer(make([]byte, 1<<20), maxLine)
	line := 1
	for ; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		var probe struct {
			Turns    json.RawMessage `json:"turns"`
			Query    *string         `json:"query"`
			Expected *string         `json:"expected"`
		}
		if err := json.Unmarshal([]byte(text), &probe); err != nil {
			if _, ok := err.(*json.UnmarshalTypeError); ok { // JSON, but no object: say what is wanted, not Go's type
				return nil, fmt.Errorf(`%s:%d: want a JSON object, {"query", "expected"} or a session {"id", "turns"}`, path, line)
			}
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		switch {
		case probe.Turns != nil:
			var s Session
			if err := json.Unmarshal([]byte(text), &s); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			s.Line = line
			if len(s.Turns) == 0 {
				return nil, fmt.Errorf("%s:%d: session %s has no turns", path, line, s.ID)
			}
			for _, pf := range s.ProjectFiles {
				// Checked here, so that the error names the line, not
				// only when the session is replayed (projectTypes).
				if !filepath.IsLocal(filepath.FromSlash(strings.TrimSuffix(pf, "/"))) {
					return nil, fmt.Errorf("%s:%d: session %s: project file %q leaves the project folder", path, line, s.ID, pf)
				}
			}
			for i, t := range s.Turns {
				if blank(t.Query) || blank(t.Expected) {
					return nil, fmt.Errorf("%s:%d: turn %d needs query and expected", path, line, i+1)
				}
			}
			out.Sessions = append(out.Sessions, s)
		case probe.Query != nil && probe.Expected != nil:
			if blank(*probe.Query) || blank(*probe.Expected) {
				return nil, fmt.Errorf("%s:%d: query and expected may not be empty (an abstention is \"none\")", path, line)
			}
			var c Case
			if err := json.Unmarshal([]byte(text), &c); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			c.Line = line
			if err := c.checkAction(); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			out.Cases = append(out.Cases, c)
		default:
			return nil, fmt.Errorf("%s:%d: a line needs \"query\" and \"expected\", or \"turns\"", path, line)
		}
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return nil, fmt.Errorf("%s:%d: a line over %d MiB", path, line, maxLine>>20)
	case err != nil:
		return nil, fmt.Errorf("%s:%d: %v", path, line, err)
	}
	return out, nil
}

// blank reports whether a label or prompt is empty or white space.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// Outcome is what the router did with one case.
type Outcome struct {
	Case
	Routed     string   // "" when it abstained
	Ranked     []string // candidate skills, best first
	Confidence float64  // the first candidate's, abstaining or not
	High       bool     // the decision's level was HIGH
	Latency    time.Duration
	// Group keeps cases together in a split: the session's id for a
	// session's turns, else the query.
	Group string
	// Decision is the router's, kept for the action layer (HookLines).
	Decision router.Decision
	// Hooked says Injected and ActionDecision were worked out
	// (HookLines): the skill the hook's line names, "" when the action
	// layer injects no skill, and the layer's decision.
	Hooked         bool
	Injected       string
	ActionDecision action.Decision
}

// Rank returns the 1-based rank of the expected skill among the
// candidates, or 0.
func (o Outcome) Rank() int {
	for i, s := range o.Ranked {
		if s == o.Expected {
			return i + 1
		}
	}
	return 0
}

// Summary is the machine-readable line of a report. Rates are fractions.
type Summary struct {
	N            int     `json:"n"` // skill prompts
	Top1         float64 `json:"top1"`
	Top1Ranked   float64 `json:"top1_ranked"` // first candidate, even when the router abstained
	Top3         float64 `json:"top3"`
	MRR          float64 `json:"mrr"`
	NoneN        int     `json:"none_n"`
	NoneCorrect  float64 `json:"none_correct"`
	FalseAbstain float64 `json:"false_abstain"`
	P50us        float64 `json:"p50_us"`
	P99us        float64 `json:"p99_us"`
	// HighN is how many decisions were HIGH, "none" prompts included;
	// HighPrecision the share of them that routed the expected skill.
	HighN         int     `json:"high_n"`
	HighPrecision float64 `json:"high_precision"`
	// HookTop1 and HookNone are the same figures for what the hook
	// injects, the action layer's decision after the router's (HookLines):
	// the share of skill prompts whose line names the expected skill, and
	// of none prompts given no skill. Nil when not worked out.
	HookTop1 *float64 `json:"hook_top1,omitempty"`
	HookNone *float64 `json:"hook_none_correct,omitempty"`
	// Calibration says how often the first candidate was right, by its
	// confidence: what a confidence means on this file.
	Calibration []Bucket `json:"calibration"`
	// ByLang and ByKind break the figures down by the cases' labels, when
	// the file has them.
	ByLang map[string]Summary `json:"by_lang,omitempty"`
	ByKind map[string]Summary `json:"by_kind,omitempty"`
	// Folds are the figures of each part of a hash split (Split), when
	// one was asked for.
	Folds []Summary `json:"folds,omitempty"`
}

// Bucket is one confidence interval [From, To) of a calibration curve: of
// the N prompts whose first candidate had a confidence in it ("none"
// prompts included, where any candidate is wrong), the share Precision
// whose first candidate was the expected skill.
type Bucket struct {
	From      float64 `json:"from"`
	To        float64 `json:"to"`
	N         int     `json:"n"`
	Precision float64 `json:"precision"`
}

// bucketWidth is the width of a calibration bucket: ten buckets, enough
// to read the curve at the few hundred prompts of a dev set.
const bucketWidth = 0.1

// SkillScore is the precision and recall of one skill.
type SkillScore struct {
	Skill             string
	Precision, Recall float64
	Expected, Routed  int
}

// Confusion is a frequent (expected, routed) pair.
type Confusion struct {
	Expected, Routed string
	Count            int
}

// Report is a full evaluation.
type Report struct {
	Summary    Summary
	Skills     []SkillScore
	Confusions []Confusion
	Misses     []Outcome
}

// RouteCases routes each case on its own. The latency of a case is the
// median of timedRuns routes of it, after one untimed pass over all the
// prompts: rule expressions compile on first use, once per process, and a
// single timing would mostly measure the scheduler and the collector's
// pauses. The result is that of a warm router's typical call.
func RouteCases(r *router.Router, cases []Case) []Outcome {
	for _, c := range cases {
		r.Route(c.Query, router.Session{})
	}
	out := make([]Outcome, 0, len(cases))
	var times [timedRuns]time.Duration
	for _, c := range cases {
		var d router.Decision
		for i := range times {
			start := time.Now()
			d = r.Route(c.Query, router.Session{})
			times[i] = time.Since(start)
		}
		slices.Sort(times[:])
		out = append(out, outcome(c, d, times[timedRuns/2]))
	}
	return out
}

// timedRuns is how often each prompt is routed for its latency.
const timedRuns = 5

func outcome(c Case, d router.Decision, lat time.Duration) Outcome {
	o := Outcome{Case: c, Routed: d.Skill, Confidence: d.Confidence, High: d.Level == router.High, Latency: lat, Group: c.Query, Decision: d}
	for _, cand := range d.Candidates {
		o.Ranked = append(o.Ranked, cand.Skill)
	}
	return o
}

// Summarize builds a report from outcomes.
func Summarize(outs []Outcome) Report {
	rep := summarize(outs)
	rep.Summary.ByLang = breakdown(outs, func(o Outcome) string { return o.Lang })
	rep.Summary.ByKind = breakdown(outs, func(o Outcome) string { return o.Kind })
	return rep
}

// breakdown summarises the outcomes by a label, or nil when no outcome
// has one.
func breakdown(outs []Outcome, label func(Outcome) string) map[string]Summary {
	groups := map[string][]Outcome{}
	for _, o := range outs {
		if l := label(o); l != "" {
			groups[l] = append(groups[l], o)
		}
	}
	if len(groups) == 0 {
		return nil
	}
	out := make(map[string]Summary, len(groups))
	for l, g := range groups {
		out[l] = summarize(g).Summary
	}
	return out
}

// Fold is the part, of k, that a case falls in under a hash split: FNV-1a
// of its group (the query, or a session's id), so that the split is the
// same on every machine and for every version of the router, and the
// turns of one session stay together.
func Fold(group string, k int) int {
	if k <= 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(group))
	return int(h.Sum32() % uint32(k))
}

// Split summarises each of the k parts of a hash split (Fold) apart: k = 2
// gives the two halves of a held-out check, larger k the folds of a
// cross-validation.
func Split(outs []Outcome, k int) []Summary {
	parts := make([][]Outcome, k)
	for _, o := range outs {
		f := Fold(o.Group, k)
		parts[f] = append(parts[f], o)
	}
	out := make([]Summary, k)
	for i, p := range parts {
		out[i] = summarize(p).Summary
	}
	return out
}

// summarize builds a report without the breakdowns by label.
func summarize(outs []Outcome) Report {
	var rep Report
	s := &rep.Summary
	var lat []time.Duration
	var highOK int
	buckets := make([]Bucket, int(math.Round(1/bucketWidth)))
	bucketOK := make([]int, len(buckets))
	expected, routed, correct := map[string]int{}, map[string]int{}, map[string]int{}
	confusions := map[[2]string]int{}
	var top1, ranked1, top3, abstained, noneOK int
	var hooked, hookN, hookOK, hookNoneN, hookNoneOK int
	var rr float64
	for _, o := range outs {
		lat = append(lat, o.Latency)
		if o.Hooked {
			hooked++
			if o.Expected == None {
				hookNoneN++
				if o.Injected == "" {
					hookNoneOK++
				}
			} else {
				hookN++
				if o.Injected == o.Expected {
					hookOK++
				}
			}
		}
		if o.Routed != "" {
			routed[o.Routed]++
		}
		if o.High {
			s.HighN++
			if o.Routed == o.Expected {
				highOK++
			}
		}
		if len(o.Ranked) > 0 {
			b := min(len(buckets)-1, int(o.Confidence/bucketWidth))
			buckets[b].N++
			if o.Ranked[0] == o.Expected {
				bucketOK[b]++
			}
		}
		if o.Expected == None {
			s.NoneN++
			if o.Routed == "" {
				noneOK++
			} else {
				confusions[[2]string{None, o.Routed}]++
				rep.Misses = append(rep.Misses, o)
			}
			continue
		}
		s.N++
		expected[o.Expected]++
		rank := o.Rank()
		if o.Routed == o.Expected {
			top1++
			correct[o.Expected]++
		} else {
			got := o.Routed
			if got == "" {
				got = "(abstain)"
				abstained++
			}
			confusions[[2]string{o.Expected, got}]++
			rep.Misses = append(rep.Misses, o)
		}
		if rank == 1 {
			ranked1++
		}
		if rank > 0 && rank <= 3 {
			top3++
		}
		if rank > 0 {
			rr += 1 / float64(rank)
		}
	}
	frac := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	s.Top1, s.Top1Ranked, s.Top3, s.MRR = frac(top1, s.N), frac(ranked1, s.N), frac(top3, s.N), 0
	if s.N > 0 {
		s.MRR = rr / float64(s.N)
	}
	s.NoneCorrect, s.FalseAbstain = frac(noneOK, s.NoneN), frac(abstained, s.N)
	s.P50us, s.P99us = percentile(lat, 0.50), percentile(lat, 0.99)
	s.HighPrecision = frac(highOK, s.HighN)
	if hooked > 0 {
		top, none := frac(hookOK, hookN), frac(hookNoneOK, hookNoneN)
		s.HookTop1, s.HookNone = &top, &none
	}
	s.Calibration = []Bucket{}
	for i, b := range buckets {
		if b.N > 0 {
			s.Calibration = append(s.Calibration, Bucket{From: round2(float64(i) * bucketWidth), To: round2(float64(i+1) * bucketWidth),
				N: b.N, Precision: frac(bucketOK[i], b.N)})
		}
	}

	names := map[string]bool{}
	for k := range expected {
		names[k] = true
	}
	for k := range routed {
		names[k] = true
	}
	for name := range names {
		rep.Skills = append(rep.Skills, SkillScore{Skill: name, Precision: frac(correct[name], routed[name]),
			Recall: frac(correct[name], expected[name]), Expected: expected[name], Routed: routed[name]})
	}
	sort.Slice(rep.Skills, func(i, j int) bool { return rep.Skills[i].Skill < rep.Skills[j].Skill })
	for k, n := range confusions {
		rep.Confusions = append(rep.Confusions, Confusion{k[0], k[1], n})
	}
	sort.Slice(rep.Confusions, func(i, j int) bool {
		a, b := rep.Confusions[i], rep.Confusions[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Expected+a.Routed < b.Expected+b.Routed
	})
	return rep
}

// Line is the summary's main figures on one line.
func (s Summary) Line() string {
	line := ""
	if s.N > 0 {
		line = fmt.Sprintf("skill prompts %3d top-1 %5.1f%%", s.N, 100*s.Top1)
	}
	if s.NoneN > 0 {
		line += fmt.Sprintf("  none prompts %3d abstained %5.1f%%", s.NoneN, 100*s.NoneCorrect)
	}
	if s.HighN > 0 {
		line += fmt.Sprintf("  HIGH %3d precision %5.1f%%", s.HighN, 100*s.HighPrecision)
	}
	return line
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func percentile(ds []time.Duration, p float64) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p * float64(len(s)-1))
	return float64(s[i].Nanoseconds()) / 1000
}

// Write prints the report for people.
func (rep *Report) Write(w io.Writer, title string, verbose bool) {
	s := rep.Summary
	fmt.Fprintf(w, "%s\n", title)
	fmt.Fprintf(w, "  skill prompts %d: top-1 %.1f%%  top-3 %.1f%%  MRR %.3f  wrongly abstained %.1f%%\n",
		s.N, 100*s.Top1, 100*s.Top3, s.MRR, 100*s.FalseAbstain)
	fmt.Fprintf(w, "  ranked top-1 (first candidate, abstentions included) %.1f%%\n", 100*s.Top1Ranked)
	fmt.Fprintf(w, "  none prompts %d: correctly abstained %.1f%%\n", s.NoneN, 100*s.NoneCorrect)
	fmt.Fprintf(w, "  latency p50 %.0f µs  p99 %.0f µs\n", s.P50us, s.P99us)
	fmt.Fprintf(w, "  HIGH decisions %d: precision %.1f%%\n", s.HighN, 100*s.HighPrecision)
	if s.HookTop1 != nil {
		fmt.Fprintf(w, "  the hook's line (the action layer after the router): skill prompts right %.1f%%  none prompts given no skill %.1f%%\n",
			100**s.HookTop1, 100**s.HookNone)
	}
	if len(s.Calibration) > 0 {
		fmt.Fprintf(w, "  first candidate right, by confidence:")
		for _, b := range s.Calibration {
			fmt.Fprintf(w, "  [%.1f,%.1f) %d/%d", b.From, b.To, int(math.Round(b.Precision*float64(b.N))), b.N)
		}
		fmt.Fprintln(w)
	}
	for _, by := range []struct {
		what string
		m    map[string]Summary
	}{{"lang", s.ByLang}, {"kind", s.ByKind}} {
		labels := make([]string, 0, len(by.m))
		for l := range by.m {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		for _, l := range labels {
			fmt.Fprintf(w, "  %s %-12s %s\n", by.what, l, by.m[l].Line())
		}
	}
	for i, f := range s.Folds {
		fmt.Fprintf(w, "  part %d of %d     %s\n", i+1, len(s.Folds), f.Line())
	}
	if len(rep.Confusions) > 0 {
		fmt.Fprintf(w, "  most frequent confusions (expected -> routed):\n")
		for i, c := range rep.Confusions {
			if i == 10 {
				break
			}
			fmt.Fprintf(w, "    %3d  %s -> %s\n", c.Count, c.Expected, c.Routed)
		}
	}
	fmt.Fprintf(w, "  per skill (precision / recall, expected n):\n")
	for _, sk := range rep.Skills {
		fmt.Fprintf(w, "    %-28s %5.1f%% / %5.1f%%  n=%d\n", sk.Skill, 100*sk.Precision, 100*sk.Recall, sk.Expected)
	}
	if verbose {
		fmt.Fprintf(w, "  misses:\n")
		for _, o := range rep.Misses {
			got := o.Routed
			if got == "" {
				got = "(abstain)"
			}
			level := ""
			if o.High {
				level = ", HIGH" // a sure decision that was wrong: the miss a user sees
			}
			fmt.Fprintf(w, "    [%s -> %s] %s  (confidence %.2f%s; ranked %s)\n", o.Expected, got, o.Query, o.Confidence, level, strings.Join(o.Ranked, ", "))
		}
	}
}
