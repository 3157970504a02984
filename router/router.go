// Package router is the routing pipeline: for one prompt and the session
// it comes in, it decides which skill, if any, belongs in front of the
// model, and says why.
//
// Route runs an explicit, ordered list of stages over one route value,
// each a small function that reads what the stages before it left and
// adds its own part (and, with Explain set, its line of the explanation):
//
//	normalise  cap and lower-case the prompt once; every later stage reads that
//	turn       a new request, a continuation ("继续", "go on") or a closing ("thanks"); an aside ("btw", "顺便问下") is read without the session
//	tokenize   the prompt's terms (a continuation's cue words stripped)
//	score      BM25's best skills over the compiled index (bm25.TopK, needs.go), with the learner's weights and (when there are any) without
//	followup   settle the turn on the prompt's own evidence: close, carry on, or route afresh
//	signals    the session's evidence: context window, project type, workflow
//	fuse       BM25 (without the learner's weights) and the signals, linearly, once the lists hold every skill a later stage acts on
//	rules      the disambiguation rules
//	prior      the calibration table, a prior among the candidates
//	learned    what the user taught, over the rules and the table: the weights' change, then the prompt memory
//	breadth    a near tie of plain skills, with nothing else deciding, goes to the skill that meets more of the prompt
//	decide     confidence, level, the recommended skill and its evidence
//	quiet      a self-contained question, or a go-ahead with no session to go on with, that no skill matches clearly gets none
//
// A new stage is one function over *route and one line in the pipeline
// list (stages.go):
//
//	func freshness(r *Router, st *route) { … st.cands[i].Score *= … }
//
//	{"freshness", freshness},
//
// The router reads no file and no environment: the loader package opens a
// catalog into a Router, and callers pass the session in as a Session
// snapshot (the hook from its state folder, eval in memory), so that the
// same prompt in the same session always gets the same decision.
//
// Confidence is absolute, not relative to the top candidate: a prompt that
// matches nothing well gets a low confidence even though something came
// first. It combines how strong the best match is (its score against
// ScoreScale, the score of one clear, distinctive keyword hit) with how
// far it stands above the runner-up, read through the lines the catalog's
// calibration drew (calibrate.go). Below AbstainBelow the router
// recommends nothing: for a hook, silence beats a wrong skill. HIGH is
// kept for a clear first: a skill within TieMargin of its runner-up, or
// carried by the session against another skill's keyword, reads MEDIUM at
// most.
package router

import (
	"fmt"
	"math"
	"strings"

	"github.com/skillroute/skillroute/bm25"
	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/explain"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn/calibrate"
	"github.com/skillroute/skillroute/learn/memory"
)

// Level is a coarse reading of confidence.
type Level string

// Confidence levels. LOW means the router abstains.
const (
	High   Level = "HIGH"
	Medium Level = "MEDIUM"
	Low    Level = "LOW"
)

// Confidence calibration. ScoreScale is the score at which the strength
// part reaches 1 − 1/e ≈ 0.63: about one distinctive core keyword plus a
// supporting word, so one clear hit reads as fairly sure and a stray
// body-text word (≈ 0.3) as unsure. The margin part keeps MarginFloor of
// the strength when the runner-up ties the winner: whether any skill
// applies is the strength's question, and a close runner-up is named in
// the injected line anyway. Set on sessions-dev.jsonl, where follow-ups
// decided by the session ("详情页也照样补上") keep a rival from the object
// they name; 0.75 silenced them. Thresholds were set on dev.jsonl:
// AbstainBelow is the confidence under which the "none" prompts fall
// (hello, thanks, weather) and nearly all skill prompts rise; HighFrom is
// where top-1 precision on dev.jsonl passes 95 %.
const (
	ScoreScale   = 2.5
	MarginFloor  = 0.85
	AbstainBelow = 0.42
	HighFrom     = 0.60
)

// MaxCandidates is how many candidates a decision lists.
const MaxCandidates = 5

// Candidate is one ranked skill.
type Candidate struct {
	Skill      string        `json:"skill"`
	Score      float64       `json:"score"`
	Confidence float64       `json:"confidence"`
	Explain    *explain.Node `json:"-"`
	Evidence   []string      `json:"-"` // why, in a few words: matched terms, signals, rules
}

