package explain_test

import (
	"fmt"

	"github.com/skillroute/skillroute/explain"
)

// A BM25 score, then a rule's boost wrapped around it.
func ExampleWrap() {
	bm25 := &explain.Node{Value: 2.1, Message: `bm25 performance-expert`, Children: []*explain.Node{
		{Value: 2.1, Message: `"首屏" exact, tf 1.800`},
	}}
	fmt.Print(explain.Wrap(2.52, "rule perf boosts performance-expert × (1 + 0.20)", bm25))
	// Output:
	// 2.5200  rule perf boosts performance-expert × (1 + 0.20)
	//   2.1000  bm25 performance-expert
	//     2.1000  "首屏" exact, tf 1.800
}
