// Package eval measures a router on labelled prompts.
//
// A case is one JSON line {"query","expected"}; expected is a skill name or
// "none" when the router should abstain. The report gives top-1 (the routed
// skill is the expected one; abstaining counts as a miss), top-3 and MRR
// over the candidate list, ranked top-1 (the first candidate even when the
// router abstained: how a router that always answers, like the bookworm
// peer with its fallback, is scored), the share of "none" prompts abstained, the share
// of skill prompts wrongly abstained, per-skill precision and recall, the
// most frequent confusions and route latency; and, when the file labels
// its prompts with "lang" or "kind", the share right per language and per
// kind.
package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
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
}

// Session is a multi-turn case: the turns are routed in order, in a
// project folder holding the listed marker files.
type Session struct {
	ID           string   `json:"id"`
	ProjectFiles []string `json:"project_files"`
	Turns        []Case   `json:"turns"`
}

// File is the content of an eval file: single prompts, sessions, or both.
type File struct {
	Cases    []Case
	Sessions []Session
}

// Read parses an eval file. A malformed line is an error naming the line.
func Read(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := &File{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
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
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		switch {
		case probe.Turns != nil:
			var s Session
			if err := json.Unmarshal([]byte(text), &s); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			for i, t := range s.Turns {
				if t.Query == "" || t.Expected == "" {
					return nil, fmt.Errorf("%s:%d: turn %d needs query and expected", path, line, i+1)
				}
			}
			out.Sessions = append(out.Sessions, s)
		case probe.Query != nil && probe.Expected != nil:
			if *probe.Query == "" || *probe.Expected == "" {
				return nil, fmt.Errorf("%s:%d: query and expected may not be empty (an abstention is \"none\")", path, line)
			}
			var c Case
			if err := json.Unmarshal([]byte(text), &c); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			if err := c.checkAction(); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
			out.Cases = append(out.Cases, c)
		default:
			return nil, fmt.Errorf("%s:%d: a line needs \"query\" and \"expected\", or \"turns\"", path, line)
		}
	}
	return out, sc.Err()
}

// Outcome is what the router did with one case.
type Outcome struct {
	Case
	Routed  string   // "" when it abstained
	Ranked  []string // candidate skills, best first
	Latency time.Duration
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
	// By language and by kind, when the file labels its prompts.
	ByLang map[string]Slice `json:"by_lang,omitempty"`
	ByKind map[string]Slice `json:"by_kind,omitempty"`
}

// Slice is the share right of the prompts that carry one label: top-1 of
// those that expect a skill, abstentions of those that expect none, and
// both together (Right: what a user sees).
type Slice struct {
	N           int     `json:"n"`
	Right       float64 `json:"right"`
	SkillN      int     `json:"skill_n"`
	Top1        float64 `json:"top1"`
	NoneN       int     `json:"none_n"`
	NoneCorrect float64 `json:"none_correct"`
}

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
	o := Outcome{Case: c, Routed: d.Skill, Latency: lat}
	for _, cand := range d.Candidates {
		o.Ranked = append(o.Ranked, cand.Skill)
	}
	return o
}

// Summarize builds a report from outcomes.
func Summarize(outs []Outcome) Report {
	var rep Report
	s := &rep.Summary
	var lat []time.Duration
	expected, routed, correct := map[string]int{}, map[string]int{}, map[string]int{}
	confusions := map[[2]string]int{}
	var top1, ranked1, top3, abstained, noneOK int
	var rr float64
	for _, o := range outs {
		lat = append(lat, o.Latency)
		if o.Routed != "" {
			routed[o.Routed]++
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
	s.ByLang = bySlice(outs, func(c Case) string { return c.Lang })
	s.ByKind = bySlice(outs, func(c Case) string { return c.Kind })

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

// bySlice breaks outcomes down by a label; nil when no case carries one.
func bySlice(outs []Outcome, label func(Case) string) map[string]Slice {
	type count struct{ skill, top1, none, abstained int }
	counts := map[string]*count{}
	for _, o := range outs {
		l := label(o.Case)
		if l == "" {
			continue
		}
		c := counts[l]
		if c == nil {
			c = &count{}
			counts[l] = c
		}
		if o.Expected == None {
			c.none++
			if o.Routed == "" {
				c.abstained++
			}
		} else {
			c.skill++
			if o.Routed == o.Expected {
				c.top1++
			}
		}
	}
	if len(counts) == 0 {
		return nil
	}
	frac := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	out := map[string]Slice{}
	for l, c := range counts {
		out[l] = Slice{N: c.skill + c.none, Right: frac(c.top1+c.abstained, c.skill+c.none), SkillN: c.skill, Top1: frac(c.top1, c.skill),
			NoneN: c.none, NoneCorrect: frac(c.abstained, c.none)}
	}
	return out
}

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
	for _, by := range []struct {
		name   string
		slices map[string]Slice
	}{{"lang", s.ByLang}, {"kind", s.ByKind}} {
		if len(by.slices) == 0 {
			continue
		}
		fmt.Fprintf(w, "  by %s (right: skill prompts top-1 and none prompts abstained):\n", by.name)
		for _, l := range slices.Sorted(maps.Keys(by.slices)) {
			sl := by.slices[l]
			line := fmt.Sprintf("    %-12s %3d prompts: right %5.1f%%", l, sl.N, 100*sl.Right)
			if sl.SkillN > 0 {
				line += fmt.Sprintf("  top-1 %5.1f%% of %d", 100*sl.Top1, sl.SkillN)
			}
			if sl.NoneN > 0 {
				line += fmt.Sprintf("  abstained %5.1f%% of %d", 100*sl.NoneCorrect, sl.NoneN)
			}
			fmt.Fprintln(w, line)
		}
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
			fmt.Fprintf(w, "    [%s -> %s] %s  (ranked %s)\n", o.Expected, got, o.Query, strings.Join(o.Ranked, ", "))
		}
	}
}
