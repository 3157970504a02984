package action

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCues(t *testing.T) {
	cases := []struct {
		name   string
		prompt string
		set    string
		sets   []compiledSet
		want   bool
	}{
		{"trigger word", "check the logs", CueRealtime, compiledRuleSets, true},
		{"negated trigger does not count", "Don't run anything, just tell me what exit code 137 means", CueRealtime, compiledRuleSets, false},
		{"negated Chinese trigger does not count", "先别执行任何命令，直接告诉我 chmod 755 是什么权限", CueRealtime, compiledRuleSets, false},
		{"the negation itself is a cue of its own", "don't run anything", CueNoTools, compiledFeatureSets, true},
		{"Chinese cue as a substring", "现在纽约几点？", CueLive, compiledFeatureSets, true},
		{"stemmed cue meets inflections", "fixing the deploy script", CueWorkflow, compiledRuleSets, true},
		{"inflected cue matches only as written", "is --dry-run better than --noop?", CueLive, compiledFeatureSets, false},
		{"inflected cue as written", "what's running on port 8080", CueLive, compiledFeatureSets, true},
		{"imperative at the start", "Restart it, it's stuck again.", CueDestructive, compiledFeatureSets, true},
		{"imperative after a word that asks", "Can you clean up the database a bit?", CueDestructive, compiledFeatureSets, true},
		{"a noun is no request", "Show me the pods with their restart counts.", CueDestructive, compiledFeatureSets, false},
		{"English verb in a Chinese sentence", "先把 prod 的 replicas scale 到 0", CueDestructive, compiledFeatureSets, true},
		{"short acknowledgement", "ok, go with option B", CueAck, compiledFeatureSets, true},
		{"an acknowledging word inside a request is none", "微信小程序里 wx.request 在真机上报错，开发者工具里是好的，为什么", CueAck, compiledFeatureSets, false},
		{"punctuation cue needs its mark", "that's nonsense, right?", CueAnswerOnly, compiledFeatureSets, true},
		{"punctuation cue without its mark", "turn right at the next light", CueAnswerOnly, compiledFeatureSets, false},
		{"preference of the user's", "Set up the pre-commit hooks the way I usually like them.", CuePreference, compiledFeatureSets, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := cueSet(readPrompt(c.prompt).match(c.sets), c.set) != nil
			assert.Equal(t, c.want, got, "%q: %v", c.prompt, readPrompt(c.prompt).match(c.sets))
		})
	}
}

func TestNamesTarget(t *testing.T) {
	for prompt, want := range map[string]bool{
		"What's listening on port 5432 right now?":     true,
		"Show me the pods in namespace workers-stg":    true,
		"fetch https://status.example.com":             true,
		"Show me the production worker pods.":          false,
		"Drop the backup tables from last month's one": false,
		"先把 prod 的 replicas scale 到 0":                 false,
	} {
		assert.Equal(t, want, readPrompt(prompt).namesTarget(), prompt)
	}
}
