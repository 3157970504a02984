package context

import (
	"strings"
	"unicode/utf8"
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
		"next one", "another", "again", "likewise", "as well", "do the", "now do", "still"}
	closingZh = []string{"谢谢", "多谢", "感谢", "辛苦", "搞定", "好的", "好了", "就这样", "先这样", "到这", "先到这",
		"可以了", "没问题", "不用了", "嗯", "对", "好，", "好,", "好。", "好！", "好 ", "行，", "行了", "ok，"}
	closingEn = []string{"ok", "okay", "thanks", "thank you", "thx", "ty", "cheers", "great", "perfect", "nice",
		"cool", "done", "that's all", "thats all", "all good", "lol", "bye", "see you", "sounds good", "go ahead"}
)

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
func SameAction(prompt string) bool {
	p := strings.ToLower(prompt)
	return Classify(p) == Continuation && (containsAny(p, sameActionZh) || containsWord(p, sameActionEn) >= 0)
}

// Classify tells a continuation or a closing from a new request.
func Classify(prompt string) Turn {
	p := strings.ToLower(strings.TrimSpace(prompt))
	if p == "" || utf8.RuneCountInString(p) > maxFollowUpRunes*3 || len(strings.Fields(p)) > maxFollowUpWords {
		return NewRequest
	}
	if hanCount(p) > maxFollowUpRunes {
		return NewRequest
	}
	continues := containsAny(p, continuationZh) || containsWord(p, continuationEn) >= 0
	if !continues && (p == "好" || p == "行" || startsWithAny(p, closingZh) || startsWithWord(p, closingEn)) {
		return Closing
	}
	if continues {
		return Continuation
	}
	return NewRequest
}

func containsAny(p string, cues []string) bool {
	for _, c := range cues {
		if strings.Contains(p, c) {
			return true
		}
	}
	return false
}

func startsWithAny(p string, cues []string) bool {
	for _, c := range cues {
		if strings.HasPrefix(p, c) {
			return true
		}
	}
	return false
}

// isWordByte reports an ASCII letter or digit: what continues a word.
func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '\''
}

// containsWord returns the index of the first cue that occurs in p as a
// whole word or phrase, or -1.
func containsWord(p string, cues []string) int {
	for ci, c := range cues {
		if wordIndex(p, c) >= 0 {
			return ci
		}
	}
	return -1
}

// wordIndex returns where cue first occurs in p as a whole word or phrase,
// or -1.
func wordIndex(p, cue string) int {
	for from := 0; from < len(p); {
		i := strings.Index(p[from:], cue)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(cue)
		if (i == 0 || !isWordByte(p[i-1])) && (end == len(p) || !isWordByte(p[end])) {
			return i
		}
		from = i + 1
	}
	return -1
}

func startsWithWord(p string, cues []string) bool {
	for _, c := range cues {
		if strings.HasPrefix(p, c) && (len(p) == len(c) || !isWordByte(p[len(c)])) {
			return true
		}
	}
	return false
}

func hanCount(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x4e00 && r <= 0x9fff {
			n++
		}
	}
	return n
}

// StripCues removes the continuation cue words from a prompt, leaving what
// it says about the work itself ("字体也一样处理" -> "字体处理", "go on" ->
// ""): the cues refer back to the session, and matched as keywords they
// would only add noise ("go" is a language's name).
func StripCues(prompt string) string {
	p := strings.ToLower(prompt)
	for _, c := range continuationZh {
		p = strings.ReplaceAll(p, c, " ")
	}
	for _, c := range continuationEn {
		for i := wordIndex(p, c); i >= 0; i = wordIndex(p, c) {
			p = p[:i] + " " + p[i+len(c):]
		}
	}
	return strings.Join(strings.Fields(p), " ")
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
