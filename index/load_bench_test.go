package index_test

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/loader"
)

// BenchmarkLoad measures reading the compiled built-in index, which the
// hook does on every prompt.
func BenchmarkLoad(b *testing.B) {
	ix, err := loader.OpenIndex(loader.Config{Catalog: loader.Builtin})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "index.bin")
	if err := ix.Save(path); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := index.Load(path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadFile measures loading the index file
// $SKILLROUTE_BENCH_INDEX (`skillroute compile -o`, see BENCHMARKS.md),
// else that of 1,000 generated skills: what the hook does on every prompt
// at that size.
func BenchmarkLoadFile(b *testing.B) {
	path := os.Getenv("SKILLROUTE_BENCH_INDEX")
	if path == "" {
		dir := filepath.Join(b.TempDir(), "catalog")
		if _, err := synth.Write(dir, synth.Options{Skills: 1000, Seed: 1}); err != nil {
			b.Fatal(err)
		}
		ix, err := loader.OpenIndex(loader.Config{Catalog: dir})
		if err != nil {
			b.Fatal(err)
		}
		path = filepath.Join(b.TempDir(), "index.bin")
		if err := ix.Save(path); err != nil {
			b.Fatal(err)
		}
	}
	// The hook loads with the collector off (cmd/skillroute's main): so
	// does the benchmark, collecting between loads, untimed. With it on,
	// a collection that the load's own allocations start made the 100,000
	// skill load 19-29 ms of write barriers; off, it is the hook's cost.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		if _, err := index.Load(path); err != nil {
			b.Fatal(err)
		}
	}
}
