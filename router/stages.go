package router

import (
	"strings"

	"github.com/skillroute/skillroute/bm25"
	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/explain"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/tokenize"
)

// route is one prompt on its way through the pipeline: each stage reads
// the fields the stages before it filled and fills its own.
type route struct {
	prompt  string  // as given
	session Session // as given

	text   tokenize.Text  // normalise
	prose  *tokenize.Text // the prompt's own words, once asked for (own)
	turn   sctx.Turn      // turn
	recent []string       // turn: the session's skills, by catalog name
	scored tokenize.Text  // tokenize: the text BM25 reads (cues stripped in a continuation)
	query  tokenize.Query

	results     []bm25.Result  // score: with the learner's weights
	base        []bm25.Result  // score: without them, what fuse and the rules see (nil: no weights)
	scoredQuery tokenize.Query // score: the query results and base were scored on
	continues   bool           // followup: the session's skill carries this turn
	weak        bool           // followup: the prompt alone would abstain, or names nothing of a new skill
	signals     Signals        // signals
	cands       []disambig.Candidate
	fires       *disambig.Firing // the rules that fire on the prompt (firing)
	pinned      []int            // score: skills later stages act on whatever their rank (pin)
	lowered     int              // score: how many skills the fired rules name
	pinnedDone  bool
	fired       []*disambig.Rule // rules
	prior       string           // prior: what the table did, for --explain
	silence     bool             // prior: the table has seen no skill help here
	remembered  string           // learned: the skill the prompt memory's verdict put first, pinned or moved
	recalled    bool             // the prompt memory was asked (recall)
	verdict     memory.Verdict   // and what it said
	cat         string           // the task category, once asked for (category)
	files       []string         // the files the prompt names, once looked for (paths.go)
	unloaded    []string         // skills scored but not loaded for this prompt (paths.go)

	decision Decision
	done     bool // a stage decided: the rest do not run
}

// stage is one step of the pipeline.
type stage struct {
	name string
	run  func(*Router, *route)
}

// pipeline is the routing pipeline, in order. See the package doc.
var pipeline = []stage{
	{"normalise", normalise},
	{"turn", classifyTurn},
	{"tokenize", tokenizePrompt},
	{"score", score},
	{"followup", settleTurn},
	{"signals", gatherSignals},
	{"fuse", fuseSignals},
	{"rules", applyRules},
	{"prior", applyPrior},
	{"learned", applyLearned},
	{"breadth", breakTies},
	{"decide", decide},
	{"quiet", quiet},
}

// Stages names the pipeline's stages in order.
func Stages() []string {
	out := make([]string, len(pipeline))
	for i, s := range pipeline {
		out[i] = s.name
	}
	return out
}

// normalise caps and lower-cases the prompt, once for every later stage.
func normalise(_ *Router, st *route) {
	st.text = tokenize.NewText(st.prompt)
	st.decision = Decision{Query: st.text.Raw, Level: Low}
}

// classifyTurn reads the turn's cue words in the user's own words (a
// thanks after pasted output is as short as one alone), and the session's
// skills by their catalog names.
func classifyTurn(r *Router, st *route) {
	st.turn = sctx.Classify(st.own())
	if r.Explain && st.own().Lower != st.text.Lower {
		st.decision.Own = strings.Join(strings.Fields(st.own().Raw), " ")
	}
	if st.turn == sctx.Closing && sctx.Failure(pastedPart(st.text, st.own())) {
		st.turn = sctx.NewRequest // thanks, in advance, for help with the pasted failure
	}
	if len(st.session.Recent) == 0 || sctx.Aside(st.text) {
		return // read on its own: no skill in use, none recent
	}
	st.recent = r.Canonical(st.session.Recent)
}

