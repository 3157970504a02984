// Package context computes the session signals the router fuses with the
// prompt's BM25 scores: what was used recently, what kind of project the
// user is in, and which skill usually comes next. Each signal is a map from
// skill name to a score in [0, 1], the three maps of router.Signals
// (Context, Project, Workflow). The package sits below the router and
// imports nothing of this project; since its name meets the standard
// library's context, callers import it under an alias:
//
//	import sctx "github.com/skillroute/skillroute/context"
//
// Session context is the seed's sliding window: the last Window skills
// used, the most recent weighing 1, the one before Decay, then Decay², and
// so on. A candidate earns SameSkill × decay for every step at which it was
// itself used and EnhancedBy × decay for every step whose skill enhances
// it (the catalog's `enhances` field: skills commonly used after that
// one); the skill in use counts more than where it may lead.
// The sum is rounded to two decimals and capped at 1. It is what lets
// "帮我优化一下" after two frontend turns go to the frontend skill although
// the words alone name no skill.
//
// Project type reads marker files (go.mod, package.json, Chart.yaml, …) in
// the working folder and its parents up to the repository root, and maps
// each detected type to the skills it favours through data
// (ProjectFavours; rules/projects.yaml ships the table), not skill names
// built into the code. Detection runs on every prompt, so it lists each
// folder once, reads at most a few small files, and never fails: an
// unreadable folder or malformed package.json is simply no evidence.
//
// Workflow is an n-gram model of skill sequences: after golang-pro then
// tester-expert, what came next in past sessions? It interpolates the
// trigram and bigram estimates, says nothing about contexts seen fewer
// than MinCount times, and halves a context's counts when they pass
// MaxContextTotal so that old habits fade.
//
// Session is the small state the hook persists between prompts (as JSON);
// Workflow is the cross-session state, persisted the same way.
package context

import (
	"math"
	"path/filepath"
	"slices"
	"time"
)

// Session-context parameters, the seed's design (context-tracker.js).
//
// Window is how many past uses count: ten covers a working session's
// recent turns, and at 0.85⁹ ≈ 0.23 the oldest still counts a little, so
// a longer window would add steps worth almost nothing.
//
// Decay is the weight lost per step back: the previous use weighs 0.85,
// three steps back 0.61, so the current thread dominates but a skill
// used a few prompts ago is not forgotten.
//
// SameSkill is what one use of the candidate itself adds: the skill in
// use is the surest guide to the next prompt ("继续", "再加个超时"), so
// it counts more than the skills it leads into.
//
// EnhancedBy is what one use of a skill that enhances the candidate adds:
// the catalog's enhances field says the candidate is a usual next step
// (frontend-expert → performance-expert), one possibility among several,
// and a prompt that goes there names it anyway.
//
// Cross-validated on sessions-dev.jsonl (2-fold and 5-fold by session
// id): EnhancedBy 0.5 → 0.2, which four folds of five chose among 0.1 to
// 0.5 (0.1 and 0.2 route 99 turns of 100, 0.3 to 0.5 98); SameSkill is
// flat from 0.3 to 1.0 there and is set to 0.5, above EnhancedBy as it
// must be, where the seed had the two the wrong way round.
const (
	Window     = 10
	Decay      = 0.85
	SameSkill  = 0.5
	EnhancedBy = 0.2
)

// ProjectTTL is how long a session's cached project types are trusted
// before the folder is looked at again: long enough that a burst of
// prompts in one folder detects once, short enough that a marker created
// mid-session (go mod init, npm init) counts within minutes.
const ProjectTTL = 5 * time.Minute

// Session is one Claude Code session's state, persisted by the hook as a
// small JSON file between prompts.
type Session struct {
	ID string `json:"id"`
	// Recent are the skills used, oldest first, at most Window of them.
	Recent []string `json:"recent"`
	// Updated is when a skill was last used.
	Updated time.Time `json:"updated"`
	// Project are the project types detected for ProjectDir, cached.
	Project []string `json:"project,omitempty"`
	// ProjectDir is the folder Project was detected for.
	ProjectDir string `json:"project_dir,omitempty"`
	// ProjectAt is when Project was detected; after ProjectTTL it is
	// detected again.
	ProjectAt time.Time `json:"project_at,omitempty"`
}

// Use records that skill was used at time now. Repeated uses are recorded
// too (they are what SameSkill counts); only the last Window uses are kept.
// An empty name is ignored.
func (s *Session) Use(skill string, now time.Time) {
	if skill == "" {
		return
	}
	s.Recent = append(s.Recent, skill)
	if n := len(s.Recent); n > Window {
		// Copy down rather than reslice, so the backing array does not
		// keep growing over a long session.
		s.Recent = append(s.Recent[:0], s.Recent[n-Window:]...)
	}
	s.Updated = now
}

// ProjectFor returns the project types of dir, detecting them with
// DetectProject (which stops before home, the user's home folder) unless
// the session holds a detection of the same folder younger than
// ProjectTTL.
func (s *Session) ProjectFor(dir, home string, now time.Time) []string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if s.ProjectDir == dir && !s.ProjectAt.IsZero() && now.Sub(s.ProjectAt) < ProjectTTL && now.Sub(s.ProjectAt) >= 0 {
		return s.Project
	}
	s.Project, s.ProjectDir, s.ProjectAt = DetectProject(dir, home), dir, now
	return s.Project
}

// roundEps makes rounding to two decimals go half up as the arithmetic
// would by hand: 0.3 + 0.3×0.85 is 0.555, but in binary it sums to
// 0.55499999…, which would round down to 0.55.
const roundEps = 1e-9

// ContextScores scores every skill that the recent uses point to: the
// recent skills themselves (SameSkill per use) and the skills they enhance
// (EnhancedBy per use), each use weighted by Decay^steps-back. recent is
// oldest first; only its last Window entries count. enhances returns the
// skills a skill enhances and may be nil. Scores are rounded to two
// decimals and capped at 1; skills scoring 0 are absent.
func ContextScores(recent []string, enhances func(skill string) []string) map[string]float64 {
	if len(recent) > Window {
		recent = recent[len(recent)-Window:]
	}
	if len(recent) == 0 {
		return map[string]float64{}
	}
	raw := make(map[string]float64, 2*len(recent))
	decay := 1.0
	for i := len(recent) - 1; i >= 0; i, decay = i-1, decay*Decay {
		used := recent[i]
		if used == "" {
			continue
		}
		raw[used] += SameSkill * decay
		if enhances == nil {
			continue
		}
		targets := enhances(used)
		for j, e := range targets {
			// A skill that lists itself or lists a target twice gains
			// nothing more: one step is one piece of evidence per skill.
			if e == "" || e == used || slices.Contains(targets[:j], e) {
				continue
			}
			raw[e] += EnhancedBy * decay
		}
	}
	out := make(map[string]float64, len(raw))
	for name, v := range raw {
		v = math.Min(1, math.Round(v*100+roundEps)/100)
		if v > 0 {
			out[name] = v
		}
	}
	return out
}
