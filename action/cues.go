package action

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/skillroute/skillroute/tokenize"
)

// Cues are words that say what kind of help a prompt asks for, in English
// and Chinese. English cues are matched on the prompt's words, stemmed as
// the router stems them ("checks" meets "check"), a phrase as adjacent
// words; a cue ending in "*" matches any word it starts. Chinese cues are
// matched as substrings, as Chinese has no spaces. A cue in the reach of a
// negation ("don't run anything", "先别执行") does not count: a negated
// request is no request (the lesson of an earlier router whose "不对"
// counted as "对").
//
// The rule-based router reads the seed's trigger words (ruleCues); the
// feature router reads its own sets (featureCues), each a feature with a
// weight, never decisive alone.

// CueSet is one named list of cues.
type CueSet struct {
	Name string
	EN   []string
	ZH   []string
	// Short: the set counts only in a short prompt (at most shortUnits,
	// an English word or two Chinese characters a unit): "ok" or "好的"
	// close an exchange on their own, not inside a request.
	Short bool
	// Imperative: an English cue counts only as a request, at the start
	// of a clause or after a word that asks ("please", "just", "can you",
	// "to"): "drop the table", not "the drop in traffic"; "restart it",
	// not "restart counts".
	Imperative bool
}

// shortUnits is the length of a short prompt: eight English words, as the
// router's follow-up turns count them, or sixteen Chinese characters.
const shortUnits = 8

// askWord reports whether a word may precede an imperative cue (a
// switch, not a map a process builds at its start).
func askWord(w string) bool {
	switch w {
	case "please", "just", "you", "to", "and", "then", "let's", "also", "now", "first", "pls":
		return true
	}
	return false
}

// Names of the cue sets.
const (
	// The seed's four trigger lists (Rules 1–4).
	CueReasoning = "reasoning" // why, think, design, name
	CueRealtime  = "realtime"  // check, run, open, current, list, time
	CueStable    = "stable"    // prefer, remember, usually, my, our
	CueWorkflow  = "workflow"  // fix, deploy, review, setup, workflow

	// The feature router's sets.
	CueLive        = "live"        // asks for current state
	CueLookup      = "lookup"      // asks a question a fact or a look-up answers
	CueTask        = "task"        // asks for work a procedure shapes
	CueOwn         = "own"         // refers to the user's own setup or conventions
	CuePreference  = "preference"  // relies on a preference of the user's
	CueAnswerOnly  = "answer-only" // wants a short answer from knowledge
	CueDestructive = "destructive" // deletes, resets, restarts
	CueNoTools     = "no-tools"    // rules out running anything
	CueStore       = "store"       // asks to store a fact, not to use one
	CueAck         = "ack"         // acknowledges, moves on
)

// ruleCues are the seed's trigger words (Rules 1–4), with their Chinese
// counterparts.
var ruleCues = []CueSet{
	{Name: CueReasoning, EN: []string{"why", "think", "design", "name"},
		ZH: []string{"为什么", "为啥", "想想", "思考", "设计", "命名", "起名", "起个名", "名字"}},
	{Name: CueRealtime, EN: []string{"check", "run", "open", "current", "list", "time"},
		ZH: []string{"检查", "查一下", "查查", "运行", "执行", "跑一下", "打开", "当前", "现在", "列出", "时间", "几点"}},
	{Name: CueStable, EN: []string{"prefer", "remember", "usually", "my", "our"},
		ZH: []string{"偏好", "喜欢", "记住", "记得", "通常", "平时", "一般", "我的", "我们"}},
	{Name: CueWorkflow, EN: []string{"fix", "deploy", "review", "setup", "set up", "workflow"},
		ZH: []string{"修复", "修一下", "部署", "上线", "审查", "评审", "搭建", "配置", "流程", "工作流"}},
}

