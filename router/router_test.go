package router_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/learn/calibrate"
	"github.com/skillroute/skillroute/learn/category"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	once    sync.Once
	builtin *router.Router
	openErr error
)

func open(t *testing.T) *router.Router {
	t.Helper()
	once.Do(func() { builtin, openErr = loader.Open(loader.Config{Catalog: loader.Builtin}) })
	require.NoError(t, openErr)
	return builtin
}

// Confidence is absolute: a weak match is unsure even when it has no
// rival, a strong one with a clear margin is sure.
func TestConfidenceIsAbsolute(t *testing.T) {
	assert.Equal(t, 0.0, router.Confidence(0, 0))
	weakAlone := router.Confidence(0.5, 0)
	assert.Less(t, weakAlone, router.AbstainBelow, "one stray word, no rival: still abstain")
	strong := router.Confidence(6, 2)
	assert.GreaterOrEqual(t, strong, router.HighFrom)
	assert.Greater(t, router.Confidence(6, 2), router.Confidence(6, 5.5), "a close rival lowers confidence")
	assert.Greater(t, router.Confidence(6, 2), router.Confidence(3, 1), "a stronger match raises it")
	for _, s := range []float64{0.1, 1, 5, 50, 1e6} {
		c := router.Confidence(s, 0)
		assert.True(t, c >= 0 && c <= 1, "confidence %v for score %v", c, s)
	}
	assert.Equal(t, router.Low, router.LevelOf(router.AbstainBelow-0.01))
	assert.Equal(t, router.Medium, router.LevelOf(router.AbstainBelow))
	assert.Equal(t, router.High, router.LevelOf(router.HighFrom))
}

func TestRouteAbstainsAndCloses(t *testing.T) {
	r := open(t)
	d := r.Route("thanks, that's all for today", router.Session{})
	assert.Empty(t, d.Skill)
	assert.True(t, d.Closing)
	// A break names tomorrow's work ("bug"), and asks nothing now.
	d = r.Route("今天先这样，明天再接着搞那个 bug，bye", router.Session{})
	assert.Empty(t, d.Skill)
	assert.True(t, d.Closing)
	// Nothing but acknowledgements asks nothing, though "lgtm" is a
	// review skill's keyword.
	for _, prompt := range []string{"lgtm", "lgtm, thanks!", "好的，谢谢"} {
		d = r.Route(prompt, router.Session{Recent: []string{"golang-pro"}, LastSkill: "golang-pro", LastConfidence: 0.8})
		assert.Empty(t, d.Skill, prompt)
		assert.True(t, d.Closing, prompt)
	}
	// Thanks after pasted output close: the output's words ("packages",
	// "container") are no request of the user's.
	for _, prompt := range []string{
		"$ npm install\nadded 1423 packages, and audited 1424 packages in 38s\n\nfound 0 vulnerabilities\n\nok that did it, thanks!",
		"$ docker ps\nCONTAINER ID   IMAGE        STATUS\na3f9c21e88b1   nginx:1.25   Up 2 hours\n\n好了，都起来了，谢谢！",
		// A report of success ends in thanks: pytest, the pasted command,
		// names the test skill, which the user asks nothing of.
		"```\n$ pytest -q\n........................................  [100%]\n40 passed in 2.31s\n```\nall green now, thanks a lot!",
	} {
		d = r.Route(prompt, router.Session{})
		assert.Empty(t, d.Skill, prompt)
		assert.True(t, d.Closing, prompt)
	}
	// A thanks under a pasted failure asks for help with it.
	d = r.Route("$ kubectl get pods\nNAME   READY   STATUS             RESTARTS\napi-1  0/1     CrashLoopBackOff   12\n\n谢谢", router.Session{})
	assert.False(t, d.Closing)
	assert.Equal(t, "kubernetes-specialist", d.Skill)
	d = r.Route("周末有什么好看的电影推荐吗", router.Session{})
	assert.Empty(t, d.Skill)
	assert.Equal(t, router.Low, d.Level)

	// A closing word at the start of a clear request closes nothing.
	for prompt, want := range map[string]string{
		"好的，把 Dockerfile 改成多阶段构建":       "devops-expert",
		"ok now fix the failing pytest": "tester-expert",
		"对接微信支付接口，回调要验签":                "api-integration-specialist",
	} {
		d := r.Route(prompt, router.Session{})
		assert.False(t, d.Closing, prompt)
		assert.Equal(t, want, d.Skill, prompt)
	}
}

