package category_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillroute/skillroute/learn/category"
	"github.com/skillroute/skillroute/tokenize"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		prompt string
		want   string
	}{
		// English
		{"Fix the crash when the user logs out", category.Debug},
		{"I'm debugging a memory leak in the worker", category.Debug},
		{"the login page doesn't work after the upgrade", category.Debug},
		{"why does this throw an exception?", category.Debug},
		{"fix the failing test", category.Debug}, // tie: debug precedes test
		{"Write unit tests for the parser", category.Test},
		{"add pytest coverage for utils.py", category.Test},
		{"Review my pull request please", category.Review},
		{"can you audit this module for code smells", category.Review},
		{"Deploy the service to k8s with helm", category.Deploy},
		{"set up ci/cd for the release", category.Deploy},
		{"Update the README and the changelog", category.Docs},
		{"write docstrings for these functions", category.Docs},
		{"Analyze the sales dataset with pandas", category.Data},
		{"optimize these SQL queries", category.Data},
		{"Design the architecture for a chat system", category.Design},
		{"make a wireframe of the settings UI", category.Design},
		{"Implement OAuth login", category.Implement},
		{"add a dark mode feature", category.Implement},
		{"refactor the payment module", category.Implement},
		{"What is the difference between Redis and Memcached?", category.Question},
		{"how does garbage collection work in Go", category.Question},
		{"regex to match a valid IPv4 address", category.Question},
		{"one-liner to count lines in every file", category.Question},
		// A shell command or script asked for is a question, whatever
		// task words come with it; a script that fails is debugging.
		{"帮我写个 shell script，把当前目录下所有 .jpeg 文件重命名成 .jpg", category.Question},
		{"写个 shell 命令，统计当前目录下所有 .py 文件的总行数", category.Question},
		{"write a bash script that deletes logs older than 7 days", category.Question},
		{"my bash script fails with permission denied on the cron box", category.Debug},
		{"write a shell-out helper in Go for the image tool", category.Implement},
		{"what's the weather like today", category.Question},
		{"how's the new cache holding up", category.Question},
		{"when should I reach for a mutex instead of a channel", category.Question},
		{"should we use gRPC or REST between the services", category.Question},
		// An opinion asked is a question; with a task cue it is the task.
		{"do you think dark mode is easier on the eyes", category.Question},
		{"do you think we should add a retry to the fetch", category.Implement},
		// A requirement is no question: "should" asks only before its
		// subject, and "when" opening a condition asks nothing.
		{"the page should redirect home after sign-in", category.Other},
		{"When the user likes a post I want the heart to turn red immediately", category.Other},
		{"Let users sign in with Google and link it to their account when the address matches.", category.Other},
		{"write a regex check into the signup form", category.Implement},
		{"hello there", category.Other},
		{"", category.Other},
		// whole words only: "fixture" is not "fix", "prefix" is not "fix"
		{"rename the prefix variable", category.Other},
		// Chinese
		{"登录接口报错了，帮我排查一下", category.Debug},
		{"App 启动就闪退", category.Debug},
		{"给这个函数写单元测试", category.Test},
		{"补一下用例，覆盖率太低", category.Test},
		{"帮我审查一下这段代码", category.Review},
		{"今晚要上线，部署到生产环境", category.Deploy},
		{"出问题了，赶紧回滚", category.Deploy},
		{"给接口补充文档和注释", category.Docs},
		{"统计一下上个月的订单数据", category.Data},
		{"设计一下消息系统的架构", category.Design},
		{"帮我实现一个登录功能", category.Implement},
		{"什么是微服务？", category.Question},
		{"Redis 和 Memcached 有什么区别", category.Question},
		{"GIL 是啥", category.Question}, // 啥, the spoken 什么
		{"匹配手机号的正则", category.Question},
		{"你觉得写代码用 Mac 还是 ThinkPad 好", category.Question},
		{"你好", category.Other},
		{"what's a monad", category.Question},
		{"let's ship it", category.Deploy},
		// A word that holds a cue and means something else is no cue.
		{"想换个更快的包管理器，顺便把解释器也装好", category.Other},
		{"解释一下 GIL", category.Question},
		{"用 Redis 做发布订阅", category.Other},
		// mixed
		{"React 页面报错 TypeError", category.Debug},
		{"帮我 review 一下这个 PR", category.Review},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			assert.Equal(t, tt.want, category.Classify(tt.prompt))
		})
	}
	// Every result is a listed category.
	cats := map[string]bool{}
	for _, c := range category.Categories() {
		cats[c] = true
	}
	for _, tt := range tests {
		assert.True(t, cats[category.Classify(tt.prompt)])
	}
	assert.Len(t, cats, 10)
}

