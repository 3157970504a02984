package bm25

import (
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/tokenize"
)

// TopKPruned is TopK's pruned search whatever the catalog's size, for
// TestTopKExact to check on small catalogs too.
func TopKPruned(ix *index.Index, q tokenize.Query, adj Bounded, k int, also []int) []Result {
	kwScale, skillScale := 1.0, 1.0
	if adj != nil {
		kd, sd := adj.MaxDeltas()
		kwScale, skillScale = max(1, 1+kd), max(1, 1+sd)
	}
	return pruned(ix, q, adj, k, also, kwScale, skillScale)
}
