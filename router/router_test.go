package router_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/skillroute/skillroute/learn/calibrate"
	"github.com/skillroute/skillroute/learn/category"
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
	once.Do(func() { builtin, openErr = router.Open(router.Options{Catalog: router.Builtin}) })
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
	d := r.Route("thanks, that's all for today")
	assert.Empty(t, d.Skill)
	assert.True(t, d.Closing)
	d = r.Route("周末有什么好看的电影推荐吗")
	assert.Empty(t, d.Skill)
	assert.Equal(t, router.Low, d.Level)

	// A closing word at the start of a clear request closes nothing.
	for prompt, want := range map[string]string{
		"好的，把 Dockerfile 改成多阶段构建":       "devops-expert",
		"ok now fix the failing pytest": "tester-expert",
		"对接微信支付接口，回调要验签":                "api-integration-specialist",
	} {
		d := r.Route(prompt)
		assert.False(t, d.Closing, prompt)
		assert.Equal(t, want, d.Skill, prompt)
	}
}

// The session's context decides follow-ups, but a clear new request beats
// it: fusion keeps the prompt's own evidence first.
func TestContextFusion(t *testing.T) {
	r := open(t)
	recent := []string{"database-tuning-expert", "database-tuning-expert"}

	d := r.RouteWith("继续", router.Signals{Recent: recent})
	assert.Equal(t, "database-tuning-expert", d.Skill, "a continuation carries on the skill in use")

	d = r.RouteWith("帮我给登录页写 Playwright 端到端测试", router.Signals{Recent: recent})
	assert.Equal(t, "tester-expert", d.Skill, "a clear new request beats the context")
	d = r.RouteWith("also write the Dockerfile, multi-stage, the image is 900MB", router.Signals{Recent: []string{"tester-expert"}})
	assert.Equal(t, "devops-expert", d.Skill, "a cue word does not make a clear request a continuation")

	// "The same again" carries on even when the object words alone would
	// route elsewhere.
	d = r.RouteWith("详情页也照样补上", router.Signals{Recent: []string{"tester-expert", "tester-expert"}})
	assert.Equal(t, "tester-expert", d.Skill)

	// Context counts even when BM25 finds nothing (linear, not a product).
	d = r.RouteWith("go on", router.Signals{Recent: []string{"diagram-as-code-expert"}})
	assert.Equal(t, "diagram-as-code-expert", d.Skill)

	// A plugin's name for the same skill is the same skill.
	d = r.RouteWith("继续", router.Signals{Recent: []string{"skillroute:git-operation-master"}})
	assert.Equal(t, "git-operation-master", d.Skill)

	// Project type: a weak prior that breaks ties, never a route of its own.
	d = r.RouteWith("你好", router.Signals{Project: map[string]float64{"golang-pro": 1}})
	assert.Empty(t, d.Skill, "small talk stays silent in a Go project")
}

func TestRouteExplainNamesTheWinningKeyword(t *testing.T) {
	r, err := router.Open(router.Options{Catalog: router.Builtin})
	require.NoError(t, err)
	r.Explain = true
	d := r.Route("这条慢查询要 8 秒，EXPLAIN 显示全表扫描")
	require.Equal(t, "database-tuning-expert", d.Skill)
	text := d.Explain()
	assert.Contains(t, text, "route to database-tuning-expert")
	assert.Contains(t, text, "慢查询")
	assert.Contains(t, text, "core field")
}

// The calibration table acts as a prior among the candidates, and the
// explanation says when it decided.
func TestCalibrationPrior(t *testing.T) {
	base, err := router.Open(router.Options{Catalog: router.Builtin})
	require.NoError(t, err)
	const prompt = "接口响应很慢，帮我看看是不是数据库的问题"
	d := base.Route(prompt)
	require.GreaterOrEqual(t, len(d.Candidates), 2)
	second := d.Candidates[1].Skill

	tab := &calibrate.Table{Preset: calibrate.PresetMaximizeAccuracy, Categories: map[string]calibrate.Entry{
		category.Classify(prompt): {Arm: second, Level: calibrate.LevelCalibrated},
	}}
	withTable := *base
	withTable.Table = tab
	d2 := withTable.Route(prompt)
	assert.Contains(t, d2.Explain(), "calibration: calibrated table")
	assert.Contains(t, d2.Prior, "favours "+second)

	// A calibrated "no skill ever helped" means no injection.
	withTable.Table = &calibrate.Table{Preset: calibrate.PresetBalanced, Categories: map[string]calibrate.Entry{category.Classify(prompt): {Level: calibrate.LevelCalibrated}}}
	silent := withTable.Route(prompt)
	assert.Empty(t, silent.Skill)
	assert.Contains(t, silent.Prior, "none is injected")

	// The prior level (too few samples, no fallback) leaves routing alone.
	withTable.Table = &calibrate.Table{Categories: map[string]calibrate.Entry{category.Classify(prompt): {Arm: second, Level: calibrate.LevelPrior}}}
	d3 := withTable.Route(prompt)
	assert.Empty(t, d3.Prior)
	assert.Equal(t, d.Skill, d3.Skill)
}

// The built-in rules fit any catalog: rules about skills that are not
// installed drop out instead of failing, and names match plugin skills.
func TestBuiltinRulesFitAnyCatalog(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name, "SKILL.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("security-expert", "---\nname: skillroute:security-expert\ndescription: application security, pentests, XSS, SQL injection\n---\n")
	write("invoice-helper", "---\ndescription: invoices and VAT\n---\n")
	r, err := router.Open(router.Options{Catalog: dir})
	require.NoError(t, err, "rules naming absent skills must not stop the router")
	for _, rule := range r.Rules.Rules {
		assert.Equal(t, "skillroute:security-expert", rule.Boost, "only rules about installed skills stay, by their catalog name")
	}
	require.NotEmpty(t, r.Rules.Rules)
	d := r.Route("plan a pentest of the login page: XSS and SQL injection first")
	assert.Equal(t, "skillroute:security-expert", d.Skill)
	assert.Contains(t, d.Rules, "test-pentest", "the built-in rule fired for the plugin's skill")
}

// A cache damaged on disk is rebuilt or, where its checks pass, routes
// without a panic: the hook must never crash on a bad file.
func TestDamagedCacheNeverPanics(t *testing.T) {
	cache := t.TempDir()
	opt := router.Options{Catalog: router.Builtin, CacheDir: cache}
	_, err := router.Open(opt)
	require.NoError(t, err)
	files, _ := filepath.Glob(filepath.Join(cache, "*.bin"))
	require.Len(t, files, 2, "an index and a rules cache")
	originals := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		originals[f] = data
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for round := 0; round < 25; round++ {
		for f, data := range originals {
			damaged := append([]byte(nil), data...)
			for k := 0; k < 4; k++ {
				damaged[rng.IntN(len(damaged))] ^= byte(1 + rng.IntN(255))
			}
			require.NoError(t, os.WriteFile(f, damaged, 0o644))
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("round %d: panic: %v", round, p)
				}
			}()
			r, err := router.Open(opt)
			if err != nil {
				return
			}
			for _, p := range []string{"React 页面加载慢", "渗透测试报告怎么写", "git rebase conflict", "继续"} {
				r.Route(p)
			}
		}()
	}
}