// featureCues are the feature router's cue sets. General words of a
// developer's requests, not any project's: the weights that turn them into
// scores are in feature.go.
var featureCues = []CueSet{
	{Name: CueLive,
		EN: []string{"right now", "current", "currently", "at the moment", "running", "listening", "in use",
			"show me", "tail", "how many", "any new", "any errors", "what time", "uptime", "am i on", "did the",
			"fetch", "search for", "look up", "in the last", "since yesterday", "since this morning", "today"},
		ZH: []string{"现在", "当前", "目前", "看下", "看一下", "看看", "查一下", "查查", "多少", "几点", "还剩",
			"在跑", "占用", "占着", "最新一次", "有没有", "搜一下", "搜搜", "昨天", "今天", "刚才", "最近"}},
	{Name: CueLookup,
		EN: []string{"what's the", "what is the", "which", "where", "who", "how many", "show me", "what time",
			"again", "remind me", "is there", "did the"},
		ZH: []string{"哪个", "哪天", "哪里", "多少", "几点", "是什么", "来着", "是哪", "找谁", "能不能", "吗"}},
	{Name: CueTask,
		EN: []string{"write", "build", "implement", "create", "design", "debug", "fix", "figure out", "optimize",
			"optimise", "propose", "set up", "configure", "migrate", "refactor", "review", "analyze", "analyse",
			"diagnose", "investigate", "turn this into", "convert", "make it", "how do i", "how should", "what are my options",
			"wire up", "scan", "plan"},
		ZH: []string{"帮我写", "写个", "写一个", "实现", "优化", "排查", "设计", "分析", "拆一下", "整理", "修好", "修复",
			"加一个", "搭建", "配置", "迁移", "重构", "怎么做", "怎么写", "怎么办", "怎么排查", "定一套", "帮我看"}},
	{Name: CueOwn,
		EN: []string{"usual", "usually", "the usual way", "again", "remind me", "convention", "conventions",
			"consistent with", "matches our", "match our", "like our", "the rest of the", "as always", "our standard"},
		ZH: []string{"平时", "习惯", "来着", "按我们", "按我的", "规范", "约定", "惯例", "老样子", "照旧"}},
	{Name: CuePreference,
		EN: []string{"the way i like", "the way i usually", "how i like", "the way we usually", "as i like", "my usual",
			"my preferred", "i usually like", "like i usually"},
		ZH: []string{"按我的习惯", "我习惯的", "老样子", "照旧", "按我平时", "我喜欢的方式"}},
	{Name: CueAnswerOnly,
		EN: []string{"just curious", "no code", "in one sentence", "in a sentence", "in three sentences", "in two sentences",
			"in a few words", "briefly", "quick question", "sanity check", "good name", "name for", "reads better",
			"which is better", "right?", "makes sense", "think it through", "just tell me", "from experience", "in general",
			"is there a case", "what does", "mean?", "conceptually"},
		ZH: []string{"一句话", "简单聊聊", "简单说说", "对不对", "起个名字", "起个名", "取个名", "起个 name", "叫什么", "好还是",
			"为啥", "什么意思", "换个说法", "再讲一遍", "凭经验", "有啥区别", "什么区别", "概括", "直接告诉我", "理解对不对"}},
	{Name: CueDestructive, Imperative: true,
		EN: []string{"delete", "drop", "remove", "wipe", "flush", "purge", "reset", "restart", "kill", "truncate",
			"clean up", "clear out", "scale", "tear down", "destroy", "nuke", "rm"},
		ZH: []string{"删", "删除", "删掉", "清空", "清理", "清掉", "清一下", "重置", "重启", "停掉", "干掉", "下线", "销毁"}},
	{Name: CueNoTools,
		EN: []string{"don't run", "do not run", "don't check", "do not check", "no need to look", "no need to check",
			"no need to run", "without running", "don't execute", "don't look"},
		ZH: []string{"先别执行", "别执行", "不用执行", "不要执行", "不用查", "别查", "不用看", "不要运行", "别跑"}},
	{Name: CueStore,
		EN: []string{"remember:", "remember that", "from now on", "note that", "keep in mind", "for future reference"},
		ZH: []string{"记住", "以后都", "从现在起", "从现在开始", "以后请"}},
	{Name: CueAck, Short: true,
		EN: []string{"ok", "okay", "cheers", "thanks", "thank you", "got it", "makes sense", "on to the next", "go with", "sounds good"},
		ZH: []string{"明白了", "好嘞", "好的", "谢谢", "收到", "下一个话题", "明天接着", "懂了"}},
}

// compiledCue is one cue ready to match.
type compiledCue struct {
	text   string   // as written, for the breakdown
	words  []string // English: normalised words (as written when exact); the last may be a prefix
	exact  []bool   // per word: written inflected ("running"), so matched as written
	prefix bool     // the last word is a prefix ("debug*")
	zh     bool     // matched as a substring
	punct  string   // English cue ending in punctuation ("right?"): that character must follow
}

type compiledSet struct {
	name              string
	cues              []compiledCue
	short, imperative bool
}

// The cue sets are compiled ahead of time into compiledRuleSets and
// compiledFeatureSets (compile, in the tests, writes cues_compiled.go:
// TestCompiledCues; ruleCues and featureCues are its source): compiled in
// the process, on first use, the feature sets cost every hook process
// 0.25 ms of the action layer's goroutine and 80 KB of fresh memory (a
// timeline and an allocation profile of prompt events at 50 skills), and
// at package start before that 0.8 ms.

// word is one English word of a prompt.
type word struct {
	raw, norm string
	pos, end  int
}

// words cuts lower-cased text into its English words, normalised as the
// router normalises them.
func words(lower string) []word {
	var out []word
	for _, loc := range wordSpans(lower) {
		raw := lower[loc[0]:loc[1]]
		out = append(out, word{raw: raw, norm: normalize(raw), pos: loc[0], end: loc[1]})
	}
	return out
}