// tokenizePrompt cuts the prompt into query terms. In a continuation the
// cue words refer back to the session ("go on": the session decides, not
// "go"), so BM25 reads the prompt without them; with no session they
// refer to nothing the router knows and name no skill either ("sounds
// good, proceed": real-dev's cold-email has "sound" as a keyword).
func tokenizePrompt(r *Router, st *route) {
	st.scored = st.text
	if st.turn == sctx.Continuation {
		st.scored = sctx.StripCues(st.text)
	}
	st.query = r.Index.Tokenizer().TokenizeText(st.scored)
}

// score runs BM25 with the learner's weights and, when there are any,
// without them too: the rules judge the prompt as the catalog has it,
// and the learned stage adds what the weights change after them.
func score(r *Router, st *route) {
	st.scoreQuery(r, st.query)
}

// scoreQuery scores the k best skills for the query (needs.go: the
// stages after it complete the lists with the skills they act on).
func (st *route) scoreQuery(r *Router, q tokenize.Query) {
	k, also := r.needed(st), r.also(st, false)
	st.scoredQuery = q
	st.results = bm25.TopK(r.Index, q, r.Weights, k, also)
	st.base = nil
	if r.Weights != nil {
		st.base = bm25.TopK(r.Index, q, nil, k, also)
	}
	st.keepLoadable(r)
}

// settleTurn decides a cue-word turn on the prompt's own evidence. A cue
// counts only when the words around it do not make a clear request of
// their own (one the router would route HIGH, or route at all on a
// keyword that names something specific of the skill, "ok now fix the
// failing pytest"): "好的，就这样" closes,
// "好的，把 Dockerfile 改成多阶段构建" does not, and a prompt of nothing but
// acknowledgements closes whatever its words meet ("lgtm" is a review
// skill's keyword); "也一样处理" continues,
// "also write the Dockerfile" is a new request, and is then scored with
// its cue words; "详情页也照样补上" asks for the same work again, whatever
// its object words say. A prompt too weak to route alone is carried by the
// session too.
func settleTurn(r *Router, st *route) {
	own := ownConfidence(r, st.results)
	clear := own >= HighFrom || own >= AbstainBelow && len(st.results) > 0 && specific(r, &st.results[0])
	st.weak = own < AbstainBelow
	if clear && st.turn == sctx.Closing && len(st.results) > 0 && pasted(st.query) && st.ownShare(&st.results[0]) < ownShareMin {
		// What it matches clearly is in pasted output, not in the user's
		// words: "ok that did it, thanks!" after npm's "added 1423
		// packages" asks nothing of a package manager's skill.
		clear = false
	}
	if st.turn == sctx.Closing && (!clear || sctx.Paused(st.own()) || sctx.Acknowledgement(st.own())) {
		st.decision.Closing = true
		st.done = true
		return
	}
	st.continues = st.turn == sctx.Continuation && len(st.recent) > 0 && (!clear || sctx.SameAction(st.text) || own < HighFrom && st.namesInUse(r))
	// A follow-up without a cue word stays with the session unless it
	// names something specific of another skill, and matches it well
	// (LeaveFrom), or is a clear request of its own: "帮我优化一下" after a
	// database turn is about the database.
	if st.turn == sctx.NewRequest && len(st.recent) > 0 && !(own >= HighFrom) && !(own >= LeaveFrom && namesAnother(r, st.results, st.recent[len(st.recent)-1])) {
		st.weak = true
	}
	if st.turn == sctx.Continuation && len(st.recent) > 0 && !st.continues && st.scored.Lower != st.text.Lower {
		// Scored twice, but only a short cue-word prompt (at most eight
		// words) that turned out to be a clear request of its own. With
		// no session the cue words stay out (tokenizePrompt).
		st.scoreQuery(r, r.Index.Tokenizer().TokenizeText(st.text))
	}
}

// LeaveFrom is the confidence at which a follow-up without a cue word
// that names something specific of another skill leaves the session for
// it. Below it, a keyword met in passing pulled turns away: "积分过期规则
// 那部分写得细一点" after a product spec went to a review skill at 0.46.
// On the held-out sessions (eval/testdata/sessions-fresh.jsonl, halves by
// session) per-turn top-1 went 0.879/0.875 -> 0.901/0.885 at 0.55 and at
// 0.60, 0.890/0.885 at 0.50; sessions-dev.jsonl does not move at any of
// them. 0.55 keeps a clear keyword at MEDIUM able to leave.
const LeaveFrom = 0.55