// The session's context decides follow-ups, but a clear new request beats
// it: fusion keeps the prompt's own evidence first.
func TestContextFusion(t *testing.T) {
	r := open(t)
	recent := []string{"database-tuning-expert", "database-tuning-expert"}

	d := r.Route("继续", router.Session{Recent: recent})
	assert.Equal(t, "database-tuning-expert", d.Skill, "a continuation carries on the skill in use")

	d = r.Route("帮我给登录页写 Playwright 端到端测试", router.Session{Recent: recent})
	assert.Equal(t, "tester-expert", d.Skill, "a clear new request beats the context")
	d = r.Route("also write the Dockerfile, multi-stage, the image is 900MB", router.Session{Recent: []string{"tester-expert"}})
	assert.Equal(t, "devops-expert", d.Skill, "a cue word does not make a clear request a continuation")

	// "The same again" carries on even when the object words alone would
	// route elsewhere.
	d = r.Route("详情页也照样补上", router.Session{Recent: []string{"tester-expert", "tester-expert"}})
	assert.Equal(t, "tester-expert", d.Skill)

	// Context counts even when BM25 finds nothing (linear, not a product).
	d = r.Route("go on", router.Session{Recent: []string{"diagram-as-code-expert"}})
	assert.Equal(t, "diagram-as-code-expert", d.Skill)

	// A plugin's name for the same skill is the same skill.
	d = r.Route("继续", router.Session{Recent: []string{"skillroute:git-operation-master"}})
	assert.Equal(t, "git-operation-master", d.Skill)

	// Project type: a weak prior that breaks ties, never a route of its own.
	d = r.Route("你好", router.Session{Project: []string{"go"}})
	assert.Empty(t, d.Skill, "small talk stays silent in a Go project")
}

func TestRouteExplainNamesTheWinningKeyword(t *testing.T) {
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	r.Explain = true
	d := r.Route("这条慢查询要 8 秒，EXPLAIN 显示全表扫描", router.Session{})
	require.Equal(t, "database-tuning-expert", d.Skill)
	text := d.Explain()
	assert.Contains(t, text, "route to database-tuning-expert")
	assert.Contains(t, text, "慢查询")
	assert.Contains(t, text, "core field")
	assert.NotContains(t, text, "own words", "nothing pasted")

	// With pasted output, the explanation says what the user wrote.
	d = r.Route("$ npm install\nadded 1423 packages in 38s\n\nok that did it, thanks!", router.Session{})
	assert.Contains(t, d.Explain(), `own words: "ok that did it, thanks!" (the rest read as pasted material)`)
}

// The calibration table acts as a prior among the candidates, and the
// explanation says when it decided.
func TestCalibrationPrior(t *testing.T) {
	base, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	const prompt = "接口响应很慢，帮我看看是不是数据库的问题"
	d := base.Route(prompt, router.Session{})
	require.GreaterOrEqual(t, len(d.Candidates), 2)
	second := d.Candidates[1].Skill

	tab := &calibrate.Table{Preset: calibrate.PresetMaximizeAccuracy, Categories: map[string]calibrate.Entry{
		category.Classify(prompt): {Arm: second, Level: calibrate.LevelCalibrated},
	}}
	withTable := *base
	withTable.Table = tab
	d2 := withTable.Route(prompt, router.Session{})
	assert.Contains(t, d2.Explain(), "calibration: calibrated table")
	assert.Contains(t, d2.Prior, "favours "+second)

	// A calibrated "no skill ever helped" means no injection.
	withTable.Table = &calibrate.Table{Preset: calibrate.PresetBalanced, Categories: map[string]calibrate.Entry{category.Classify(prompt): {Level: calibrate.LevelCalibrated}}}
	silent := withTable.Route(prompt, router.Session{})
	assert.Empty(t, silent.Skill)
	assert.Contains(t, silent.Prior, "none is injected")

	// The prior level (too few samples, no fallback) leaves routing alone.
	withTable.Table = &calibrate.Table{Categories: map[string]calibrate.Entry{category.Classify(prompt): {Arm: second, Level: calibrate.LevelPrior}}}
	d3 := withTable.Route(prompt, router.Session{})
	assert.Empty(t, d3.Prior)
	assert.Equal(t, d.Skill, d3.Skill)
}

// The pipeline runs the stages the package doc lists, in that order.
func TestStagesInOrder(t *testing.T) {
	assert.Equal(t, []string{"normalise", "turn", "tokenize", "score", "followup", "signals", "fuse", "rules", "prior", "learned", "breadth", "decide", "quiet"}, router.Stages())
}

// A session's workflow statistics and project type are signals of the
// same snapshot: a habit seen often enough carries a weak follow-up.
func TestSessionSnapshotSignals(t *testing.T) {
	r := open(t)
	wf := &sctx.Workflow{}
	for range 5 {
		wf.Observe([]string{"golang-pro"}, "tester-expert")
	}
	s := router.Session{Recent: []string{"golang-pro"}, Workflow: wf, Project: []string{"go"}}
	d := r.Route("帮我看一下", s)
	var names []string
	for _, c := range d.Candidates {
		names = append(names, c.Skill)
	}
	assert.Contains(t, names, "tester-expert", "the workflow's next skill is a candidate")
	assert.Contains(t, names, "golang-pro", "the session's skill and the project's favourite are candidates")
}

