// Package category sorts prompts into task categories (debug, implement,
// test, review, docs, deploy, data, design, question, other) by cue words
// in English and Chinese. The calibration tables (package calibrate) keep
// one decision per category, and the router looks its prompt's category
// up in them: the classifier must be deterministic and cheap, and the
// same in both places, which is why it is a package of its own.
package category

import (
	"strings"
	"sync"

	"github.com/skillroute/skillroute/tokenize"
)

// Task categories of Classify.
const (
	Debug     = "debug"
	Implement = "implement"
	Test      = "test"
	Review    = "review"
	Docs      = "docs"
	Deploy    = "deploy"
	Data      = "data"
	Design    = "design"
	Question  = "question"
	Other     = "other"
)

// Categories returns every category Classify can give, in its order of
// precedence.
func Categories() []string {
	out := make([]string, 0, len(cues)+2)
	for _, c := range cues {
		out = append(out, c.category)
	}
	return append(out, Question, Other)
}

// cueSet is the words that point to one category. English cues are
// matched on whole words of the lower-cased prompt ("fix" is not in
// "fixture"); a cue ending in "*" matches any word it starts ("debug*":
// debugging, debugger); a cue of several words matches them adjacent.
// Chinese cues are matched as substrings, since Chinese has no spaces.
type cueSet struct {
	category string
	en, zh   []string
}

// cues in order of precedence: when two categories match the same number
// of cues, the earlier wins. Specific tasks come before implement, whose
// cues ("add", "写一个") accompany most requests; question comes last of
// all, below, as it is asked about every kind of task.
var cues = []cueSet{
	{Debug,
		[]string{"bug", "bugs", "debug*", "error*", "exception*", "crash*", "fix", "fixes", "fixed", "fixing",
			"broken", "fail*", "traceback", "stack trace", "panic*", "segfault", "not working", "doesn't work",
			"troubleshoot*", "root cause", "leak*", "hang*", "regression"},
		[]string{"报错", "错误", "异常", "崩溃", "修复", "修一下", "调试", "排查", "失败", "不工作", "不生效",
			"闪退", "卡死", "泄漏", "挂了", "出错", "定位问题"}},
	{Test,
		[]string{"test*", "unittest", "pytest", "jest", "vitest", "coverage", "e2e", "tdd", "mock", "mocks", "mocking", "assert*",
			"fixture*"},
		[]string{"测试", "单测", "用例", "覆盖率", "断言"}},
	{Review,
		[]string{"review*", "audit*", "pull request", "pr", "code smell*", "lint*", "critique"},
		[]string{"审查", "评审", "审核", "检查代码", "代码质量", "走查"}},
	{Deploy,
		[]string{"deploy*", "release*", "ci", "docker*", "kubernetes", "k8s", "helm", "rollout", "rollback",
			"ship", "publish*", "production", "staging"},
		[]string{"部署", "上线", "发布", "发版", "回滚", "灰度", "镜像", "流水线", "生产环境"}},
	{Docs,
		[]string{"doc", "docs", "document*", "readme*", "changelog*", "docstring*", "comment*", "tutorial*",
			"guide", "wiki", "javadoc", "jsdoc"},
		[]string{"文档", "注释", "说明书", "教程", "手册", "使用说明"}},
	{Data,
		[]string{"data", "dataset*", "sql", "database*", "etl", "analy*", "csv", "excel", "pandas",
			"schema*", "report*", "metric*", "dashboard*", "queries"},
		[]string{"数据", "报表", "统计", "分析", "查询", "表结构", "埋点", "指标", "看板"}},
	{Design,
		[]string{"design*", "architect*", "ui", "ux", "mockup*", "wireframe*", "prototype*", "figma",
			"layout*", "diagram*", "trade-off*", "tradeoff*"},
		[]string{"设计", "架构", "原型", "交互", "界面", "视觉", "选型", "线框"}},
	{Implement,
		[]string{"implement*", "add", "create*", "build*", "write", "develop*", "feature*", "refactor*",
			"generate", "integrat*", "migrate*"},
		[]string{"实现", "开发", "写一个", "写个", "新增", "添加", "加一个", "功能", "重构", "编写", "做一个",
			"接入", "集成", "迁移"}},
}

