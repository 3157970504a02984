package eval_test

import (
	"fmt"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/loader"
)

// Measure the router on labelled prompts: top-1 over the prompts that
// need a skill, and how often it stays silent on those that need none
// (expected "none"). Misses lists what went wrong.
func Example() {
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	if err != nil {
		panic(err)
	}
	cases := []eval.Case{
		{Query: "React 页面加载慢，首屏要 4 秒", Expected: "performance-expert"},
		{Query: "help me squash the last three commits before I push", Expected: "git-operation-master"},
		{Query: "thanks, that's all", Expected: "none"},
	}
	rep := eval.Summarize(eval.RouteCases(r, cases))
	fmt.Printf("top-1 %.2f over %d, silent %.2f over %d, %d missed\n",
		rep.Summary.Top1, rep.Summary.N, rep.Summary.NoneCorrect, rep.Summary.NoneN, len(rep.Misses))
	// Output:
	// top-1 1.00 over 2, silent 1.00 over 1, 0 missed
}
