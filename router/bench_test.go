package router_test

import (
	"testing"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

// prompts reads the prompts of an eval file, skipping the benchmark when
// the file is absent.
func prompts(b *testing.B, path string) []string {
	f, err := eval.Read(path)
	if err != nil {
		b.Skipf("%s: %v", path, err)
	}
	return f.Prompts()
}

func benchRoute(b *testing.B, opt loader.Config, file string) {
	qs := prompts(b, file)
	r, err := loader.Open(opt)
	if err != nil {
		b.Skipf("cannot open router: %v", err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r.Route(qs[i%len(qs)], router.Session{})
	}
}

// BenchmarkRoute measures one in-process route over the built-in catalog,
// cycling through the dev prompts.
func BenchmarkRoute(b *testing.B) {
	benchRoute(b, loader.Config{Catalog: loader.Builtin}, "../../shared/eval/dev.jsonl")
}

// BenchmarkRouteBookworm routes the peer's golden prompts over the peer's
// own 66-skill catalog, rules and synonyms.
func BenchmarkRouteBookworm(b *testing.B) {
	benchRoute(b, bookwormSet.opt, bookwormSet.prompts)
}

// BenchmarkRouteRealDev routes real-dev's prompts over its 44 published
// skills: plain skills, their keywords derived, where near ties are
// common (the breadth stage acts on them).
func BenchmarkRouteRealDev(b *testing.B) {
	benchRoute(b, realDevSet.opt, realDevSet.prompts)
}

// benchSet is a catalog the benchmarks route over, and its prompts.
type benchSet struct {
	opt     loader.Config
	prompts string
}

const (
	bookwormDir = "../../shared/bookworm/"
	realDevDir  = "../../shared/eval/real-dev/"
)

var (
	bookwormSet = benchSet{loader.Config{Catalog: bookwormDir + "skills-index.json", Rules: bookwormDir + "disambiguation-rules.json",
		Synonyms: bookwormDir + "synonyms.json"}, bookwormDir + "golden-dev.jsonl"}
	realDevSet = benchSet{loader.Config{Catalog: realDevDir + "skills"}, realDevDir + "prompts.jsonl"}
)
