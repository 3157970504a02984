package action

import (
	"math"
	"slices"
	"time"

	"github.com/skillroute/skillroute/learn/category"
	"github.com/skillroute/skillroute/recall"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// Candidate is one thing the action layer could put in front of the model,
// with the features both routers score. Every feature is in [0, 1].
type Candidate struct {
	Type string `json:"type"` // TypeMemory, TypeSkill or TypeTool
	Ref  string `json:"ref"`  // memory id, skill name, tool name
	// Confidence that the candidate fits the prompt: the router's for a
	// skill, the retrieval's (recall.Hit) for a memory or a tool.
	Confidence float64 `json:"confidence"`
	// SuccessRate is how often this kind of help worked for this kind of
	// prompt: the policy's posterior mean, or its prior.
	SuccessRate float64 `json:"success_rate"`
	// Cost is the share of the context budget the injection takes
	// (tokens / ContextTokens), or a tool's declared cost.
	Cost float64 `json:"cost"`
	// Freshness decays with a memory's age (half-life FreshnessHalfLife);
	// a skill or a tool is as current as its file.
	Freshness float64 `json:"freshness"`
	// Risk is a tool's declared risk; a skill or a fact has no side effects.
	Risk float64 `json:"risk"`
	// Preconditions are the step types that must come before this one
	// ("memory": a tool whose argument only a remembered fact supplies).
	Preconditions []string `json:"preconditions,omitempty"`
	// Evidence is the prompt's words that matched, for the breakdown.
	Evidence []string `json:"evidence,omitempty"`
	// Tokens is what emitting the candidate takes (about four bytes a
	// token): replay sums it over a decision's steps.
	Tokens int `json:"tokens"`
	// Text is what emission shows: the fact, or the tool's description.
	Text string `json:"-"`
}

// key identifies a candidate in a session's recent failures (a skill by
// its bare name: Claude Code may report "plugin:name" or "name").
func (c Candidate) key() string {
	if c.Type == TypeSkill {
		return FailureKey(c.Type, skills.BareName(c.Ref))
	}
	return FailureKey(c.Type, c.Ref)
}

// FailureKey is how a failed candidate is named in Input.Failures.
func FailureKey(typ, ref string) string { return typ + ":" + ref }

// FreshnessHalfLife is the age at which a memory's freshness halves. Long:
// a remembered fact is a standing one, and still true until forgotten; age
// only lowers it against a younger rival. 90 days keeps the oldest facts
// of the action dev set (120 days, freshness 0.40) above the rule router's
// freshness gate of 0.3, which a fact crosses after 156 days.
const FreshnessHalfLife = 90 * 24 * time.Hour

// Freshness returns the freshness of something age old.
func Freshness(age time.Duration) float64 {
	if age <= 0 {
		return 1
	}
	return math.Pow(0.5, float64(age)/float64(FreshnessHalfLife))
}

// ContextTokens is the injection budget a cost is a share of: the hook's
// MaxContext of 600 bytes at about four bytes a token.
const ContextTokens = 150

// skillLineTokens is what a skill line costs: the hook's line names the
// skill, its confidence and its evidence (about 120 bytes).
const skillLineTokens = 30

// TextTokens estimates the tokens of a text at four bytes each: what the
// trajectories and the feedback log count as injected.
func TextTokens(s string) int { return (len(s) + 3) / 4 }

func costOf(tok int) float64 { return math.Min(1, float64(tok)/ContextTokens) }

// MaxRecalled is how many memories and how many tools become candidates:
// the best few, so that the breakdown shows the runner-up a decision beat.
const MaxRecalled = 3

// Input is everything a router decides on. It is what a trajectory logs,
// so that replay re-runs a router on exactly what it saw.
type Input struct {
	// ID is the decision's id: what an exploring router draws from.
	ID     string `json:"id,omitempty"`
	Prompt string `json:"prompt"`
	// Category is the prompt's task category (category.Classify), the key of
	// the policy's success rates.
	Category string `json:"category"`
	// Skill is the router's recommendation ("" when it abstained); Closing
	// says the router read a thanks-and-done turn.
	Skill   string `json:"skill"`
	Closing bool   `json:"closing,omitempty"`
	// Candidates of the three types, best first within a type.
	Candidates []Candidate `json:"candidates"`
	// Failures are the candidates (FailureKey) that failed recently in
	// the session.
	Failures []string `json:"failures,omitempty"`
}

// Layer is the action layer: what it retrieves besides skills, indexed,
// and the router that decides.
type Layer struct {
	memories []recall.Memory
	tools    []recall.Tool
	mi, ti   *recall.Index
	// Policy gives success rates (nil: the prior for every candidate).
	Policy *Policy
	// Router decides (nil: the feature router, exploring at the policy's
	// rate).
	Router Router
}

// router returns the router that decides.
func (l *Layer) router() Router {
	if l != nil && l.Router != nil {
		return l.Router
	}
	if l != nil && l.Policy != nil {
		return Feature{Explore: l.Policy.Explore}
	}
	return Feature{}
}

// RouterName names the router that decides.
func (l *Layer) RouterName() string { return l.router().Name() }

// RouterVersion is the deciding router's version.
func (l *Layer) RouterVersion() string { return l.router().Version() }

// Decide gathers the candidates for a routed prompt and decides.
func (l *Layer) Decide(prompt string, d router.Decision, ctx Context) (Input, Decision) {
	in := l.Input(prompt, d, ctx)
	return in, l.router().Decide(in)
}

// NewLayer indexes memories and tools for retrieval (compiled in
// memory: fixtures and tests).
func NewLayer(memories []recall.Memory, tools []recall.Tool) (*Layer, error) {
	l := &Layer{memories: memories, tools: tools}
	var err error
	if len(memories) > 0 {
		if l.mi, err = recall.Build(recall.MemoryDocs(memories)); err != nil {
			return nil, err
		}
	}
	if len(tools) > 0 {
		if l.ti, err = recall.Build(recall.ToolDocs(tools)); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// OpenLayer opens a memories file and a tools file with their compiled
// indexes, kept in cacheDir while the files are unchanged (see
// recall.OpenMemories). A missing memories file holds none; a missing
// tools file is an error unless toolsOptional.
func OpenLayer(memoriesPath, toolsPath string, toolsOptional bool, cacheDir string) (*Layer, error) {
	mems, mi, err := recall.OpenMemories(memoriesPath, cacheDir)
	if err != nil {
		return nil, err
	}
	tools, ti, err := recall.OpenTools(toolsPath, cacheDir, toolsOptional)
	if err != nil {
		return nil, err
	}
	return &Layer{memories: mems, mi: mi, tools: tools, ti: ti}, nil
}

// Memories returns the layer's memories.
func (l *Layer) Memories() []recall.Memory { return l.memories }

// Tools returns the layer's tools.
func (l *Layer) Tools() []recall.Tool { return l.tools }

// Context is where a prompt is asked: the working folder (project memories
// apply inside their project), the time (memories age), and the session's
// recent failures.
type Context struct {
	// ID is the decision's id (see Input.ID).
	ID       string
	Cwd      string
	Now      time.Time
	Failures []string
}

// Input gathers the candidates for a routed prompt.
func (l *Layer) Input(prompt string, d router.Decision, ctx Context) Input {
	text := tokenize.NewText(prompt)
	in := Input{ID: ctx.ID, Prompt: text.Raw, Category: category.ClassifyText(text), Skill: d.Skill, Closing: d.Closing,
		Failures: slices.Clone(ctx.Failures)}
	if d.Skill != "" && len(d.Candidates) > 0 {
		c := d.Candidates[0]
		in.Candidates = append(in.Candidates, Candidate{Type: TypeSkill, Ref: d.Skill, Confidence: c.Confidence,
			Cost: costOf(skillLineTokens), Freshness: 1, Evidence: c.Evidence, Tokens: skillLineTokens})
	}
	if l != nil && l.mi != nil {
		n := 0
		for _, h := range l.mi.Search(text, 0) {
			m := l.memories[h.Doc]
			if !m.AppliesIn(ctx.Cwd) {
				continue
			}
			c := Candidate{Type: TypeMemory, Ref: m.ID, Confidence: round(h.Confidence),
				Freshness: round(Freshness(m.Age(ctx.Now))), Evidence: h.Matched, Text: m.Text}
			c.Tokens = TextTokens(memoryLine(c))
			c.Cost = round(costOf(c.Tokens))
			in.Candidates = append(in.Candidates, c)
			if n++; n == MaxRecalled {
				break
			}
		}
	}
	if l != nil && l.ti != nil {
		for i, h := range l.ti.Search(text, 0) {
			if i == MaxRecalled {
				break
			}
			t := l.tools[h.Doc]
			c := Candidate{Type: TypeTool, Ref: t.Name, Confidence: round(h.Confidence),
				Cost: t.Cost, Freshness: 1, Risk: t.Risk, Preconditions: t.Requires, Evidence: h.Matched, Text: t.Description}
			c.Tokens = TextTokens(toolLine(c))
			in.Candidates = append(in.Candidates, c)
		}
	}
	var p *Policy
	if l != nil {
		p = l.Policy
	}
	for i := range in.Candidates {
		in.Candidates[i].SuccessRate = round(p.SuccessRate(in.Category, ActionOf(in.Candidates[i].Type), in.Candidates[i].Ref))
	}
	return in
}
