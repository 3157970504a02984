package index

import (
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/skills"
)

// benchCatalog reads the catalog benchmarks run on (synth.BenchCatalog:
// $SKILLROUTE_BENCH_CATALOG, else 2,000 generated skills).
func benchCatalog(b *testing.B) *skills.Catalog {
	b.Helper()
	dir, err := synth.BenchCatalog(filepath.Join(b.TempDir(), "catalog"), 2000)
	if err != nil {
		b.Fatal(err)
	}
	cat, err := skills.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	return cat
}

// benchIndex compiles benchCatalog's catalog.
func benchIndex(b *testing.B) *Index {
	b.Helper()
	return Compile(benchCatalog(b), nil, Options{})
}

// BenchmarkSegments measures cutting every term's postings into impact
// segments, which a recompile does for the whole catalog whatever was
// edited (every weight moves with the average lengths). The postings are
// the compiled index's, already in segment order, which segmenting again
// keeps: the same work, the same result.
func BenchmarkSegments(b *testing.B) {
	ix := benchIndex(b)
	skill, weight, field := slices.Clone(ix.PostSkill), slices.Clone(ix.PostWeight), slices.Clone(ix.PostField)
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		copy(ix.PostSkill, skill)
		copy(ix.PostWeight, weight)
		copy(ix.PostField, field)
		runtime.GC()
		b.StartTimer()
		before := processCPU()
		ix.buildSegments(1, nil)
		cpu += processCPU() - before
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkRecompile measures compiling a catalog after one skill's edit,
// from the cut cache of the compile before (the cache's load and save
// included, the skills read beforehand): the catalog of benchIndex.
func BenchmarkRecompile(b *testing.B) {
	cat := benchCatalog(b)
	path := filepath.Join(b.TempDir(), "cuts.bin")
	cuts := LoadCutCache(path, "bench")
	Compile(cat, nil, Options{Cuts: cuts})
	if err := cuts.Save(path); err != nil {
		b.Fatal(err)
	}
	var cpu time.Duration
	round := 0
	for b.Loop() {
		b.StopTimer()
		cat.Skills[round%len(cat.Skills)].Body += "\nOne more line about caching."
		round++
		runtime.GC()
		b.StartTimer()
		before := processCPU()
		cuts := LoadCutCache(path, "bench")
		Compile(cat, nil, Options{Cuts: cuts})
		if err := cuts.Save(path); err != nil {
			b.Fatal(err)
		}
		if cuts.Cut() != 1 {
			b.Fatalf("%d skills cut", cuts.Cut())
		}
		cpu += processCPU() - before
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
