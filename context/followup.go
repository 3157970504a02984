package context

import (
	"regexp"
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

var (
	continuationRE = regexp.MustCompile(`继续|接着|接下来|然后呢|也一样|一样|也这样|照着|照样|按这个|同样|类似地|下一个|第二个|其他的|别的|剩下的|再来|再加|还有|也|continue|go on|keep going|carry on|same|also|too\b|the rest|next one|another|again|likewise|as well|do the|now do`)
	closingRE      = regexp.MustCompile(`^(?:谢谢|多谢|感谢|辛苦|搞定|好的|好了|就这样|先这样|到这|先到这|可以了|没问题|不用了|嗯|对|(?:ok|okay|thanks|thank you|thx|ty|cheers|great|perfect|nice|cool|done|that's all|thats all|all good|lol|bye|see you|sounds good|go ahead)\b)`)
)

// Classify tells a continuation or a closing from a new request.
func Classify(prompt string) Turn {
	p := strings.ToLower(strings.TrimSpace(prompt))
	if p == "" || utf8.RuneCountInString(p) > maxFollowUpRunes*3 || len(strings.Fields(p)) > maxFollowUpWords {
		return NewRequest
	}
	short := hanCount(p) <= maxFollowUpRunes
	if !short {
		return NewRequest
	}
	if closingRE.MatchString(p) && !continuationRE.MatchString(p) {
		return Closing
	}
	if continuationRE.MatchString(p) {
		return Continuation
	}
	return NewRequest
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
	return strings.TrimSpace(continuationRE.ReplaceAllString(strings.ToLower(prompt), " "))
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