// questionCues mark a question about something rather than a task:
// chosen only when no task category matched. "when" asks only before an
// auxiliary ("when should", "when does"): opening a condition ("when the
// address matches, link the accounts") it asks nothing, and real-dev's
// two such requests were silenced as questions. "should" asks only
// before its subject ("should we"): "the page should redirect after
// sign-in" states a requirement. A request for a one-liner or
// a regular expression asks for an answer, not a piece of work, and reads
// as a question too ("regex to match an IPv4 address"); with a task cue
// ("write a regex check into the signup form") it stays that task.
// Asking for an opinion asks a question too ("do you think", "你觉得").
// A cue with a clitic "'s" is the cue (cueWords): without it, "what's
// the weather like today" read as no category, and the quiet stage let it
// route on a catalog of 10,000 generated skills (none silent 82.8 ->
// 100 % there; no dev set moves).
var questionCues = cueSet{Question,
	[]string{"what", "why", "how", "which", "when should", "when do", "when does", "when is", "when are", "when can", "when will", "when would", "explain*", "difference", "should i", "should we", "should you", "is there", "can i", "one-liner", "oneliner", "regex", "regexp",
		"do you think", "what do you prefer", "would you prefer"},
	[]string{"什么", "啥", "为什么", "怎么", "如何", "吗", "哪个", "哪些", "区别", "解释", "是否", "？", "一行命令", "正则", "你觉得", "你认为"}}

// Classify returns the task category of a prompt, deterministically, from
// cue words in English and Chinese: the category with the most distinct
// cues present, ties to the earlier in Categories(); "question" when only
// interrogative cues are present; "other" when none. English cues match
// whole words ("debug*" any word starting so), Chinese ones anywhere.
// Some of the cues, by category:
//
//	debug      bug, debug*, error*, exception*, crash*, fix, fail*, stack trace, doesn't work; 报错 异常 崩溃 修复 排查 闪退
//	test       test*, pytest, jest, coverage, e2e, tdd, mock, assert*; 测试 单测 用例 覆盖率 断言
//	review     review*, audit*, pull request, pr, lint*; 审查 评审 审核 代码质量
//	deploy     deploy*, release*, ci, docker*, kubernetes, k8s, helm, rollback, production; 部署 上线 发布 回滚 灰度
//	docs       doc, docs, document*, readme*, changelog*, comment*, tutorial*; 文档 注释 教程 手册
//	data       data, dataset*, sql, database*, etl, analy*, csv, pandas, report*, metric*; 数据 报表 统计 分析 查询 指标
//	design     design*, architect*, ui, ux, mockup*, wireframe*, prototype*, diagram*; 设计 架构 原型 交互 界面 选型
//	implement  implement*, add, create*, build*, write, develop*, feature*, refactor*; 实现 开发 写一个 新增 功能 重构
//	question   what, why, how, which, explain*, difference, one-liner, regex, "?"; 什么 为什么 怎么 如何 吗 区别 正则 ？;
//	           and a shell command or script asked for, with any task cue but debug's (oneLinerCues)
func Classify(prompt string) string {
	return ClassifyText(tokenize.NewText(prompt))
}

// falseFriends are Chinese words that hold a cue and mean something else:
// 解释器 is an interpreter, not 解释 (explain), so "把解释器也装好" asks for
// no explanation; 发布订阅 is publish/subscribe messaging, no 发布
// (release). Chinese cues match as substrings, so these words are taken
// out of the text before cues are counted.
var falseFriends = strings.NewReplacer("解释器", " ", "解释型", " ", "发布订阅", " ")

// ClassifyText is Classify of a prompt the router has normalised.
func ClassifyText(p tokenize.Text) string {
	text := falseFriends.Replace(p.Lower)
	words := cueWords(text)
	best, bestN := Other, 0
	for _, c := range cues {
		if n := c.count(text, words); n > bestN {
			best, bestN = c.category, n
		}
	}
	if bestN == 0 && (questionCues.count(text, words) > 0 || strings.Contains(text, "?")) {
		return Question
	}
	if best != Debug && oneLinerCues.count(text, words) > 0 {
		return Question
	}
	return best
}

// oneLinerCues ask for a shell command or script, which is answered in a
// line or two whatever task words come with it: "帮我写个 shell script，把
// .jpeg 重命名成 .jpg" asks a question, though "写个" is an implement cue,
// and "写个 shell 命令，统计 .py 文件的总行数" one, though "统计" is a data
// cue. A script that fails is still debugging.
var oneLinerCues = cueSet{"one-liner",
	[]string{"one-liner", "oneliner", "shell script", "bash script", "shell command", "bash command"},
	[]string{"一行命令", "一条命令", "shell 脚本", "shell脚本", "bash 脚本", "bash脚本", "shell 命令", "shell命令", "bash 命令", "bash命令"}}