// normalize is how the router normalises a word (tokenize.Normalize).
func normalize(w string) string { return tokenize.Normalize(w) }

// wordSpans returns where the words of a text are, as the expression
// [\p{Latin}\p{N}]+(?:'[\p{Latin}]+)? finds them (FindAllStringIndex;
// TestWordSpansAsRegexp): letters and digits, and an apostrophe followed
// by letters ("don't"). The expression cost 3.5 % of a hook process
// (perf record), mostly in compiling the cue sets.
func wordSpans(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !tokenize.IsWordRune(r) {
			i += size
			continue
		}
		start := i
		i = tokenize.SkipWordRunes(s, i)
		if i+1 < len(s) && s[i] == '\'' {
			if r, _ := utf8.DecodeRuneInString(s[i+1:]); isLatin(r) {
				i++
				for i < len(s) {
					r, size = utf8.DecodeRuneInString(s[i:])
					if !isLatin(r) {
						break
					}
					i += size
				}
			}
		}
		out = append(out, [2]int{start, i})
	}
	return out
}

// isLatin reports whether r is a letter of the Latin script (\p{Latin}).
func isLatin(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.Is(unicode.Latin, r)
}

// Matched is what one cue set found in a prompt.
type Matched struct {
	Set  string   `json:"set"`
	Cues []string `json:"cues"`
}

// prompt is a prompt read for cues.
type prompt struct {
	text    tokenize.Text
	words   []word
	negated func(int) bool
	quoted  [][]int // byte spans inside quotes
}

func readPrompt(text string) *prompt {
	t := tokenize.NewText(strings.ReplaceAll(text, "’", "'"))
	return &prompt{text: t, words: words(t.Lower), negated: tokenize.Negations(t.Lower), quoted: quotedSpans(t.Lower)}
}

// quotedSpans finds quoted stretches: an error message, a pasted command,
// a name. Their words are the material of the request, not the request:
// "Couldn't fetch" in quotes asks nothing to be fetched. An apostrophe
// inside a word ("couldn't", "it's") opens no quote. A quote holds 1 to
// maxQuoted characters (maxBacktick between backticks) on one line.
//
// It returns what the regular expression
//
//	(?:^|[^\p{L}\p{N}])'(?:[^'\n]|'\p{L}){1,200}'|"[^"\n]{1,200}"|`[^`\n]{1,400}`|“[^”\n]{1,200}”|「[^」\n]{1,200}」
//
// finds with FindAllStringIndex, span for span (TestQuotedSpansAsRegexp,
// FuzzQuotedSpans): compiling that expression, whose counted
// repetitions RE2 unrolls into some 2,000 instructions, cost every hook
// process 1.1 to 1.9 ms, more than the rest of the action layer's
// decision.
func quotedSpans(s string) [][]int {
	var out [][]int
	for pos := 0; pos < len(s); {
		if end := quoteAt(s, pos); end > 0 {
			out = append(out, []int{pos, end})
			pos = end
			continue
		}
		_, size := utf8.DecodeRuneInString(s[pos:])
		pos += size
	}
	return out
}

// Lengths of a quote, in characters.
const (
	maxQuoted   = 200 // a message or a name
	maxBacktick = 400 // code
)

// quotePairs are the delimiters that open and close a quote, besides the
// apostrophe.
var quotePairs = [...]struct {
	open, close rune
	max         int
}{{'"', '"', maxQuoted}, {'`', '`', maxBacktick}, {'“', '”', maxQuoted}, {'「', '」', maxQuoted}}

// quoteAt returns the end of the quote that starts at byte pos, or 0: as
// the expression, the apostrophe's alternative first (at the very start,
// or after a character that is no letter or digit, which the span
// includes), then the others.
func quoteAt(s string, pos int) int {
	if pos == 0 {
		if end := apostropheQuote(s, 0); end > 0 {
			return end
		}
	}
	r, size := utf8.DecodeRuneInString(s[pos:])
	if !unicode.IsLetter(r) && !unicode.IsNumber(r) {
		if end := apostropheQuote(s, pos+size); end > 0 {
			return end
		}
	}
	for _, q := range quotePairs {
		if r == q.open {
			return closedQuote(s, pos+size, q.close, q.max)
		}
	}
	return 0
}