// Decision is the router's answer for one prompt.
type Decision struct {
	Query      string      `json:"query"`
	Skill      string      `json:"skill"` // "" when abstaining
	Confidence float64     `json:"confidence"`
	Level      Level       `json:"level"`
	Candidates []Candidate `json:"candidates"`
	Rules      []string    `json:"rules,omitempty"`   // ids of the rules that fired
	Closing    bool        `json:"closing,omitempty"` // a thanks-and-done turn: no skill by design
	Quiet      bool        `json:"quiet,omitempty"`   // a self-contained question, or a go-ahead with no work in hand, no skill matches clearly (quiet.go)
	Chat       bool        `json:"chat,omitempty"`    // an opinion or a fact asked about a thing, not work: no skill however clear (quiet.go)
	Thin       bool        `json:"thin,omitempty"`    // the best match rests on one word of the skill's text, or two common ones (quiet.go)
	Prior      string      `json:"prior,omitempty"`   // what the calibration table did, when it acted
	Breadth    string      `json:"breadth,omitempty"` // which skill passed which in a near tie, on breadth (breadth.go)
	Memory     string      `json:"memory,omitempty"`  // what the prompt memory did, when it acted
	// Terms is the prompt's vector as the prompt memory keeps it (term
	// hashes, no text), for a later verdict on this route to be
	// remembered.
	Terms   memory.Vector `json:"-"`
	Carried bool          `json:"carried,omitempty"` // the confidence is the previous turn's, carried (session.go)
	// Lines says where this catalog's abstain and HIGH lines lie in
	// scores, when explaining.
	Lines string `json:"lines,omitempty"`
	// Own is the user's own words, when explaining a prompt part of which
	// was read as pasted material (tokenize.Text.Prose): what the turn's
	// cue words, the rules and the question stage read.
	Own string `json:"own,omitempty"`
	// Unloaded names the skills that matched but have paths no file of
	// the prompt matches: Claude Code has not loaded them (paths.go).
	Unloaded []string `json:"unloaded,omitempty"`
}

// Router routes prompts over one compiled index and rule set.
type Router struct {
	Index *index.Index
	Rules *disambig.Set
	// Weights are the learner's adjustments (nil: none): BM25 scores
	// with them, and the learned stage adds what they change, and what
	// their learned keywords score (learn.Weights.AddedTerms), after the
	// rules.
	Weights bm25.Adjuster
	// Table is the calibration table, a prior among the candidates (nil:
	// none).
	Table *calibrate.Table
	// Memory is the prompt memory of corrected and confirmed prompts
	// (nil: none).
	Memory *memory.Memory
	// Projects are the skills each project type favours (nil: the
	// project signal is off).
	Projects sctx.ProjectFavours
	// Explain makes every candidate carry its explanation tree. Off on the
	// hook's path: building the messages costs more than routing.
	Explain bool
}

// scale returns the catalog's reading of scores, its abstain and HIGH
// lines, from the index's calibration (calibrate.go): two interpolations,
// cheaper than keeping them.
func (r *Router) scale() scale {
	return scaleOf(r.Index)
}

// New returns a router over an index and a rule set (nil: no rules).
func New(ix *index.Index, rules *disambig.Set) *Router {
	return &Router{Index: ix, Rules: rules}
}

// Route decides for a prompt in its session (the zero Session: a prompt on
// its own).
func (r *Router) Route(prompt string, s Session) Decision {
	st := &route{prompt: prompt, session: s}
	for _, stage := range pipeline {
		stage.run(r, st)
		if st.done {
			break
		}
	}
	return st.decision
}

// Canonical maps used skill names to the catalog's ("plugin:name" and
// "name" are one skill), dropping names the catalog lacks.
func (r *Router) Canonical(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if id := r.Index.Resolve(n); id >= 0 {
			out = append(out, r.Index.Skills.Name(id))
		}
	}
	return out
}

// enhances lists, by catalog name, the skills a skill enhances.
func (r *Router) enhances(skill string) []string {
	id := r.Index.Resolve(skill)
	if id < 0 {
		return nil
	}
	var out []string
	for _, e := range r.Index.Skills.Enhances(id) {
		if j := r.Index.Resolve(e); j >= 0 {
			out = append(out, r.Index.Skills.Name(j))
		}
	}
	return out
}

