package router

import (
	"unicode"

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
// matches it clearly: at HIGH (or as strongly, held under it by a tied
// runner-up: strongTie), on a keyword that names something
// specific of the skill ("how do I write a Helm chart" names helm), when
// a disambiguation rule written for such prompts boosts it, or when it
// holds pasted material (a path, a log, code) or sets out its situation
// in three clauses or more (situationClauses), either of which makes it a
// question about the user's own work. Small
// talk and thanks mostly meet nothing, and closings never route
// (settleTurn).
//
// A question that asks for an opinion, or for a fact about a named thing
// (who made it, when it came out, what its name stands for), gets no
// skill however clearly it names one (category.Chat): "你觉得 Tailwind 好
// 用吗" names frontend-expert's keyword and "is Next.js made by Vercel?"
// read HIGH, but a playbook adds nothing to the answer.
// An opinion on the user's own work ("do you think our schema ...") is
// a review, not chat. Of 100 no-skill prompts written in session 17 for
// the built-in catalog, 39 were silent and 60 are; fresh2's no-skill
// prompts 76.5 -> 88.2 % silent; no skill prompt of any set moved.
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
	if d.Skill == "" || d.Skill == st.remembered || pasted(st.query) || clauses(st.text.Lower) >= situationClauses {
		return // what the user taught for prompts like this one (remembered) is never silenced here
	}
	if category.Chat(st.text) {
		d.Skill, d.Level, d.Chat = "", Low, true
		return
	}
	if d.Level == High || strongTie(r, d) || !orphan && st.category() != category.Question {
		return
	}
	for i := range st.results {
		if st.results[i].Name == d.Skill {
			if specific(r, &st.results[i]) {
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

// strongTie reports a decision held under HIGH only because its runner-up
// ties it (TieMargin): two skills match the question clearly, which is
// no reason for silence; the injected line names both.
func strongTie(r *Router, d *Decision) bool {
	if len(d.Candidates) < 2 || d.Carried {
		return false
	}
	top, second := d.Candidates[0].Score, d.Candidates[1].Score
	return Tie(top, second) && r.scale().untied(top, second) >= HighFrom
}

// situationClauses is how many clauses make a question one about work in
// hand. A self-contained question is a sentence or two ("git rebase 和 git
// merge 有什么区别？团队协作平时用哪个好"); a prompt that first sets out its
// situation and then asks ("worker.py 里要同时请求三个下游服务，现在是一个个
// 等，总耗时是三个加起来，怎么让它们同时发出去？") asks about the user's own
// work, which a skill's playbook serves.
//
// Three, cross-validated on the dev sets: at two, real-dev's no-skill
// prompts correct fall 0.92 -> 0.60 ("macOS 上 3000 端口被占用了，怎么查是
// 哪个进程 and kill it" is two); at three and four, real-dev top-1 goes
// 0.800 -> 0.816 (both hash halves gain or hold: 0.788/0.814 ->
// 0.788/0.847), the actions set's 0.795 -> 0.821, and no no-skill figure
// moves. Three keeps the most skill prompts.
const situationClauses = 3

// clauses counts the prompt's clauses: runs of text between sentence or
// clause punctuation (",", ";", "?", "!", a full stop before a space, and
// their Chinese forms) that hold at least two letters. The enumeration
// comma 、 joins items of one clause; a dot inside a word ("tar.gz",
// "0.1") ends nothing.
func clauses(lower string) int {
	n, letters := 0, 0
	for i, r := range lower {
		end := false
		switch r {
		case ',', ';', '?', '!', '\n', '，', '；', '？', '！', '。':
			end = true
		case '.':
			end = i+1 == len(lower) || lower[i+1] == ' ' || lower[i+1] == '\n'
		}
		if end {
			if letters >= 2 {
				n++
			}
			letters = 0
		} else if unicode.IsLetter(r) {
			letters++
		}
	}
	if letters >= 2 {
		n++
	}
	return n
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