// cueWords returns the ASCII words of lower-cased text that English cues
// are matched on (tokenize.ASCIIWords). "what's" is "what": a cue word with
// a clitic "'s" is the cue.
func cueWords(text string) string {
	return strings.ReplaceAll(tokenize.ASCIIWords(text), "'s ", " ")
}

// hasWord reports whether words holds " "+cue+" ", or with prefix " "+cue,
// without building that string: counting the cues so built 68 strings
// of a hook process's 3,000 allocations (its allocation profile).
func hasWord(words, cue string, prefix bool) bool {
	for i := 0; i <= len(words); {
		j := strings.Index(words[i:], cue)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(cue)
		if j > 0 && words[j-1] == ' ' && (prefix || end < len(words) && words[end] == ' ') {
			return true
		}
		i = j + 1
	}
	return false
}

// count returns how many of the set's cues occur in the prompt: text is
// the lower-cased prompt, words its ASCII words joined by single spaces
// with a space at each end.
func (c cueSet) count(text, words string) int {
	n := 0
	for _, cue := range c.en {
		prefix, ok := strings.CutSuffix(cue, "*")
		if hasWord(words, prefix, ok) {
			n++
		}
	}
	for _, cue := range c.zh {
		if strings.Contains(text, cue) {
			n++
		}
	}
	return n
}

// chatCues mark a question that asks for an opinion or for a fact about
// a named thing (who made it, when it came out, what its name stands
// for), where a playbook has nothing to add: "你觉得 Tailwind 好用吗", "is
// Next.js made by Vercel?", "Vue 的作者是谁". A comparison asked for a
// decision ("Kafka 还是 RocketMQ") is no chat, nor a default asked to be
// changed: neither has a cue here.
var chatCues = cueSet{"chat",
	[]string{"do you think", "you prefer", "do you like", "your opinion", "your take", "gut take", "honest opinion",
		"worth learning", "worth switching", "still worth", "overrated", "underrated", "favorite", "favourite",
		"who made", "who created", "who invented", "who wrote", "who owns", "made by", "created by", "named after",
		"stand for", "stands for", "pronounce", "pronounced", "when was", "out yet", "came out", "mascot", "acquired",
		"why is it called", "yes or no"},
	[]string{"你觉得", "你认为", "你更喜欢", "你喜欢", "你的看法", "随便说说", "好用吗", "香吗", "值得学", "还值得", "过时了吗",
		"是谁", "谁开发", "谁做的", "谁发明", "哪一年", "哪年", "哪个国家", "哪家公司", "缩写", "怎么读", "怎么念", "读音",
		"吉祥物", "收购", "免费额度", "为什么叫", "是或不是"}}

// chatAsks are the question words a chat question may ask with beside
// questionCues', without a question mark: "who is Kafka named after",
// "免费额度…大概多少分钟".
var chatAsks = cueSet{"asks", []string{"who", "when", "where"}, []string{"谁", "哪", "多少"}}

// theTerm is a prompt's "this word" or "this name": the named thing itself,
// not the user's work ("Nginx 这个词怎么读"), taken out before ownWork's cues
// are counted.
var theTerm = strings.NewReplacer("这个词", " ", "这个单词", " ", "这个名字", " ")

// ownWork marks a prompt about the user's own work ("你觉得我们这个方案",
// "do you think my schema"): an opinion on it is a review, not chat.
var ownWork = cueSet{"own",
	[]string{"my", "our", "this", "these", "here", "below", "above", "attached", "following", "we", "i'm", "i've", "we're"},
	[]string{"这个", "这段", "这些", "这套", "这份", "这里", "下面", "上面", "我的", "我们", "咱们", "我写", "我这"}}

// askingVerbs open a yes-or-no question ("is React 19 out yet").
var askingVerbs = []string{" is ", " are ", " was ", " were ", " does ", " did ", " do ", " can ", " will ", " has "}

