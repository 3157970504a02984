package skills_test

import (
	"path/filepath"
	"testing"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/skills"
)

// BenchmarkLoadUnchanged measures what a recompile pays to make the
// skills of a catalog none of whose files changed since the frontmatter
// cache was written (none is read): the catalog $SKILLROUTE_BENCH_CATALOG
// (`skillroute bench gen`, see BENCHMARKS.md), else 2,000 generated
// skills.
func BenchmarkLoadUnchanged(b *testing.B) {
	dir, cache := cachedCatalog(b)
	b.ReportAllocs()
	for b.Loop() {
		fc := skills.LoadFrontCache(cache, "bench")
		if _, err := skills.LoadCached(dir, fc); err != nil {
			b.Fatal(err)
		}
		if fc.Read() != 0 {
			b.Fatalf("%d files read", fc.Read())
		}
	}
}

// BenchmarkKeywordTexts measures reading every keyword of skills made
// from their cached headers, as a recompile's dictionary scan does
// (index.compile): 2,000 generated skills, or $SKILLROUTE_BENCH_CATALOG.
func BenchmarkKeywordTexts(b *testing.B) {
	dir, cache := cachedCatalog(b)
	cat, err := skills.LoadCached(dir, skills.LoadFrontCache(cache, "bench"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for i := range cat.Skills {
			for w := range cat.Skills[i].KeywordTexts() {
				n += len(w)
			}
		}
	}
	if n == 0 {
		b.Fatal("no keywords")
	}
}

// cachedCatalog writes the benchmark catalog ($SKILLROUTE_BENCH_CATALOG,
// else 2,000 generated skills) and a frontmatter cache of all its files.
func cachedCatalog(b *testing.B) (dir, cache string) {
	b.Helper()
	dir, err := synth.BenchCatalog(filepath.Join(b.TempDir(), "catalog"), 2000)
	if err != nil {
		b.Fatal(err)
	}
	cache = filepath.Join(b.TempDir(), "front.bin")
	fc := skills.LoadFrontCache(cache, "bench")
	if _, err := skills.LoadCached(dir, fc); err != nil {
		b.Fatal(err)
	}
	if err := fc.Save(cache); err != nil {
		b.Fatal(err)
	}
	return dir, cache
}
