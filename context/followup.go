package context

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillroute/skillroute/tokenize"
)

// A prompt inside a session is often not a request of its own: "继续",
// "字体也一样处理", "go on" carry on with the work in hand, while "谢谢，
// 搞定了" or "thanks, that's all" close it. Neither names a field, so BM25
// finds nothing and the context alone must decide, or nothing should be
// said at all. Turn tells these apart by their cue words, only in short
// prompts: a long prompt is a request in its own right whatever words it
// contains.

// Turn is a prompt's relation to the session.
type Turn int

// Kinds of turn.
const (
	NewRequest   Turn = iota // anything else: route on its own merits
	Continuation             // carry on with the skill in use
	Closing                  // thanks, done: no skill needed
)

// String names the turn kind.
func (t Turn) String() string {
	return [...]string{"new request", "continuation", "closing"}[t]
}

// Cue lengths. A follow-up is short: past 24 characters of Chinese or 8
// English words a prompt states its own request, and a "也" or "also" in it
// is not a reference back.
const (
	maxFollowUpRunes = 24
	maxFollowUpWords = 8
)

// Cue words. Chinese cues match anywhere; English ones as whole words or
// phrases, so that "same" does not fire inside "samesite". Plain lists, not
// one regular expression: Classify runs on every prompt, and the
// expression cost more than the rest of routing a short prompt.
var (
	continuationZh = []string{"继续", "接着", "接下来", "然后呢", "一样", "也这样", "照着", "照样", "按这个",
		"同样", "类似地", "下一个", "第二个", "其他的", "别的", "剩下的", "再来", "再加", "还有", "也", "还是不", "还不行"}
	continuationEn = []string{"continue", "go on", "keep going", "carry on", "same", "also", "too", "the rest",
		"next one", "another", "again", "likewise", "as well", "do the", "now do", "still",
		"go ahead", "proceed", "do it", "do that", "yes please"}
	closingZh = []string{"谢谢", "谢了", "谢啦", "多谢", "感谢", "辛苦", "搞定", "好的", "好了", "就这样", "先这样", "到这", "先到这",
		"可以了", "没问题", "不用了", "嗯", "对", "好，", "好,", "好。", "好！", "好 ", "行，", "行了", "ok，",
		"算了", "解决了", "没事了", "哈哈"}
	closingEn = []string{"ok", "okay", "thanks", "thank you", "thx", "ty", "cheers", "appreciate it", "great", "perfect", "nice",
		"cool", "done", "that's all", "thats all", "that's everything", "that is everything", "all good", "lol", "bye", "see you",
		"sounds good", "go ahead", "haha", "lgtm", "looks good to me", "looks great to me", "looks good", "looks great",
		"never mind", "nevermind", "nvm", "forget it", "figured it out", "got it", "solved it", "it works now", "works now"}
)

// withdrawnZh and withdrawnEn take back a prompt sent by mistake ("sorry,
// wrong window, ignore that last message"): nothing is asked. Unlike the
// closing words they count anywhere in the prompt, not only at its start.
var (
	withdrawnZh = []string{"发错了", "发错窗口", "发错地方", "当我没说", "忽略上一条", "请忽略刚才"}
	withdrawnEn = []string{"wrong window", "wrong chat", "wrong tab", "ignore that last", "ignore my last", "ignore the last",
		"disregard that", "disregard my last", "disregard the last"}
)

// doneZh and doneEn say that nothing more is wanted. Next to thanks or a
// closing word they close the exchange even when they hold a
// continuation cue: "谢谢，别的不用了" has 别的, "thanks, nothing else"
// has no "more", and neither asks for anything.
var (
	doneZh = []string{"不用了", "别的不用", "其他不用", "其它不用", "没有别的", "没别的", "没有了", "不需要了", "就这些", "没事了"}
	doneEn = []string{"nothing else", "nothing more", "no more", "that's all", "thats all", "that is all", "that's it",
		"that's everything", "that is everything", "all done", "all set", "we're done", "i'm done"}
	thanksZh = []string{"谢谢", "谢了", "谢啦", "多谢", "感谢", "辛苦"}
	thanksEn = []string{"thanks", "thank you", "thx", "ty", "cheers", "appreciate it"}
)

// successZh and successEn report that the work went well ("all green
// now", "跑通了"): with thanks, and no question or continuation, the
// turn closes wherever the thanks stands. Without thanks, a report may
// go on to ask something ("it works now. can we cache it?").
var (
	successZh = []string{"跑通", "绿了", "成功了", "通过了", "正常了", "好使了", "能用了", "修好了", "搞定了", "解决了", "可以了", "没问题了"}
	successEn = []string{"works", "worked", "working", "green", "passes", "passed", "passing", "fixed", "solved", "resolved",
		"did it", "did the trick", "sorted", "all good"}
)