// Chat reports a question that asks for an opinion or a fact about a
// thing rather than for work on the user's own: asked as a question (a
// question cue, a question mark, a word of chatAsks, or a yes-or-no
// question's verb first), with a chat cue (chatCues) and no
// word that points at the user's work (ownWork; "这个词", this word, is
// the term asked about: theTerm). The quiet stage routes such a prompt to no
// skill, however clearly it names one.
func Chat(p tokenize.Text) bool {
	text := p.Lower
	if !chatCues.mayOccur(text) {
		return false // most prompts: no cue even as a substring, and no words built
	}
	words := cueWords(text)
	if chatCues.count(text, words) == 0 {
		return false
	}
	// theTerm's words are Chinese: the ASCII words stay as they are.
	if ownWork.count(theTerm.Replace(text), words) > 0 {
		return false
	}
	if questionCues.count(text, words) > 0 || strings.ContainsAny(text, "?？") || chatAsks.count(text, words) > 0 {
		return true
	}
	for _, v := range askingVerbs {
		if strings.HasPrefix(words, v) {
			return true
		}
	}
	return false
}

// mayOccur reports whether any of the set's cues occurs in text as a
// substring: a screen that needs no word list, which count's whole-word
// matches are a subset of (the quiet stage built one for every routed
// prompt: two allocations a route, BenchmarkRoute).
func (c cueSet) mayOccur(text string) bool {
	for _, cue := range c.en {
		if strings.Contains(text, strings.TrimSuffix(cue, "*")) {
			return true
		}
	}
	for _, cue := range c.zh {
		if strings.Contains(text, cue) {
			return true
		}
	}
	return false
}

// conceptCues ask how two things differ, or what a term means or is for:
// "进程和线程有什么区别", "what's the difference between let and const",
// "418 是啥意思", "--dry-run=client 是干嘛的". Broader cues ("是什么", "what
// is a", "what does") open requests about the user's work as often
// ("原因是什么", "what is a good way to shard this table") and are left
// out; "what does" counts only as the whole question (asksWhatItDoes).
var conceptCues = cueSet{"concept",
	[]string{"difference between", "differences between", "what's the difference", "what is the difference"},
	[]string{"区别", "差别", "有什么不同", "有啥不同", "什么意思", "啥意思", "什么是", "是干嘛的", "是干什么的", "是做什么的", "是做啥的", "有什么作用", "起什么作用"}}

// Concept reports a question that asks how two things differ or what a
// term means, and says nothing of the user's own work (ownWork: "我们的
// 表和视图有什么区别" asks about theirs). Its answer is general knowledge;
// the quiet stage gives it a skill only when one claims such questions.
func Concept(p tokenize.Text) bool {
	text := p.Lower
	if !conceptCues.mayOccur(text) && !strings.HasPrefix(strings.TrimSpace(text), "what do") {
		return false // most prompts: no cue even as a substring, and no words built
	}
	words := cueWords(text)
	return (conceptCues.count(text, words) > 0 || asksWhatItDoes(words)) && ownWork.count(text, words) == 0
}

// asksWhatItDoes reports a question that is only "what does X do" or
// "what does X mean" ("what does `docker run --rm` do exactly?"): the
// question opens the prompt and its verb closes it, so the prompt asks
// nothing else. Opening a longer request ("what does the migration need
// to look like for ...") it is no such question.
func asksWhatItDoes(words string) bool {
	rest, ok := strings.CutPrefix(words, " what does ")
	if !ok {
		rest, ok = strings.CutPrefix(words, " what do ")
	}
	if !ok {
		return false
	}
	rest = strings.TrimSuffix(rest, "exactly ")
	rest = strings.TrimSuffix(rest, "actually ")
	return strings.HasSuffix(rest, " do ") || strings.HasSuffix(rest, " mean ") || strings.HasSuffix(rest, " stand for ")
}

// conceptStems are the content words of the English concept cues in the
// form a prompt's terms take ("difference" is read as "differ"),
// computed on first use: a hook process that routes no concept question
// never needs them.
var conceptStems = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, cue := range conceptCues.en {
		for _, w := range strings.Fields(cue) {
			if !tokenize.IsStopWord(w) {
				out[tokenize.Normalize(w)] = true
			}
		}
	}
	return out
})

// ConceptWord reports whether a prompt's term, as the tokenizer cut it,
// carries a concept question's own word: a Chinese term holding a cue
// (有什么区别 holds 区别), or an English cue's content word ("differ"). A
// skill that lists such a word claims such questions (the quiet stage).
func ConceptWord(term string) bool {
	for _, cue := range conceptCues.zh {
		if strings.Contains(term, cue) {
			return true
		}
	}
	return conceptStems()[term]
}
