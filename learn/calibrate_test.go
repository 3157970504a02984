package learn_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/learn"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		prompt string
		want   string
	}{
		// English
		{"Fix the crash when the user logs out", learn.CategoryDebug},
		{"I'm debugging a memory leak in the worker", learn.CategoryDebug},
		{"the login page doesn't work after the upgrade", learn.CategoryDebug},
		{"why does this throw an exception?", learn.CategoryDebug},
		{"fix the failing test", learn.CategoryDebug}, // tie: debug precedes test
		{"Write unit tests for the parser", learn.CategoryTest},
		{"add pytest coverage for utils.py", learn.CategoryTest},
		{"Review my pull request please", learn.CategoryReview},
		{"can you audit this module for code smells", learn.CategoryReview},
		{"Deploy the service to k8s with helm", learn.CategoryDeploy},
		{"set up ci/cd for the release", learn.CategoryDeploy},
		{"Update the README and the changelog", learn.CategoryDocs},
		{"write docstrings for these functions", learn.CategoryDocs},
		{"Analyze the sales dataset with pandas", learn.CategoryData},
		{"optimize these SQL queries", learn.CategoryData},
		{"Design the architecture for a chat system", learn.CategoryDesign},
		{"make a wireframe of the settings UI", learn.CategoryDesign},
		{"Implement OAuth login", learn.CategoryImplement},
		{"add a dark mode feature", learn.CategoryImplement},
		{"refactor the payment module", learn.CategoryImplement},
		{"What is the difference between Redis and Memcached?", learn.CategoryQuestion},
		{"how does garbage collection work in Go", learn.CategoryQuestion},
		{"hello there", learn.CategoryOther},
		{"", learn.CategoryOther},
		// whole words only: "fixture" is not "fix", "prefix" is not "fix"
		{"rename the prefix variable", learn.CategoryOther},
		// Chinese
		{"登录接口报错了，帮我排查一下", learn.CategoryDebug},
		{"App 启动就闪退", learn.CategoryDebug},
		{"给这个函数写单元测试", learn.CategoryTest},
		{"补一下用例，覆盖率太低", learn.CategoryTest},
		{"帮我审查一下这段代码", learn.CategoryReview},
		{"今晚要上线，部署到生产环境", learn.CategoryDeploy},
		{"出问题了，赶紧回滚", learn.CategoryDeploy},
		{"给接口补充文档和注释", learn.CategoryDocs},
		{"统计一下上个月的订单数据", learn.CategoryData},
		{"设计一下消息系统的架构", learn.CategoryDesign},
		{"帮我实现一个登录功能", learn.CategoryImplement},
		{"什么是微服务？", learn.CategoryQuestion},
		{"Redis 和 Memcached 有什么区别", learn.CategoryQuestion},
		{"你好", learn.CategoryOther},
		// mixed
		{"React 页面报错 TypeError", learn.CategoryDebug},
		{"帮我 review 一下这个 PR", learn.CategoryReview},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			assert.Equal(t, tt.want, learn.Classify(tt.prompt))
		})
	}
	// Every result is a listed category.
	cats := map[string]bool{}
	for _, c := range learn.Categories() {
		cats[c] = true
	}
	for _, tt := range tests {
		assert.True(t, cats[learn.Classify(tt.prompt)])
	}
	assert.Len(t, cats, 10)
}

func TestWilson(t *testing.T) {
	tests := []struct {
		p    float64
		n    int
		want float64
	}{
		{0, 0, 0},
		{1, 10, 0.7225},
		{0.5, 100, 0.4038},
		{0.9, 50, 0.7864},
		{0, 10, 0},
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, learn.Wilson(tt.p, tt.n), 1e-4, "p %v n %v", tt.p, tt.n)
	}
}