// With no session, a continuation's cue words and the acknowledgement it
// opens with refer to nothing, and name no skill either: "sounds good,
// proceed" met a plain skill whose text made "sound" a keyword. What the
// prompt says besides them still routes.
func TestContinuationWithoutSessionReadsPastItsCues(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"cold-email": "---\nname: cold-email\ndescription: Write cold emails that sound human and get replies.\n---\n" +
			"Cold outreach emails should sound like a person wrote them. Read it aloud: does it sound right?\n",
		"docker-development": "---\nname: docker-development\ndescription: Write and optimise Dockerfiles and compose files.\n---\n" +
			"Multi-stage Dockerfile builds, image size, compose services.\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name, "SKILL.md"), []byte(text), 0o644))
	}
	r, err := loader.Open(loader.Config{Catalog: dir})
	require.NoError(t, err)
	for prompt, want := range map[string]string{
		"sounds good, proceed":                   "",
		"ok, go on":                              "",
		"great, now also write the Dockerfile":   "docker-development",
		"sounds good, also write the cold email": "cold-email",
	} {
		assert.Equal(t, want, r.Route(prompt, router.Session{}).Skill, prompt)
	}
	d := r.Route("sounds good, proceed", router.Session{Recent: []string{"docker-development"}})
	assert.Equal(t, "docker-development", d.Skill, "in a session the go-ahead carries it")
}

// An aside steps outside the work in hand: the session does not carry it,
// and a question that needs no skill stays silent mid-session too.
func TestAsideIsReadOnItsOwn(t *testing.T) {
	r := open(t)
	s := router.Session{Recent: []string{"regex-shell-wizard"}, LastSkill: "regex-shell-wizard", LastConfidence: 0.8}
	for _, prompt := range []string{"unrelated: how many ounces are in a pound?", "顺便问下，下周一是不是调休要上班？"} {
		d := r.Route(prompt, s)
		assert.Empty(t, d.Skill, prompt)
	}
	d := r.Route("btw, write a Dockerfile for this service", s)
	assert.Equal(t, "devops-expert", d.Skill, "an aside that asks for work routes on its own words")
}

// A rule that names a skill for a prompt whose words meet no skill at
// all routes it, just over the abstain line: the rule's author is the
// only evidence, and there is nothing it could bury. Rules naming two
// skills leave such a prompt unrouted, not decided by name order.
func TestRuleAloneRoutesJustOverTheLine(t *testing.T) {
	base := open(t)
	const prompt = "zqxv wibble"
	require.Empty(t, base.Route(prompt, router.Session{}).Candidates, "no word of it is in the index")
	rules := func(yaml string) *disambig.Set {
		set, _, err := disambig.Parse("rules.yaml", []byte(yaml), func(string) bool { return true })
		require.NoError(t, err)
		return set
	}
	one := `rules:
  - id: wibble
    note: 'a test rule'
    trigger: 'wibble'
    boost: tester-expert
    weight: 0.3
`
	r := *base
	r.Rules = rules(one)
	d := r.Route(prompt, router.Session{})
	assert.Equal(t, "tester-expert", d.Skill)
	assert.Equal(t, router.Medium, d.Level)
	assert.Less(t, d.Confidence, router.AbstainBelow+0.02, "just over the line")

	r.Rules = rules(one + `  - id: zqxv
    note: 'another test rule'
    trigger: 'zqxv'
    boost: debugger-expert
    weight: 0.3
`)
	d = r.Route(prompt, router.Session{})
	assert.Empty(t, d.Skill, "two rules, two skills: neither")
}

// A rule reads the user's own words, not pasted material: a trigger that
// only a pasted log holds fires nothing, and the same word in the request
// fires the rule.
func TestRulesReadTheUsersOwnWords(t *testing.T) {
	base := open(t)
	set, _, err := disambig.Parse("rules.yaml", []byte(`rules:
  - id: region
    note: 'a test rule'
    trigger: 'us-east-1'
    boost: cloud-architect
    weight: 0.3
`), func(string) bool { return true })
	require.NoError(t, err)
	r := *base
	r.Rules = set
	pasted := "why does this page render blank?\n```\n2026-12-03 10:00:01 ERROR fetch failed region=us-east-1 status=503\n```"
	assert.Empty(t, r.Route(pasted, router.Session{}).Rules, "the region is in the pasted log only")
	asked := "should our page's API move out of us-east-1?"
	assert.Equal(t, []string{"region"}, r.Route(asked, router.Session{}).Rules)
}
