package router

import (
	"slices"
	"strings"
	"unicode"

	"github.com/skillroute/skillroute/bm25"
	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/index"
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
// names a path or a URL in a sentence or sets out its situation in three
// clauses or more (situationClauses), either of which makes it a
// question about the user's own work. Small
// talk and thanks mostly meet nothing, and closings never route
// (settleTurn).
//
// A one-line question about pasted output ("$ git status" and its lines,
// then "how do i get back to main") is read in the user's own words, the
// output blanked (tokenize.Text.Prose), and a keyword counts as named
// only when the user's words carry at least half the skill's score
// (ownShareMin): "state", met in the pasted "status", named a
// state-management skill. A longer question (past a follow-up's length,
// context.Short) explains the user's own paste and keeps its skill: read
// like a one-liner, a profile pasted under a question of a dozen words
// lost its skill on a held-out set. On 120 noisy prompts for real-dev's
// catalog written in session 18 (eval/testdata/train-noisy3.jsonl), the
// 20 that need no skill went 0 -> 5 silent, with thanks after output
// (settleTurn); none of its 100 skill prompts moved, and of the other
// sets only noisy ones did, for the better (noisy.jsonl 111 -> 113 of
// 120, train-noisy.jsonl 91 -> 92).
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
// Session 25 read "who is Kafka named after", "…大概多少分钟" and "yes or
// no" questions so too: train-none 68 -> 74, no other set moved.
//
// A question that asks how two things differ or what a term means
// (category.Concept: "SQL 里 WHERE 和 HAVING 的区别是啥？", "what's the
// difference between let and const") is answered from general knowledge,
// even when it names a skill's topic ("SQL" is a strong keyword of a
// query-tuning skill) or holds a task category's word. It gets a skill
// only at HIGH, through a rule, or when the skill claims such questions:
// it meets the question's own word (区别, "difference") in a keyword or its
// description (claimsForm), as the built-in catalog's developer-expert
// does, whose labelled prompts (dev.jsonl, fresh2) expect it. Measured
// with skillroute eval: train-none 64 -> 67 of 100 silent, real-fresh5
// 13 -> 15 of 20; no skill prompt of any set moved. A question that is
// only "what does X do" or asks what X is for ("是干嘛的") reads so too
// since session 25: train-none 67 -> 68, no other set moved. So does a
// request for a shell command or script, whatever task words come with it
// (category.ClassifyText's one-liners: "写个 shell 命令，统计当前目录下所有
// .py 文件的总行数"): a catalog with a shell skill keeps it by its keyword
// ("bash", "shell"), one without sends it to none. With the glossary's
// false friends (合成 is no "compose"), real-fresh2 22 -> 24 of 24 silent,
// no skill prompt of any set moved.
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
//
// A match that rests on one word of a skill's text, or on two words that
// much of the catalog writes (commonWord), names nothing of the skill,
// whatever the prompt: on real-dev's catalog "good morning!" met a SQL
// skill's "good", "make it faster" a Polars skill's "faster", "undo that"
// a migration skill's "undo". Such a prompt gets no skill unless
// it reads HIGH, a disambiguation rule fired, or a session is in progress (whose
// follow-ups the session stage reads). A keyword of the skill (core or
// strong) is evidence of its own. Cross-validated by hash halves of the
// project's twelve sets: prompts right 890/872 -> 894/877 (a single word
// alone: 893/876; any number of common words: lost four skill prompts);
// no-skill prompts silent on real-dev 24 -> 25 of 25, real-fresh 24 -> 26
// of 29, train-none 61 -> 64 of 100; one skill prompt of train-real's
// 176, which met only "README", lost its skill.

// quiet abstains on a question, or a go-ahead with no work in hand, that
// no skill matches clearly, and on a match too thin to name a skill.
func quiet(r *Router, st *route) {
	d := &st.decision
	orphan := st.turn == sctx.Continuation && len(st.recent) == 0
	if d.Skill == "" || d.Skill == st.remembered {
		return // what the user taught for prompts like this one (remembered) is never silenced here
	}
	if d.Level != High && len(st.recent) == 0 && len(st.fired) == 0 {
		if res := st.result(d.Skill); res != nil && thin(r, res) {
			d.Skill, d.Level, d.Thin = "", Low, true
			return
		}
	}
	own, aboutPaste := st.text, false
	if pasted(st.query) {
		if !pastedLines(st.text, st.own()) || !sctx.Short(st.own()) {
			return // a path in a sentence, or a paste the user explains: their own work
		}
		own, aboutPaste = st.own(), true // a one-line question about pasted output
	}
	if clauses(own.Lower) >= situationClauses {
		return
	}
	if category.Chat(own) {
		d.Skill, d.Level, d.Chat = "", Low, true
		return
	}
	if d.Level == High || strongTie(r, d) {
		return
	}
	concept := !aboutPaste && category.Concept(own)
	if !concept && !orphan && !st.asks(own, aboutPaste) {
		return
	}
	if res := st.result(d.Skill); res != nil {
		if concept && claimsForm(res) {
			return // a skill that claims such questions
		}
		if !concept && specific(r, res) && (!aboutPaste || st.ownShare(res) >= ownShareMin) {
			return
		}
	}
	for _, f := range st.fired {
		if f.Boost == d.Skill {
			return // a rule written for this kind of prompt names the skill
		}
	}
	d.Skill, d.Level, d.Quiet = "", Low, true
}

// result returns the scored result of a skill, nil when it has none.
func (st *route) result(skill string) *bm25.Result {
	for i := range st.results {
		if st.results[i].Name == skill {
			return &st.results[i]
		}
	}
	return nil
}

// thin reports whether a result rests on one word of its skill's text, or
// on two words that much of the catalog writes, and on no core or strong
// keyword.
func thin(r *Router, res *bm25.Result) bool {
	var words [2]int // the distinct words met, the first two
	n, common := 0, true
	for i := range res.Matches {
		m := &res.Matches[i]
		if strongKeyword(m) {
			return false
		}
		if n > 0 && m.TermID == words[0] || n > 1 && m.TermID == words[1] {
			continue
		}
		if n == 2 {
			return false
		}
		words[n] = m.TermID
		n++
		common = common && r.commonWord(m.TermID)
	}
	return n <= 1 || common
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

// asks reports whether the user's words read as a question: the
// prompt's category (worked out once), or that of their own words about a
// paste.
func (st *route) asks(own tokenize.Text, aboutPaste bool) bool {
	if aboutPaste {
		return category.ClassifyText(own) == category.Question
	}
	return st.category() == category.Question
}

// ownShareMin is the share of a skill's score that the user's own words
// must carry for a match to count as theirs, next to pasted output: a
// keyword met only in a pasted "git status" ("state", from "status") says
// nothing of what the user asks. Half: at least as much as the paste.
const ownShareMin = 0.5

// ownShare is the share of a result's score that the prompt's own words
// carry: its matches of terms cut from pasted material left out.
func (st *route) ownShare(res *bm25.Result) float64 {
	if res.Score <= 0 {
		return 0
	}
	own := 0.0
	for _, m := range res.Matches {
		if !noiseTerm(st.scoredQuery, m.Query) {
			own += m.Score
		}
	}
	return own / res.Score
}

// noiseTerm reports whether the query's term text was cut from pasted
// material (q.Terms is sorted by text).
func noiseTerm(q tokenize.Query, text string) bool {
	i, ok := slices.BinarySearchFunc(q.Terms, text, func(t tokenize.Term, s string) int { return strings.Compare(t.Text, s) })
	return ok && q.Terms[i].Noise
}

// pastedLines reports whether the prompt holds whole lines of pasted
// material, lines its prose (own) blanks out entirely, as a pasted log or
// command output does and a path in a sentence does not.
func pastedLines(text, own tokenize.Text) bool {
	if len(text.Lower) != len(own.Lower) {
		return false
	}
	for from := 0; from < len(text.Lower); {
		to := strings.IndexByte(text.Lower[from:], '\n')
		if to < 0 {
			to = len(text.Lower)
		} else {
			to += from
		}
		if strings.TrimSpace(text.Lower[from:to]) != "" && strings.TrimSpace(own.Lower[from:to]) == "" {
			return true
		}
		from = to + 1
	}
	return false
}

// claimsForm reports a result that meets the question's own word (区别,
// "difference", 什么意思: category.ConceptWord) outside its skill's body,
// in a keyword or its description: a skill that claims such questions, as
// the built-in catalog's developer-expert does.
func claimsForm(res *bm25.Result) bool {
	for i := range res.Matches {
		m := &res.Matches[i]
		if !category.ConceptWord(m.Query) {
			continue
		}
		for _, f := range m.Fields {
			if f.Field != index.FieldBody {
				return true
			}
		}
	}
	return false
}
