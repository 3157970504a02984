package router_test

import (
	"os"
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
	dir := os.Getenv("SKILLROUTE_BENCH_CATALOG")
	if dir == "" {
		dir = filepath.Join(b.TempDir(), "catalog")
		if _, err := synth.Write(dir, synth.Options{Skills: 1000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
	benchRoute(b, loader.Config{Catalog: dir}, filepath.Join(dir, "queries.jsonl"))
}