// pauseZh and pauseEn announce a break ("我先去吃个饭，回来继续", "sorry,
// got pulled into a meeting", "brb"): nothing is asked now, so the turn is
// a closing even when it says the work will go on ("回来继续" holds 继续);
// the session stays, for the prompt that resumes it. Besides them, awayZh
// and awayEn, the breaks that say the user is gone now.
var (
	pauseZh = []string{"稍等", "等我一下", "等我一会", "先去吃", "吃个饭", "开个会",
		"回来继续", "回头继续", "待会继续", "待会再", "晚点继续", "晚点再", "明天继续", "明天再", "休息一下", "歇会"}
	pauseEn = []string{"back in a bit", "back in a few", "back soon", "back later",
		"give me a minute", "give me a sec", "one sec", "pulled into a meeting", "got a meeting",
		"taking a break", "lunch break", "pick this up later", "pick it up later", "continue later", "continue tomorrow"}
)

// awayZh and awayEn are the breaks that say the user is gone now, and
// farewellZh and farewellEn the goodbyes: a turn with either is one the
// user left, which a deferral alone ("明天再部署，先把测试写完") is not.
var (
	awayZh     = []string{"我先去", "吃饭去", "去开会"}
	awayEn     = []string{"brb", "be right back", "afk", "gotta go", "gotta run", "stepping away", "stepping out"}
	farewellZh = []string{"先这样", "先到这", "拜拜", "再见", "晚安", "下班了", "先撤"}
	farewellEn = []string{"bye", "see you", "good night"}
)

// paused reports a break, away or later.
func paused(p string) bool {
	return containsAny(p, pauseZh) || containsAny(p, awayZh) || containsWord(p, pauseEn) || containsWord(p, awayEn)
}

// Paused reports whether a turn that Classify reads as a closing says the
// user is leaving: nothing is asked now, whatever the prompt names
// ("今天先这样，明天再接着搞那个 bug，bye" names tomorrow's debugging), so
// the router does not route it even when a skill matches it clearly.
func Paused(text tokenize.Text) bool {
	p := text.Lower
	return containsAny(p, farewellZh) || containsAny(p, awayZh) || containsWord(p, farewellEn) || containsWord(p, awayEn)
}