// Confidence maps a score and its nearest rival's score into [0, 1] on
// no particular catalog: against ScoreScale, as the router reads an index
// that holds no calibration. A router reads its own catalog's calibration
// instead (Router.Confidence).
func Confidence(score, rival float64) float64 {
	return scale{}.confidence(score, rival)
}

// Confidence maps a score and its nearest rival's score into [0, 1] on
// the router's catalog, through its calibration (calibrate.go).
func (r *Router) Confidence(score, rival float64) float64 {
	return r.scale().confidence(score, rival)
}

// LevelOf reads a confidence as a level.
func LevelOf(c float64) Level {
	switch {
	case c >= HighFrom:
		return High
	case c >= AbstainBelow:
		return Medium
	default:
		return Low
	}
}

func round(x float64) float64 { return math.Round(x*10000) / 10000 }

// Explain renders why the decision came out as it did.
func (d *Decision) Explain() string {
	var b strings.Builder
	if d.Closing {
		b.WriteString("abstain: the prompt closes the exchange (thanks, done), no skill needed\n")
	} else if d.Chat {
		fmt.Fprintf(&b, "abstain: asks an opinion or a fact about a thing, not for work on the user's own, which no skill's playbook adds to (confidence %.2f)\n", d.Confidence)
	} else if d.Thin {
		fmt.Fprintf(&b, "abstain: the match rests on one word of the skill's text, or two that much of the catalog writes, which name nothing of it (confidence %.2f)\n", d.Confidence)
	} else if d.Quiet {
		fmt.Fprintf(&b, "abstain: a self-contained question, or a go-ahead with no work in hand, that no skill matches clearly (confidence %.2f, under %.2f, and no keyword of the skill named)\n", d.Confidence, HighFrom)
	} else if d.Skill == "" {
		fmt.Fprintf(&b, "abstain: confidence %.2f is below %.2f\n", d.Confidence, AbstainBelow)
	} else {
		fmt.Fprintf(&b, "route to %s: confidence %.2f (%s)\n", d.Skill, d.Confidence, d.Level)
		if len(d.Candidates) > 1 && d.Candidates[0].Skill == d.Skill && Tie(d.Candidates[0].Score, d.Candidates[1].Score) {
			fmt.Fprintf(&b, "near tie: %s scores within %.0f%% of it, so it is not HIGH\n", d.Candidates[1].Skill, 100*TieMargin)
		}
	}
	if d.Own != "" {
		fmt.Fprintf(&b, "own words: %q (the rest read as pasted material)\n", d.Own)
	}
	if d.Carried {
		fmt.Fprintf(&b, "carried: a follow-up of the previous turn's skill, at %.2f × its confidence (at most %.2f when the prompt names another skill's keyword)\n", CarryDecay, TieCeiling)
	}
	if d.Lines != "" {
		fmt.Fprintf(&b, "lines: %s\n", d.Lines)
	}
	if len(d.Unloaded) > 0 {
		fmt.Fprintf(&b, "left out: %s (Claude Code loads a skill with paths only for the files they match, and the prompt names none)\n", strings.Join(d.Unloaded, ", "))
	}
	if len(d.Rules) > 0 {
		fmt.Fprintf(&b, "rules fired: %s\n", strings.Join(d.Rules, ", "))
	}
	if d.Breadth != "" {
		fmt.Fprintf(&b, "breadth: %s\n", d.Breadth)
	}
	if d.Prior != "" {
		fmt.Fprintf(&b, "calibration: %s\n", d.Prior)
	}
	if d.Memory != "" {
		fmt.Fprintf(&b, "%s\n", d.Memory)
	}
	for i, c := range d.Candidates {
		fmt.Fprintf(&b, "#%d %s score %.4f confidence %.2f\n", i+1, c.Skill, c.Score, c.Confidence)
		if c.Explain != nil {
			for _, line := range strings.Split(strings.TrimRight(c.Explain.String(), "\n"), "\n") {
				b.WriteString("   " + line + "\n")
			}
		}
	}
	return b.String()
}