// What reads as chat, an opinion or a fact asked about a thing, is pinned
// here: the quiet stage routes such a prompt to no skill however clearly
// it names one.
func TestChat(t *testing.T) {
	for prompt, want := range map[string]bool{
		"你觉得 Tailwind 好用吗":                                             true,
		"is Next.js made by Vercel?":                                   true,
		"Vue 的作者是谁":                                                    true,
		"MySQL 默认端口是多少":                                                false, // a default may be asked to change
		"is React 19 out yet":                                          true,
		"the released build crashes when it starts":                    false, // no question
		"这段代码是谁写的？":                                                    false, // the user's own code: git blame
		"what does CI/CD stand for":                                    true,
		"Go or Rust for a small CLI? just your gut take":               true,
		"微信小程序是哪一年上线的":                                                 true,
		"do you think our schema needs an index here?":                 false, // the user's own work: a review
		"你觉得我们这个微服务拆分合理吗":                                              false,
		"订单系统做技术选型：消息队列用 Kafka 还是 RocketMQ":                            false, // a decision to make, not chat
		"how do I rebase onto main":                                    false,
		"Vue 项目里 useFetch 请求了两次":                                       false,
		"which logo format should the PWA manifest use?":               false, // a logo is no cue: asked for work
		"Nginx 这个词怎么读":                                                 true,  // "this word" is the term, not the user's work
		"我们这个项目名怎么读比较好":                                                false,
		"who is Kafka named after":                                     true, // who asks, with no question mark
		"GitHub Actions 免费额度 per month 大概多少分钟":                         true, // 多少 asks
		"is TypeScript a superset of JavaScript, yes or no":            true,
		"Redis 是单线程的吗，是或不是就行":                                          true,
		"k8s 为什么叫 k8s":                                                 true,
		"when the job runs, who gets notified? set it up for our team": false, // the user's work
	} {
		assert.Equal(t, want, category.Chat(tokenize.NewText(prompt)), prompt)
	}
}

// BenchmarkChat is the quiet stage's chat reading of a routed prompt that
// holds a cue ("你觉得"), the case that builds the word list.
func BenchmarkChat(b *testing.B) {
	p := tokenize.NewText("你觉得商业计划书融资 BP 怎么写比较好，投资人最看重哪几页")
	for b.Loop() {
		category.Chat(p)
	}
}

// BenchmarkChatNoCue is the common case: no cue even as a substring, no
// word list built.
func BenchmarkChatNoCue(b *testing.B) {
	p := tokenize.NewText("商业计划书融资 BP 怎么写，投资人最看重哪几页")
	for b.Loop() {
		category.Chat(p)
	}
}

// TestConcept pins which questions ask how things differ or what a term
// means: general knowledge, whatever topic they name, unless they are
// about the user's own work.
func TestConcept(t *testing.T) {
	tests := []struct {
		prompt string
		want   bool
	}{
		{"进程和线程有什么区别", true},
		{"SQL 里 WHERE 和 HAVING 的区别是啥？一句话说清楚就行。", true},
		{"What's the difference between let and const in JS?", true},
		{"difference between a process and a thread?", true},
		{"HTTP 状态码 418 是啥意思", true},
		{"什么是幂等性，通俗点说", true},
		{"what does `docker run --rm` do exactly?", true},
		{"What does idempotent mean?", true},
		{"what do CORS preflight requests actually do", true},
		{"what does SLO stand for", true},
		{"kubectl 里的 --dry-run=client 是干嘛的？", true},
		{"nginx 的 proxy_buffering 有什么作用", true},
		// About the user's own work.
		{"我们的 orders 表和 order_items 表有什么区别", false},
		{"what's the difference between these two migrations?", false},
		// Broader question words open requests as often.
		{"线上接口偶尔 502，原因是什么", false},
		{"what is a good way to shard a postgres table", false},
		{"what does the cache do when the key expires", false},
		{"what does this function do?", false},
		{"what does the migration need to look like for the new orders table?", false},
		{"我们这个服务的 sidecar 是干嘛的", false},
		{"fix the login bug", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, category.Concept(tokenize.NewText(tt.prompt)), tt.prompt)
	}
}

// TestConceptWord pins the prompt terms that carry a concept question's
// own word, the ones a skill claims such questions by.
func TestConceptWord(t *testing.T) {
	for term, want := range map[string]bool{
		"区别": true, "有什么区别": true, "是什么意思": true, "什么是": true, "differ": true,
		"differ between": false, "between": false, "what": false, "数据库": false, "sql": false,
	} {
		assert.Equal(t, want, category.ConceptWord(term), term)
	}
}
