package feedback_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/skillroute/skillroute/learn/feedback"
)

// Hooks append feedback concurrently; learning reads it all back.
func ExampleLog() {
	dir, err := os.MkdirTemp("", "learn-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	log := &feedback.Log{Dir: dir}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = log.Append(ctx, feedback.Record{Session: "s1", Query: "React 组件加载慢", Routed: "frontend-expert", Corrected: "performance-expert", Kind: feedback.KindExplicit, Confidence: 0.72})
	_ = log.Append(ctx, feedback.Record{Session: "s1", Query: "首屏优化", Routed: "performance-expert", Corrected: "performance-expert", Kind: feedback.KindImplicit, Cost: 1200})
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
