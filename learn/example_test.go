package learn_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/skills"
)

// A user corrected one route yesterday and confirmed another today. The
// correction moves the matched keywords of both skills; the confirmation
// reinforces the routed skill at half strength.
func ExampleLearn() {
	ix := index.Compile(&skills.Catalog{Skills: []skills.Skill{ // sorted by name
		{Name: "cache-expert", Keywords: []skills.Keyword{{Text: "Redis", Tier: skills.Core, Weight: skills.CoreWeight}}},
		{Name: "perf-expert", Keywords: []skills.Keyword{{Text: "latency", Tier: skills.Core, Weight: skills.CoreWeight}}},
	}}, nil, index.Options{})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	w := learn.Learn([]learn.Record{
		{TS: now.Add(-5 * 24 * time.Hour), Query: "Redis latency spikes", Routed: "cache-expert", Corrected: "perf-expert", Kind: learn.KindExplicit},
		{TS: now, Query: "Redis eviction policy", Routed: "cache-expert", Corrected: "cache-expert", Kind: learn.KindImplicit},
	}, ix, now)
	fmt.Printf("perf-expert  latenc %+.3f  skill %+.3f\n", w.KeywordDelta("perf-expert", "latenc"), w.SkillDelta("perf-expert"))
	fmt.Printf("cache-expert redi   %+.3f  skill %+.3f\n", w.KeywordDelta("cache-expert", "redi"), w.SkillDelta("cache-expert"))
	// Output:
	// perf-expert  latenc +0.050  skill +0.050
	// cache-expert redi   -0.025  skill -0.050
}

func ExampleClassify() {
	for _, p := range []string{
		"登录接口报错了，帮我排查一下",
		"Write unit tests for the parser",
		"帮我 review 一下这个 PR",
		"今晚要上线，部署到生产环境",
		"什么是微服务？",
		"hello",
	} {
		fmt.Println(learn.Classify(p))
	}
	// Output:
	// debug
	// test
	// review
	// deploy
	// question
	// other
}

// Build a calibration table from logged outcomes: debugging prompts are
// calibrated (the skill is right 90 % of the time, answering without it
// 40 %); deploy prompts have too few samples and take the caller's
// fallback; the rest keep the prior, the BM25 decision alone.
func ExampleBuild() {
	var samples []learn.Sample
	for i := range 30 {
		samples = append(samples,
			learn.Sample{Category: "debug", Arm: "debugger-expert", Cost: 800, Correct: float64(min(1, (i+1)%10))},
			learn.Sample{Category: "debug", Arm: "", Cost: 0, Correct: float64(i % 5 / 3)})
	}
	samples = append(samples, learn.Sample{Category: "deploy", Arm: "sre-expert", Cost: 500, Correct: 1})
	tb, err := learn.Build(samples, learn.PresetMaximizeAccuracy, learn.DefaultMinSamples, learn.DefaultTolerance,
		map[string]string{"deploy": "devops-expert"}, time.Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range []string{"debug", "deploy", "docs"} {
		e := tb.Lookup(c)
		fmt.Printf("%-6s %-16q %s\n", c, e.Arm, e.Level)
	}
	d := tb.Lookup("debug").Cells["debugger-expert"]
	fmt.Printf("debugger-expert: n %d, accuracy %.2f, lower bound %.2f\n", d.N, d.MeanAccuracy, d.Lower)
	// Output:
	// debug  "debugger-expert" calibrated
	// deploy "devops-expert"  fallback
	// docs   ""               prior
	// debugger-expert: n 30, accuracy 0.90, lower bound 0.74
}

// Hooks append feedback concurrently; learning reads it all back.
func ExampleLog() {
	dir, err := os.MkdirTemp("", "learn-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	log := &learn.Log{Dir: dir}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = log.Append(ctx, learn.Record{Session: "s1", Query: "React 组件加载慢", Routed: "frontend-expert", Corrected: "performance-expert", Kind: learn.KindExplicit, Confidence: 0.72})
	_ = log.Append(ctx, learn.Record{Session: "s1", Query: "首屏优化", Routed: "performance-expert", Corrected: "performance-expert", Kind: learn.KindImplicit, Cost: 1200})
	recs, warnings, err := log.Read()
	fmt.Println(len(recs), len(warnings), err)
	for _, r := range recs {
		fmt.Println(r.Kind, r.Routed, "->", r.Corrected, r.IsCorrection())
	}
	// Output:
	// 2 0 <nil>
	// explicit frontend-expert -> performance-expert true
	// implicit performance-expert -> performance-expert false
}

// Split is a pure function of each record: the same records always go to
// the same side.
func ExampleSplit() {
	var recs []learn.Record
	for i := range 1000 {
		recs = append(recs, learn.Record{TS: time.Unix(int64(i)*60, 0), Session: "s", Query: fmt.Sprint("q", i)})
	}
	train, test := learn.Split(recs)
	fmt.Println(len(train)+len(test), len(train) > 650 && len(train) < 750)
	// Output:
	// 1000 true
}
