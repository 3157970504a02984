package context_test

import (
	"testing"

	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/tokenize"
	"github.com/stretchr/testify/assert"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		prompt string
		want   sctx.Turn
	}{
		{"继续", sctx.Continuation},
		{"字体也一样处理", sctx.Continuation},
		{"go on", sctx.Continuation},
		{"yes please, go ahead and do that", sctx.Continuation},
		{"looks right, proceed", sctx.Continuation},
		{"ok, continue", sctx.Continuation},
		{"改了权限还是不行", sctx.Continuation},
		{"do the same for the settings page", sctx.Continuation},
		{"谢谢，搞定了", sctx.Closing},
		{"thanks, that's all for today", sctx.Closing},
		// An approval with a go-ahead is measured without its opening
		// acknowledgements: eight words of go-ahead, not a request of 12.
		{"nice, looks good to me. go ahead and keep going with the rest", sctx.Continuation},
		{"lgtm, go ahead", sctx.Continuation},
		{"looks good to me", sctx.Closing},
		// The next step after an acknowledgement is a request; a report
		// after it ("now it works") is not.
		{"ok, now add tests for the parser", sctx.NewRequest},
		{"ok, add tests for the parser", sctx.NewRequest},
		{"ok fix it", sctx.NewRequest},
		{"好，改成 async 的", sctx.NewRequest},
		{"好的，帮我加个单元测试", sctx.NewRequest},
		{"ok, build is green now", sctx.Closing},
		{"好了，改好了", sctx.Closing},
		{"哈哈可以可以，搞定了", sctx.Closing},
		{"谢谢，麻烦了", sctx.Closing},
		{"好的，我试试", sctx.Closing},
		{"好，试试", sctx.Closing},
		{"好的，麻烦帮我加个索引", sctx.NewRequest},
		{"looks good, next wire it to the api", sctx.NewRequest},
		{"great, now it works", sctx.Closing},
		{"thanks, now I get it", sctx.Closing},
		{"ok now what", sctx.Closing},
		{"好，先到这", sctx.Closing},
		{"ok", sctx.Closing},
		{"sounds good", sctx.Closing},
		{"never mind, I figured it out myself", sctx.Closing},
		{"nvm, works now", sctx.Closing},
		{"算了，我自己解决了", sctx.Closing},
		{"got it, now do the same here", sctx.Continuation},
		{"谢了", sctx.Closing},
		{"appreciate it, that's all", sctx.Closing},
		{"that's everything for today", sctx.Closing},
		// Thanks with a word of having nothing more close, though they
		// hold a continuation cue (别的, "else" next to "nothing").
		{"thanks, nothing else", sctx.Closing},
		{"谢谢，别的不用了", sctx.Closing},
		{"好的，其他不用了，谢谢", sctx.Closing},
		{"ok that's all, thanks again", sctx.Closing},
		{"that’s all, we’re done", sctx.Closing},
		// A report of success with thanks closes, wherever the thanks
		// stands; with a question or a continuation it does not.
		{"all green now, thanks a lot!", sctx.Closing},
		{"终于跑通了，谢谢", sctx.Closing},
		{"it works now, thanks. can we cache it too?", sctx.Continuation},
		{"the fix worked, thanks! why did it fail before?", sctx.NewRequest},
		{"please fix the flaky test, thanks", sctx.NewRequest},
		{"我先去吃个饭，回来继续", sctx.Closing},
		{"sorry, got pulled into a meeting", sctx.Closing},
		{"brb", sctx.Closing},
		{"稍等，我先去开个会", sctx.Closing},
		{"ok, let's pick this up later", sctx.Closing},
		// A prompt taken back asks nothing, wherever the words stand.
		{"sorry, wrong window, ignore that last message", sctx.Closing},
		{"发错了，当我没说", sctx.Closing},
		{"add a rule to ignore that folder", sctx.NewRequest},
		// ...but no closing word, no closing: a limit is a request.
		{"no more than 2 retries", sctx.NewRequest},
		{"还有别的问题吗，接着看", sctx.Continuation},
		// New requests, even short ones or ones with cue-like letters.
		{"TypeScript 泛型怎么约束传入的对象必须带 id 字段", sctx.NewRequest},
		{"好用的 Go ORM 推荐一个", sctx.NewRequest},
		{"set the samesite attribute on the cookie", sctx.NewRequest},
		{"okta 登录接入", sctx.NewRequest},
		{"帮我把这个 Dockerfile 改成多阶段构建，镜像现在 900MB，构建要十分钟，还有缓存总是失效", sctx.NewRequest},
		{"", sctx.NewRequest},
	}
	for _, c := range cases {
		t.Run(c.prompt, func(t *testing.T) {
			assert.Equal(t, c.want, sctx.Classify(tokenize.NewText(c.prompt)))
		})
	}
}

