package learn_test

import (
	"fmt"
	"time"

	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/feedback"
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
	w := learn.Learn([]feedback.Record{
		{TS: now.Add(-5 * 24 * time.Hour), Query: "Redis latency spikes", Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindExplicit},
		{TS: now, Query: "Redis eviction policy", Routed: "cache-expert", Corrected: "cache-expert", Kind: feedback.KindImplicit},
	}, ix, now)
	fmt.Printf("perf-expert  latenc %+.3f  skill %+.3f\n", w.KeywordDelta("perf-expert", "latenc"), w.SkillDelta("perf-expert"))
	fmt.Printf("cache-expert redi   %+.3f  skill %+.3f\n", w.KeywordDelta("cache-expert", "redi"), w.SkillDelta("cache-expert"))
	// Output:
	// perf-expert  latenc +0.050  skill +0.050
	// cache-expert redi   -0.025  skill -0.050
}

// Split is a pure function of each record: the same records always go to
// the same side.
func ExampleSplit() {
	var recs []feedback.Record
	for i := range 1000 {
		recs = append(recs, feedback.Record{TS: time.Unix(int64(i)*60, 0), Session: "s", Query: fmt.Sprint("q", i)})
	}
	train, test := learn.Split(recs)
	fmt.Println(len(train)+len(test), len(train) > 650 && len(train) < 750)
	// Output:
	// 1000 true
}