// cell returns n samples of one arm with the given mean accuracy (k of n
// right) and cost.
func cell(cat, arm string, n, right int, cost float64) []learn.Sample {
	out := make([]learn.Sample, n)
	for i := range out {
		out[i] = learn.Sample{Category: cat, Arm: arm, Cost: cost}
		if i < right {
			out[i].Correct = 1
		}
	}
	return out
}

func cat(parts ...[]learn.Sample) []learn.Sample {
	var out []learn.Sample
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestAggregate(t *testing.T) {
	agg := learn.Aggregate(cat(
		cell("debug", "a", 4, 3, 100),
		[]learn.Sample{{Category: "debug", Arm: "b", Cost: -5, Correct: 2}, {Category: "debug", Arm: "b", Cost: 10, Correct: 0.5}},
		cell("docs", "a", 1, 0, 7),
	))
	require.Len(t, agg, 2)
	a := agg["debug"]["a"]
	assert.Equal(t, 4, a.N)
	assert.InDelta(t, 100, a.MeanCost, 1e-12)
	assert.InDelta(t, 0.75, a.MeanAccuracy, 1e-12)
	assert.InDelta(t, learn.Wilson(0.75, 4), a.Lower, 1e-12)
	b := agg["debug"]["b"]
	assert.InDelta(t, 5, b.MeanCost, 1e-12, "negative cost counts as 0")
	assert.InDelta(t, 0.75, b.MeanAccuracy, 1e-12, "correct clamped to 1")
	assert.Empty(t, learn.Aggregate(nil))
}

func TestSelect(t *testing.T) {
	const mc, bal, ma = learn.PresetMinimizeCost, learn.PresetBalanced, learn.PresetMaximizeAccuracy
	tests := []struct {
		name      string
		samples   []learn.Sample
		preset    string
		tolerance float64
		want      string
		ok        bool
	}{
		// 46/50 = 0.92 and 45/50 = 0.90: 0.92 − 0.02 is 0.9000000000000001
		// in floats; the epsilon keeps the exact 2-point gap inside.
		{"exact tolerance boundary: cheaper qualifies", cat(cell("c", "full", 50, 46, 900), cell("c", "summary", 50, 45, 300)), mc, 0.02, "summary", true},
		{"just outside tolerance", cat(cell("c", "full", 50, 46, 900), cell("c", "summary", 50, 45, 300)), mc, 0.019, "full", true},
		{"no cheaper arm within tolerance: the best", cat(cell("c", "full", 50, 48, 900), cell("c", "summary", 50, 30, 300)), mc, 0.02, "full", true},
		{"minimize-cost equal cost: the more accurate", cat(cell("c", "a", 50, 45, 300), cell("c", "b", 50, 46, 300)), mc, 0.02, "b", true},
		{"minimize-cost full tie: first seen", cat(cell("c", "zz", 20, 18, 300), cell("c", "aa", 20, 18, 300)), mc, 0.02, "zz", true},
		{"minimize-cost zero-cost arm within tolerance", cat(cell("c", "skill", 20, 18, 500), cell("c", "", 20, 18, 0)), mc, 0.02, "", true},

		{"balanced: cost per correct", cat(cell("c", "full", 20, 20, 1000), cell("c", "summary", 20, 10, 300)), bal, 0.02, "summary", true},
		{"balanced: zero-cost arm with accuracy wins", cat(cell("c", "full", 20, 20, 1000), cell("c", "free", 20, 2, 0)), bal, 0.02, "free", true},
		{"balanced: zero-cost arm never right cannot win", cat(cell("c", "full", 20, 20, 1000), cell("c", "free", 20, 0, 0)), bal, 0.02, "full", true},
		{"balanced: two free arms, the more accurate", cat(cell("c", "free1", 20, 5, 0), cell("c", "free2", 20, 15, 0)), bal, 0.02, "free2", true},
		{"balanced: equal ratio and accuracy: first seen", cat(cell("c", "b", 20, 10, 100), cell("c", "a", 20, 10, 100)), bal, 0.02, "b", true},

		{"maximize-accuracy", cat(cell("c", "cheap", 20, 15, 10), cell("c", "best", 20, 19, 1000)), ma, 0.02, "best", true},
		{"maximize-accuracy tie: the cheaper", cat(cell("c", "dear", 20, 19, 1000), cell("c", "cheap", 20, 19, 10)), ma, 0.02, "cheap", true},
		{"maximize-accuracy full tie: first seen", cat(cell("c", "second", 20, 19, 10), cell("c", "first", 20, 19, 10)), ma, 0.02, "second", true},

		// Nothing was ever right: no injection, whatever the preset.
		{"all zero: balanced injects nothing", cat(cell("c", "a", 20, 0, 100), cell("c", "b", 20, 0, 0)), bal, 0.02, "", true},
		{"all zero: minimize-cost injects nothing", cat(cell("c", "a", 20, 0, 100), cell("c", "b", 20, 0, 5)), mc, 0.02, "", true},
		{"all zero: maximize-accuracy injects nothing", cat(cell("c", "a", 20, 0, 100), cell("c", "b", 20, 0, 5)), ma, 0.02, "", true},

		{"cells under the minimum are not eligible", cat(cell("c", "lucky", 5, 5, 0), cell("c", "steady", 20, 10, 100)), bal, 0.02, "steady", true},
		{"no cell has the minimum", cat(cell("c", "a", 9, 9, 1)), ma, 0.02, "", false},
		{"no cells", nil, ma, 0.02, "", false},
		{"unknown arm names pass through", cat(cell("c", "plugin:some-new-skill", 20, 19, 5)), ma, 0.02, "plugin:some-new-skill", true},
		{"unknown preset", cat(cell("c", "a", 20, 19, 5)), "fastest", 0.02, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arm, ok := learn.Select(learn.Aggregate(tt.samples)["c"], tt.preset, 10, tt.tolerance)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, arm)
		})
	}
}

