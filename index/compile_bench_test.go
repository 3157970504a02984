package index

import (
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/skills"
)

// benchIndex compiles the catalog $SKILLROUTE_BENCH_CATALOG (a folder
// `skillroute bench gen` wrote, see BENCHMARKS.md), else 2,000 generated
// skills.
func benchIndex(b *testing.B) *Index {
	b.Helper()
	var cat *skills.Catalog
	if dir := os.Getenv("SKILLROUTE_BENCH_CATALOG"); dir != "" {
		var err error
		if cat, err = skills.Load(dir); err != nil {
			b.Fatal(err)
		}
	} else {
		set, err := synth.Generate(synth.Options{Skills: 2000, Seed: 1, Queries: 1})
		if err != nil {
			b.Fatal(err)
		}
		cat = &skills.Catalog{}
		for _, f := range set.Files {
			sk, err := skills.Parse(f.Name+"/SKILL.md", f.Name, f.Data)
			if err != nil {
				b.Fatal(err)
			}
			cat.Skills = append(cat.Skills, sk)
		}
	}
	return Compile(cat, nil, Options{})
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
		ix.buildSegments(1)
		cpu += processCPU() - before
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