// namesInUse reports whether the prompt names something specific of the
// skill in use too: then a cue word ("再加几道考察系统设计能力的" while
// preparing interview questions: 考察 is the interview skill's) carries on
// with the work in hand even where the prompt also names another skill's
// keyword (系统设计), unless that skill matches at HIGH. The session's
// skills may be left out of the first, pruned scoring pass (needs.go), so
// the skill in use is scored on its own then.
func (st *route) namesInUse(r *Router) bool {
	id := r.Index.Resolve(st.recent[len(st.recent)-1])
	if id < 0 {
		return false
	}
	for i := range st.results {
		if st.results[i].Skill == id {
			return specific(r, &st.results[i])
		}
	}
	// Kept in the list: the fuse stage completes it with the session's
	// skills and would score this one a second time (complete).
	res := bm25.TopK(r.Index, st.scoredQuery, r.Weights, 0, []int{id})
	if len(res) == 0 {
		return false
	}
	st.results = append(st.results, res[0])
	bm25.Sort(st.results)
	return specific(r, &res[0])
}

// specific reports whether a result names something specific of its
// skill: a core or strong keyword met whole, by the prompt's own word or a
// close synonym ("pytest", "Dockerfile"), not a text word nor a part of a
// longer keyword, nor a word that much of the catalog writes (commonWord).
// A cue-word turn that does so makes a request of its own.
func specific(r *Router, res *bm25.Result) bool {
	for _, m := range res.Matches {
		if !m.Partial && !m.Overlap && m.QWeight >= tokenize.SynonymWeight && !r.commonWord(m.TermID) && strongKeyword(&m) {
			return true
		}
	}
	return false
}

// strongKeyword reports whether a match met a core or strong keyword of
// its skill.
func strongKeyword(m *bm25.Match) bool {
	for _, f := range m.Fields {
		if f.Field == index.FieldCore || f.Field == index.FieldStrong {
			return true
		}
	}
	return false
}

// namesAnother reports whether the prompt names something specific of a
// skill other than the one in use: the best-scoring such skill meets one
// of its core or strong keywords.
func namesAnother(r *Router, results []bm25.Result, inUse string) bool {
	for i := range results {
		if results[i].Name != inUse {
			return specific(r, &results[i])
		}
	}
	return false
}

// ownConfidence is the confidence the prompt's words alone give its best
// match: below AbstainBelow the prompt is too weak to route on its own,
// and the session decides.
func ownConfidence(r *Router, results []bm25.Result) float64 {
	if len(results) == 0 {
		return 0
	}
	rival := 0.0
	if len(results) > 1 {
		rival = results[1].Score
	}
	return r.Confidence(results[0].Score, rival)
}

// applyRules lets the disambiguation rules adjust and re-rank. A rule
// enters the skill it names at a share of the top score, which is
// nothing when the prompt's words met no skill at all ("config", on
// bookworm's rules, whose R129 names planning-with-files for it): then,
// when the rules name one skill, it enters at ruleAlone, just over the
// abstain line, the least confidence that routes. The rule's author is
// the only evidence, and nothing it could bury. Rules naming several
// skills leave the prompt unrouted. On the dev sets only bookworm's set
// moves (88.7 -> 89.6 %): its rules were written to route such prompts.
func applyRules(r *Router, st *route) {
	st.cands, st.fired = r.Rules.ApplyFiring(st.firing(r), st.cands)
	if len(st.cands) == 1 && st.cands[0].Score == 0 {
		c := &st.cands[0]
		c.Score = r.ruleAlone()
		c.Explain = explain.Wrap(c.Score, "the only skill the prompt names, through a rule: just over the abstain line", c.Explain)
	}
}