func TestBuild(t *testing.T) {
	samples := cat(
		cell("debug", "debugger-expert", 30, 27, 800), // calibrated
		cell("debug", "", 30, 12, 0),
		cell("test", "tester-expert", 5, 5, 600),      // too few, fallback has it
		cell("docs", "tech-writer-expert", 3, 3, 400), // too few, no fallback
		cell("astrology", "star-expert", 12, 12, 50),  // an unknown category passes through
	)
	fallback := map[string]string{"test": "tester-expert", "deploy": "devops-expert", "custom": "x"}
	tb, err := learn.Build(samples, learn.PresetMaximizeAccuracy, 0, -1, fallback, t0)
	require.NoError(t, err)
	assert.Equal(t, learn.TableVersion, tb.Version)
	assert.Equal(t, learn.DefaultMinSamples, tb.MinSamples, "0 means the default")
	assert.Equal(t, learn.DefaultTolerance, tb.Tolerance, "negative means the default")
	assert.Equal(t, len(samples), tb.Samples)
	assert.Equal(t, t0, tb.Built)

	tests := []struct {
		category string
		arm      string
		level    string
		cells    int
	}{
		{"debug", "debugger-expert", learn.LevelCalibrated, 2},
		{"test", "tester-expert", learn.LevelFallback, 1},   // too few samples -> fallback table
		{"deploy", "devops-expert", learn.LevelFallback, 0}, // no samples -> fallback table
		{"docs", "", learn.LevelPrior, 1},                   // too few, no fallback -> prior
		{"design", "", learn.LevelPrior, 0},                 // nothing at all -> prior
		{"astrology", "star-expert", learn.LevelCalibrated, 1},
		{"custom", "x", learn.LevelFallback, 0},
		{"other", "", learn.LevelPrior, 0},
	}
	for _, tt := range tests {
		t.Run(tt.category, func(t *testing.T) {
			e, ok := tb.Categories[tt.category]
			require.True(t, ok)
			assert.Equal(t, tt.arm, e.Arm)
			assert.Equal(t, tt.level, e.Level)
			assert.Len(t, e.Cells, tt.cells)
			assert.Equal(t, e, tb.Lookup(tt.category))
		})
	}
	for _, c := range learn.Categories() {
		assert.Contains(t, tb.Categories, c, "every category has an entry")
	}
	assert.Equal(t, learn.Entry{Level: learn.LevelPrior}, tb.Lookup("never-heard-of"))
	assert.Equal(t, learn.Entry{Level: learn.LevelPrior}, (*learn.Table)(nil).Lookup("debug"))

	// The cells keep their numbers for provenance.
	assert.Equal(t, 30, tb.Categories["debug"].Cells["debugger-expert"].N)
	assert.InDelta(t, 0.9, tb.Categories["debug"].Cells["debugger-expert"].MeanAccuracy, 1e-12)

	// Save and load.
	path := filepath.Join(t.TempDir(), "calibration.json")
	require.NoError(t, tb.Save(path))
	got, err := learn.LoadTable(path)
	require.NoError(t, err)
	assert.Equal(t, tb, got)

	_, err = learn.Build(samples, "cheapest", 10, 0.02, nil, t0)
	assert.ErrorContains(t, err, `unknown preset "cheapest"`)
}

