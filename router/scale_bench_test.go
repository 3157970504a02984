package router_test

import (
	"path/filepath"
	"testing"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/loader"
)

// BenchmarkRouteGenerated routes the labelled prompts of a generated
// catalog, in process: the catalog $SKILLROUTE_BENCH_CATALOG (written by
// `skillroute bench gen`, see BENCHMARKS.md), else 1,000 generated skills.
// Its allocations per route are what TestRouteAllocations bounds.
func BenchmarkRouteGenerated(b *testing.B) {
	dir, err := synth.BenchCatalog(filepath.Join(b.TempDir(), "catalog"), 1000)
	if err != nil {
		b.Fatal(err)
	}
	benchRoute(b, loader.Config{Catalog: dir}, filepath.Join(dir, "queries.jsonl"))
}
