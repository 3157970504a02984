package learn_test

import (
	"sort"
	"time"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/skills"
)

// t0 is the "now" of the learning tests.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// kw builds keywords of one tier at the tier's weight.
func kw(tier skills.Tier, words ...string) []skills.Keyword {
	out := make([]skills.Keyword, len(words))
	for i, w := range words {
		out[i] = skills.Keyword{Text: w, Tier: tier, Weight: tier.Weight()}
	}
	return out
}

// testIndex compiles a two-skill catalog, sorted by name as a loaded
// catalog is. "redis latency" scores both skills exactly alike, so the
// name order (cache-expert) decides until something is learned.
func testIndex() *index.Index {
	list := []skills.Skill{
		{Name: "perf-expert", Keywords: append(kw(skills.Core, "latency"), kw(skills.Strong, "slow")...)},
		{Name: "cache-expert", Keywords: append(kw(skills.Core, "redis"), kw(skills.Strong, "缓存")...)},
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return index.Compile(&skills.Catalog{Skills: list}, nil, index.Options{})
}

// router routes as the router package does with learned weights: BM25
// with the deltas applied to tf and skill scores, best first.
func router(ix *index.Index, w *learn.Weights) func(string) string {
	return func(query string) string {
		var adj bm25.Adjuster
		if w != nil {
			adj = w
		}
		rs := bm25.ScoreWith(ix, ix.Tokenizer().Tokenize(query), adj)
		if len(rs) == 0 {
			return ""
		}
		return rs[0].Name
	}
}