func TestBuildPresets(t *testing.T) {
	// One category, three arms: each preset picks differently.
	samples := cat(
		cell("implement", "full", 40, 38, 2000),   // 0.95, 2105 per correct
		cell("implement", "summary", 40, 37, 400), // 0.925, 432 per correct
		cell("implement", "", 40, 20, 0),          // 0.5, free
	)
	tests := []struct {
		preset    string
		tolerance float64
		want      string
	}{
		{learn.PresetMaximizeAccuracy, 0.02, "full"},
		{learn.PresetMinimizeCost, 0.02, "full"},     // 0.925 is 2.5 points off
		{learn.PresetMinimizeCost, 0.025, "summary"}, // now within
		{learn.PresetMinimizeCost, 0.5, ""},          // anything goes: the free arm
		{learn.PresetBalanced, 0.02, ""},             // free and sometimes right
	}
	for _, tt := range tests {
		t.Run(tt.preset, func(t *testing.T) {
			tb, err := learn.Build(samples, tt.preset, 10, tt.tolerance, nil, t0)
			require.NoError(t, err)
			e := tb.Lookup("implement")
			assert.Equal(t, tt.want, e.Arm)
			assert.Equal(t, learn.LevelCalibrated, e.Level)
		})
	}
}

func TestLoadTableErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := learn.LoadTable(filepath.Join(dir, "missing.json"))
	assert.Error(t, err)
	tb := &learn.Table{Version: 42}
	require.NoError(t, tb.Save(filepath.Join(dir, "old.json")))
	_, err = learn.LoadTable(filepath.Join(dir, "old.json"))
	assert.ErrorContains(t, err, "version 42")
}

func TestSamplesFromRecords(t *testing.T) {
	recs := []learn.Record{
		{Query: "登录接口报错了", Routed: "debugger-expert", Corrected: "debugger-expert", Cost: 800},
		{Query: "write unit tests", Routed: "developer-expert", Corrected: "tester-expert", Cost: 600},
		{Query: "hello", Routed: "", Corrected: ""},
		{Query: "deploy to prod", Routed: "", Corrected: "devops-expert"},
	}
	want := []learn.Sample{
		{Category: learn.CategoryDebug, Arm: "debugger-expert", Cost: 800, Correct: 1},
		{Category: learn.CategoryTest, Arm: "developer-expert", Cost: 600, Correct: 0},
		{Category: learn.CategoryOther, Arm: "", Cost: 0, Correct: 1},
		{Category: learn.CategoryDeploy, Arm: "", Cost: 0, Correct: 0},
	}
	assert.Equal(t, want, learn.SamplesFromRecords(recs))
	assert.Empty(t, learn.SamplesFromRecords(nil))
}