// A prompt of acknowledgements alone asks nothing; one word of a request
// after them does.
func TestAcknowledgement(t *testing.T) {
	for prompt, want := range map[string]bool{
		"lgtm":                       true,
		"great, thanks! 🙏":           true,
		"好的，谢谢":                      true,
		"ok":                         true,
		"lgtm, now add the tests":    false,
		"thanks, one more: the docs": false,
		"":                           false,
	} {
		assert.Equal(t, want, sctx.Acknowledgement(tokenize.NewText(prompt)), prompt)
	}
}

// Failure reads what pasted output reports: a thanks under a failure asks
// for help with it.
func TestFailure(t *testing.T) {
	for pasted, want := range map[string]bool{
		"api-1  0/1  crashloopbackoff  12":                 true,
		"modulenotfounderror: no module named 'pandas'":    true,
		"permission denied (publickey)":                    true,
		"构建失败，退出码 1":                                       true,
		"added 1423 packages, and audited 1424 packages":   false,
		"all checks have passed":                           false,
		"payment-api-6c9d7f8b5-4xkqp  1/1  running  0  3m": false,
		"errorless": false, // a word, not a part of one
	} {
		assert.Equal(t, want, sctx.Failure(pasted), pasted)
	}
}

// A break is a closing whatever it names: "明天再接着搞那个 bug" names
// tomorrow's work, and asks nothing now.
func TestPaused(t *testing.T) {
	for prompt, want := range map[string]bool{
		"今天先这样，明天再接着搞那个 bug，bye":                                true,
		"gotta run, let's continue tomorrow with the migration": true,
		"谢谢，搞定了": false, // a closing, no break
		"明天再部署到生产环境，先把测试写完": false, // a request
	} {
		assert.Equal(t, want, sctx.Paused(tokenize.NewText(prompt)), prompt)
	}
}

func TestAside(t *testing.T) {
	for prompt, want := range map[string]bool{
		"unrelated: how many ounces are in a pound?":    true,
		"顺便问下，下周一是不是调休要上班？":                             true,
		"ok, btw which model are you?":                  true,
		"Separately, I need a rollout plan for billing": true,
		"好的，我插一句，这个跟部署无关":                               true,
		"store the keys separately from the code":       false,
		"fix the unrelated test failures too":           false,
		"先把接口写完，顺便问下测试怎么跑":                              false, // an aside late in the prompt keeps the work in hand
		"byte order of the header":                      false,
	} {
		assert.Equal(t, want, sctx.Aside(tokenize.NewText(prompt)), prompt)
	}
}

func TestStripCues(t *testing.T) {
	assert.Equal(t, "字体 处理", sctx.StripCues(tokenize.NewText("字体也一样处理")).Lower)
	assert.Equal(t, "", sctx.StripCues(tokenize.NewText("go on")).Lower)
	assert.Equal(t, "for the settings page", sctx.StripCues(tokenize.NewText("do the same for the settings page")).Lower)
	assert.Equal(t, "samesite cookie", sctx.StripCues(tokenize.NewText("samesite cookie")).Lower, "cues are whole words")
	assert.Equal(t, "", sctx.StripCues(tokenize.NewText("Sounds good, proceed")).Lower, "an opening acknowledgement goes too")
	assert.Equal(t, "把测试 补上", sctx.StripCues(tokenize.NewText("好的，谢谢！接着把测试也补上")).Lower)
	assert.Equal(t, "now write the dockerfile", sctx.StripCues(tokenize.NewText("ok great, now also write the Dockerfile")).Lower)
	assert.Equal(t, "okta login", sctx.StripCues(tokenize.NewText("okta login")).Lower, "an acknowledgement is a whole word")
}

// A one-line ask is short; a prompt that sets out its situation is not.
func TestShort(t *testing.T) {
	for prompt, want := range map[string]bool{
		"how do i get back to main": true,
		"这啥意思？我明明装了 python 啊":       true,
		"   \n  which one?  ":       true, // pasted lines blanked around it
		"the worker spends most of its time in json encoding, how can I make it faster": false,
		"搜索接口 p99 从 200ms 涨到 1.2s，数据库那边看过了查询都在 20ms 以内，CPU 主要耗在哪":                       false,
	} {
		assert.Equal(t, want, sctx.Short(tokenize.NewText(prompt)), prompt)
	}
}

func TestSameAction(t *testing.T) {
	assert.True(t, sctx.SameAction(tokenize.NewText("详情页也照样补上")))
	assert.True(t, sctx.SameAction(tokenize.NewText("Do the SAME for the settings page")))
	assert.False(t, sctx.SameAction(tokenize.NewText("also write the Dockerfile")), "a continuation, but not the same work again")
	assert.False(t, sctx.SameAction(tokenize.NewText("set the samesite attribute")))
}

func TestContinuationScores(t *testing.T) {
	assert.Nil(t, sctx.ContinuationScores(nil))
	assert.Equal(t, map[string]float64{"b": 1}, sctx.ContinuationScores([]string{"a", "b"}))
}