// apostropheQuote returns the end of an apostrophe quote opening at byte
// at, or 0. Its characters are anything but an apostrophe or a line
// break, or an apostrophe followed by a letter ("it's"), 1 to maxQuoted
// of them; as many as can be taken are, and the quote closes at the last
// apostrophe among them that may close it.
func apostropheQuote(s string, at int) int {
	if at >= len(s) || s[at] != '\'' {
		return 0
	}
	end := 0
	q := at + 1
	for range maxQuoted {
		if q >= len(s) {
			break
		}
		r, size := utf8.DecodeRuneInString(s[q:])
		if r == '\n' {
			break
		}
		if r == '\'' {
			next, nsize := utf8.DecodeRuneInString(s[q+1:])
			if q+1 >= len(s) || !unicode.IsLetter(next) {
				break
			}
			size = 1 + nsize
		}
		q += size
		if q < len(s) && s[q] == '\'' {
			end = q + 1
		}
	}
	return end
}

// closedQuote returns the end of a quote whose text starts at byte from
// and closes with close after 1 to max characters on one line, or 0.
func closedQuote(s string, from int, close rune, max int) int {
	n := 0
	for p := from; p < len(s); {
		r, size := utf8.DecodeRuneInString(s[p:])
		switch {
		case r == close:
			if n == 0 {
				return 0
			}
			return p + size
		case r == '\n' || n == max:
			return 0
		}
		n++
		p += size
	}
	return 0
}

// inQuotes reports whether a byte offset lies inside quotes.
func (p *prompt) inQuotes(pos int) bool {
	for _, q := range p.quoted {
		if pos >= q[0] && pos < q[1] {
			return true
		}
	}
	return false
}

// units is the prompt's length in units: an English word, or two
// Chinese characters.
func (p *prompt) units() int {
	return len(p.words) + tokenize.HanCount(p.text.Lower)/2
}

// match returns, per set, the distinct cues the prompt holds outside a
// negation's reach, in set order; sets with none are left out.
func (p *prompt) match(sets []compiledSet) []Matched {
	var out []Matched
	short := p.units() <= shortUnits
	for _, s := range sets {
		if s.short && !short {
			continue
		}
		var found []string
		for _, c := range s.cues {
			if p.has(c, s.imperative) {
				found = append(found, c.text)
			}
		}
		if len(found) > 0 {
			out = append(out, Matched{Set: s.name, Cues: found})
		}
	}
	return out
}

// has reports whether the cue occurs, not negated (and, for an
// imperative set, as a request).
func (p *prompt) has(c compiledCue, imperative bool) bool {
	if c.zh {
		lower := p.text.Lower
		for from := 0; ; {
			i := strings.Index(lower[from:], c.text)
			if i < 0 {
				return false
			}
			if !p.negated(from+i) && !p.inQuotes(from+i) {
				return true
			}
			from += i + len(c.text)
		}
	}
	n := len(c.words)
	if n == 0 {
		return false
	}
	for i := 0; i+n <= len(p.words); i++ {
		ok := true
		for k, w := range c.words {
			got := p.words[i+k]
			last := k == n-1
			switch {
			case last && c.prefix:
				ok = strings.HasPrefix(got.raw, w)
			case c.exact[k]:
				ok = got.raw == w
			default:
				ok = got.norm == w
			}
			if !ok {
				break
			}
		}
		if !ok || p.negated(p.words[i].pos) || p.inQuotes(p.words[i].pos) {
			continue
		}
		if imperative && !p.asks(i) {
			continue
		}
		if c.punct != "" {
			end := p.words[i+n-1].end
			if !strings.HasPrefix(strings.TrimLeft(p.text.Lower[end:], " "), c.punct) {
				continue
			}
		}
		return true
	}
	return false
}

// asks reports whether word i stands where a request's verb does: first
// in a clause, or after a word that asks.
func (p *prompt) asks(i int) bool {
	if i == 0 {
		return true
	}
	between := p.text.Lower[p.words[i-1].end:p.words[i].pos]
	if strings.ContainsAny(between, ",.;:!?，。；：！？\n") {
		return true
	}
	prev := p.words[i-1]
	if askWord(prev.raw) {
		return true
	}
	// In a Chinese sentence ("先把 prod 的 replicas scale 到 0") an English
	// verb stands where Chinese puts it, after its object: any counts.
	return tokenize.HanCount(p.text.Lower) > 0
}

// identRE finds what names a specific target: a URL, a word with inner
// connectors ("workers-stg", "test_vat.py", "ledger-api"), or a number of
// three digits or more (a port, a PR, an error code).
// Compiled on first use: a hook process for an event that routes nothing
// never needs it.
var identRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`https?://\S+|[\p{Latin}\p{N}]+(?:[-_./][\p{Latin}\p{N}]+)+|\b\d{3,}\b`)
})

// namesTarget reports whether the prompt spells out a specific target.
func (p *prompt) namesTarget() bool {
	return identRE().MatchString(p.text.Lower)
}

// cueSet looks a set up in matches.
func cueSet(ms []Matched, name string) []string {
	i := slices.IndexFunc(ms, func(m Matched) bool { return m.Set == name })
	if i < 0 {
		return nil
	}
	return ms[i].Cues
}
