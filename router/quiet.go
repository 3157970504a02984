package router

import (
	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/learn/category"
	"github.com/skillroute/skillroute/tokenize"
)

// Questions that need no skill. A self-contained developer question
// ("what does idempotent mean", "how do I rename a branch", "is Haskell
// worth learning") is answered in a sentence; a skill's playbook only
// adds tokens. Such a question still meets some skill's words, and on a
// catalog of plain skills often passes the abstain line. So a prompt that
// the category classifier reads as a question (interrogative cues and no
// task cue: category.Classify's "question") gets a skill only when one
// matches it clearly: at HIGH, or on a keyword that names something
// specific of the skill ("how do I write a Helm chart" names helm), when
// a disambiguation rule written for such prompts boosts it, or when it
// holds pasted material (a path, a log, code), which makes it a question
// about the user's own work. Small
// talk and thanks mostly meet nothing, and closings never route
// (settleTurn).
//
// A go-ahead with no work in hand is read the same way: a continuation
// turn ("yes please, go ahead and do that") when the session has no skill
// to go on with. On a catalog of plain skills its few words met some
// skill's body (real-dev's catalog sent that prompt to
// docker-development); the actions set's no-skill prompts went 37.0 ->
// 40.7 % silent, and no other dev figure moved.
//
// Cross-validated with the abstain line (router/calibrate.go; 2-fold and
// 5-fold by query hash): every fold chose the stage. Reading "other"
// prompts (no cue at all) the same way silenced more small talk but cost
// bookworm's golden set prompts that name a tool without a task word
// ("Nginx 负载均衡反向代理"), and was left out.

// quiet abstains on a question, or a go-ahead with no work in hand, that
// no skill matches clearly.
func quiet(r *Router, st *route) {
	d := &st.decision
	orphan := st.turn == sctx.Continuation && len(st.recent) == 0
	if d.Skill == "" || d.Level == High || !orphan && st.category() != category.Question || pasted(st.query) {
		return
	}
	for i := range st.results {
		if st.results[i].Name == d.Skill {
			if specific(&st.results[i]) {
				return
			}
			break
		}
	}
	for _, f := range st.fired {
		if f.Boost == d.Skill {
			return // a rule written for this kind of prompt names the skill
		}
	}
	d.Skill, d.Level, d.Quiet = "", Low, true
}

// pasted reports whether the prompt holds pasted material (a path, a log
// line, code: tokenize.Term.Noise). A question about one's own files or
// output is no self-contained question: "who uses this??
// src/lib/auth/getSession.ts".
func pasted(q tokenize.Query) bool {
	for _, t := range q.Terms {
		if t.Noise {
			return true
		}
	}
	return false
}

// category is the prompt's task category (category.ClassifyText), worked out
// once: the calibration prior and the question stage both read it.
func (st *route) category() string {
	if st.cat == "" {
		st.cat = category.ClassifyText(st.text)
	}
	return st.cat
}