// ruleAlone is the score of a skill that a rule alone names: a twentieth
// over the abstain line.
func (r *Router) ruleAlone() float64 { return 1.05 * r.scale().abstainLine() }

// firing is the rules that fire on the prompt's own words (its pasted
// material blanked: tokenize.Text.Prose), matched once: scoring asks
// which skills they may lower and raise, the rules stage applies them, and
// matching them is most of what rules cost (three matchings per route took
// 40 % of BenchmarkRoute).
func (st *route) firing(r *Router) *disambig.Firing {
	if st.fires == nil {
		st.fires = r.Rules.Match(st.own())
	}
	return st.fires
}

// own returns the prompt's own words, its pasted material blanked
// (tokenize.Text.Prose), worked out once: the turn's cue words, the rules
// and the question stage read them.
func (st *route) own() tokenize.Text {
	if st.prose == nil {
		p := st.text.Prose()
		st.prose = &p
	}
	return *st.prose
}

// pastedPart returns the prompt's pasted material: its lower-cased text
// where its prose (own) is blanked, "" when nothing is.
func pastedPart(text, own tokenize.Text) string {
	if len(text.Lower) != len(own.Lower) || text.Lower == own.Lower {
		return ""
	}
	b := []byte(text.Lower)
	for i := range b {
		if b[i] == own.Lower[i] && b[i] != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// decide turns the ranking into a decision: each listed candidate's
// confidence against its nearest rival, the level of the first, and the
// skill when the level allows one.
func decide(r *Router, st *route) {
	d := &st.decision
	d.Prior = st.prior
	if r.Explain {
		d.Lines = r.scale().String()
	}
	for _, f := range st.fired {
		d.Rules = append(d.Rules, f.ID)
	}
	d.Unloaded = st.unloaded
	top, second := 0.0, 0.0
	if len(st.cands) > 0 {
		top = st.cands[0].Score
	}
	if len(st.cands) > 1 {
		second = st.cands[1].Score
	}
	for i, c := range st.cands {
		if i == MaxCandidates {
			break
		}
		rival := second
		if i > 0 {
			rival = top // a runner-up is measured against the winner
		}
		d.Candidates = append(d.Candidates, Candidate{Skill: c.Skill, Score: round(c.Score), Confidence: round(r.Confidence(c.Score, rival)),
			Explain: c.Explain, Evidence: evidence(c.Skill, st.results, st.signals, st.fired)})
		if c.Skill == st.remembered && st.verdict.Pins() {
			d.Candidates[i].Evidence = append(d.Candidates[i].Evidence, "your earlier correction")
		}
	}
	if len(d.Candidates) == 0 {
		return
	}
	d.Confidence = d.Candidates[0].Confidence
	if c := carried(r, st); c > d.Confidence {
		d.Confidence, d.Candidates[0].Confidence, d.Carried = c, c, true
	}
	d.Level = LevelOf(d.Confidence)
	if st.silence {
		d.Level = Low
	}
	if d.Level != Low {
		d.Skill = d.Candidates[0].Skill
	}
}

// commonWord reports whether more than a quarter of the catalog's skills,
// and more than two, write the word in their text. Such a word names
// nothing specific even where one skill's author made it a keyword: a
// plain skill's derived keywords come from its own text, and
// citation-management, which validates references, has "valid" as a
// strong one, which "regex to match a valid IPv4 address" then named.
// On the dev sets any cut from a fourteenth of the skills to nearly half
// moves real-dev's no-skill prompts correct 0.92 -> 0.96 and no top-1
// (the actions set's from 0.41 to 0.44 at a seventh and less); a quarter
// sits in the middle. The "more than two" keeps a small catalog's
// keywords: in one of three skills, every word is a third of the catalog's.
// TestQuietOnSelfContainedQuestions pins the rule.
func (r *Router) commonWord(id int) bool {
	if id < 0 || id >= len(r.Index.TextDF) {
		return false
	}
	df := int(r.Index.TextDF[id])
	return df > 2 && df*4 > r.Index.Skills.Len()
}