// Acknowledgement reports whether a prompt is nothing but acknowledgements
// and thanks ("lgtm", "好的，谢谢", "great, thanks 🙏"): it asks nothing,
// even when one of its words is a skill's keyword (a reviewer's "lgtm").
func Acknowledgement(text tokenize.Text) bool {
	p := strings.TrimSpace(text.Lower)
	if p == "" {
		return false
	}
	return !strings.ContainsFunc(stripOpening(p), func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// failureZh and failureEn are what a program prints when something went
// wrong: a thanks under such output asks for help with it. "error" and
// "exception" need no entry: any word that ends in them counts (Failure).
var (
	failureZh = []string{"错误", "失败", "异常", "报错"}
	failureEn = []string{"errors", "failed", "failure", "fatal", "panic", "traceback", "crash",
		"crashloopbackoff", "denied", "refused", "timed out", "timeout", "not found", "cannot", "unable", "killed", "oomkilled", "segmentation fault"}
)

// Failure reports whether pasted output (lower-cased) reports a failure:
// "<a CrashLoopBackOff>\n\n谢谢" thanks in advance for help with it,
// where "<npm's added 1423 packages>\n\nok that did it, thanks!" closes.
func Failure(pasted string) bool {
	if containsAny(pasted, failureZh) || containsWord(pasted, failureEn) {
		return true
	}
	for _, w := range strings.FieldsFunc(pasted, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if strings.HasSuffix(w, "error") || strings.HasSuffix(w, "exception") { // an exception's name
			return true
		}
	}
	return false
}

// sameActionZh and sameActionEn are the cues that ask for the same work
// again on another object ("详情页也照样补上", "do the same for the
// settings page"): the object named after them is no new request.
var (
	sameActionZh = []string{"一样", "照样", "照着", "按这个", "同样", "也这样", "类似地"}
	sameActionEn = []string{"same", "likewise"}
)

// SameAction reports whether a prompt asks for the same work again, on
// whatever it names: a continuation even when its object words would make
// a request of their own.
func SameAction(p tokenize.Text) bool {
	return Classify(p) == Continuation && (containsAny(p.Lower, sameActionZh) || containsWord(p.Lower, sameActionEn))
}

// Classify tells a continuation or a closing (a break included) from a new
// request.
func Classify(text tokenize.Text) Turn {
	p := strings.TrimSpace(text.Lower)
	rest := stripOpening(p) // what the acknowledgements it opens with are followed by
	if p == "" || long(rest) {
		return NewRequest
	}
	if paused(p) {
		return Closing
	}
	continues := containsAny(p, continuationZh) || containsWord(p, continuationEn)
	closes := p == "好" || p == "行" || openingCue(p) > 0 || containsAny(p, withdrawnZh) || containsWord(p, withdrawnEn)
	if !continues && closes && !nextStep(rest) && !instruction(rest) {
		return Closing
	}
	done := reportsDone(p)
	thanked := containsAny(p, thanksZh) || containsWord(p, thanksEn)
	if done && (closes || thanked) {
		return Closing
	}
	if thanked && !continues && !strings.ContainsAny(p, "?？") && reportsSuccess(p) {
		return Closing // "all green now, thanks a lot!": a report of success, and thanks
	}
	if continues {
		return Continuation
	}
	return NewRequest
}

// nextStepEn open what follows an acknowledgement when it gives the next
// instruction ("ok, now add tests for the parser", "looks good, next
// wire it to the api"): a request, not a closing. An instruction has no
// subject: after a subject pronoun ("thanks, now it works", "great, now
// I get it") the words report, and the turn still closes.
var (
	nextStepEn = []string{"now", "next", "then"}
	subjectEn  = []string{"i", "i'm", "i'll", "i've", "it", "it's", "its", "that", "that's", "this", "we", "we're",
		"we'll", "you", "you're", "everything", "all", "things", "they", "there", "he", "she"}
)

// nextStep reports whether the text after a prompt's acknowledgements
// opens with a next-step word and an instruction of at least two words.
func nextStep(rest string) bool {
	n := prefixWordCue(rest, nextStepEn)
	if n == 0 {
		return false
	}
	words := strings.Fields(strings.TrimLeft(rest[n:], " ,:"))
	return len(words) >= 2 && !slices.Contains(subjectEn, strings.Trim(words[0], ",.!?"))
}

// instructionEn and instructionZh open an instruction: after an
// acknowledgement ("ok, add a test for the parser", "好，改成 async 的",
// "great, rename it to fetchUser") the turn asks for work, where the
// acknowledgement alone would close it. Chinese has no spaces, so its
// openers are words that cannot start a report: "改好了" (it is fixed) is
// no "改成" (change it to), and "麻烦了" (sorry for the trouble) or "试试"
// (I will try it) after thanks closes.
var (
	instructionEn = []string{"add", "write", "fix", "make", "create", "update", "change", "remove", "delete", "drop",
		"rename", "refactor", "run", "implement", "generate", "explain", "show", "help", "move", "set", "use", "try",
		"deploy", "migrate", "convert", "split", "wire", "put", "replace", "extract", "clean", "optimize", "optimise",
		"document", "revert", "install", "upgrade", "bump", "include", "handle", "cover", "send", "tell", "give",
		"list", "find", "look", "debug", "translate", "summarize", "summarise", "draft", "rewrite", "simplify",
		"configure", "let's", "lets", "can you", "could you", "would you", "please", "pls", "plz"}
	instructionZh = []string{"帮我", "帮忙", "请", "麻烦帮", "麻烦你帮", "给我", "把", "再帮", "改成", "改为", "换成", "加个", "加一个", "加上",
		"写个", "写一个", "删掉", "去掉", "补上", "补个", "看看", "看一下", "查一下", "跑一下", "修一下"}
)

// instruction reports whether the text after a prompt's acknowledgements
// opens with an instruction of at least two words and reports nothing
// done: "ok, build is green now" reports, "ok, build it" asks.
func instruction(rest string) bool {
	if reportsSuccess(rest) || reportsDone(rest) {
		return false
	}
	if prefixCue(rest, instructionZh) > 0 {
		return true
	}
	return prefixWordCue(rest, instructionEn) > 0 && len(strings.Fields(rest)) >= 2
}

// reportsSuccess reports whether a prompt says the work went well
// (successZh, successEn).
func reportsSuccess(p string) bool { return containsAny(p, successZh) || containsWord(p, successEn) }

// reportsDone reports whether a prompt says nothing more is wanted
// (doneZh, doneEn).
func reportsDone(p string) bool { return containsAny(p, doneZh) || containsWord(p, doneEn) }

// Short reports whether a prompt is as short as a follow-up: no more
// than a line that asks one thing ("how do i get back to main", "这啥意思？").
// Past that length a prompt states its own request.
func Short(text tokenize.Text) bool { return !long(strings.TrimSpace(text.Lower)) }

// long reports whether a prompt is past a follow-up's length. Its caller
// measures what follows the acknowledgements it opens with: "nice, looks
// good to me. go ahead and keep going with the rest" is a go-ahead of
// eight words, not a request of twelve.
func long(p string) bool {
	return utf8.RuneCountInString(p) > maxFollowUpRunes*3 || len(strings.Fields(p)) > maxFollowUpWords ||
		tokenize.HanCount(p) > maxFollowUpRunes
}

func containsAny(p string, cues []string) bool {
	for _, c := range cues {
		if strings.Contains(p, c) {
			return true
		}
	}
	return false
}

// prefixCue returns the length of the first of cues p starts with, 0 for
// none.
func prefixCue(p string, cues []string) int {
	for _, c := range cues {
		if strings.HasPrefix(p, c) {
			return len(c)
		}
	}
	return 0
}

// containsWord reports whether one of the cues occurs in p as a whole word
// or phrase.
func containsWord(p string, cues []string) bool {
	for _, c := range cues {
		if tokenize.WordIndex(p, c) >= 0 {
			return true
		}
	}
	return false
}

// prefixWordCue is prefixCue for cues that must end at a word's end.
func prefixWordCue(p string, cues []string) int {
	for _, c := range cues {
		if tokenize.HasWordPrefix(p, c) {
			return len(c)
		}
	}
	return 0
}

// asideZh and asideEn say that a prompt steps outside the work in hand
// ("顺便问下，下周一要上班吗", "unrelated: how many ounces are in a
// pound?", "separately, I need a rollout plan"): whatever it asks, the
// session's skill is not what it is about.
var (
	asideZh = []string{"顺便问", "顺便说", "顺带问", "另外问", "题外话", "插一句", "跟这个无关", "和这个无关", "与此无关"}
	asideEn = []string{"unrelated", "off topic", "off-topic", "by the way", "btw", "side question", "random question",
		"different topic", "change of topic", "separately", "on another note"}
)

// Aside reports whether a prompt opens by saying it steps outside the
// work in hand (after any acknowledgement: "ok, btw ..."): the router
// reads it on its own, as if no session came before. Only an opening
// counts: "store the keys separately" is no aside.
func Aside(p tokenize.Text) bool {
	open := stripOpening(strings.TrimSpace(p.Lower))
	if prefixWordCue(open, asideEn) > 0 {
		return true
	}
	for i := range open {
		if i > asideStart {
			break
		}
		if prefixCue(open[i:], asideZh) > 0 {
			return true
		}
	}
	return false
}

// asideStart is how far into a prompt, in bytes, a Chinese aside cue may
// start: four characters ("我插一句", "还有个题外话"), Chinese having no
// words to open with.
const asideStart = 4 * 3

// StripCues removes the continuation cue words from a prompt, and the
// acknowledgements it opens with, leaving what it says about the work
// itself ("字体也一样处理" -> "字体处理", "go on" -> "", "sounds good,
// proceed" -> ""): the cues refer back to the session, and matched as
// keywords they would only add noise ("go" is a language's name, "sound"
// a keyword of a cold-email skill).
func StripCues(text tokenize.Text) tokenize.Text {
	p := stripOpening(strings.TrimSpace(text.Lower))
	for _, c := range continuationZh {
		p = strings.ReplaceAll(p, c, " ")
	}
	for _, c := range continuationEn {
		for i := tokenize.WordIndex(p, c); i >= 0; i = tokenize.WordIndex(p, c) {
			p = p[:i] + " " + p[i+len(c):]
		}
	}
	p = strings.Join(strings.Fields(p), " ")
	return tokenize.Text{Raw: p, Lower: p}
}

// stripOpening removes the closing cues a prompt opens with ("ok, ",
// "好的，", "sounds good "), each with the punctuation after it.
func stripOpening(p string) string {
	for n := openingCue(p); n > 0; n = openingCue(p) {
		p = strings.TrimLeft(p[n:], " ,.!，。！、~")
	}
	return p
}

// openingCue returns the length of the closing cue p opens with, 0 for
// none: a Chinese one anywhere it starts, an English one as a whole word.
func openingCue(p string) int {
	if n := prefixCue(p, closingZh); n > 0 {
		return n
	}
	return prefixWordCue(p, closingEn)
}

// ContinuationScores is the context of a continuation: the skill in use,
// at full strength, and nothing else. What it enhances is where the
// session might go next, not where "继续" goes.
func ContinuationScores(recent []string) map[string]float64 {
	if len(recent) == 0 {
		return nil
	}
	return map[string]float64{recent[len(recent)-1]: 1}
}
