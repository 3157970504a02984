package router_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

// prompts reads the queries of a JSONL eval file, skipping the benchmark
// when the file is absent.
func prompts(b *testing.B, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		b.Skipf("%s not present: %v", path, err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c struct{ Query string }
		if json.Unmarshal(sc.Bytes(), &c) == nil && c.Query != "" {
			out = append(out, c.Query)
		}
	}
	return out
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
	const bw = "../../shared/bookworm/"
	benchRoute(b, loader.Config{Catalog: bw + "skills-index.json", Rules: bw + "disambiguation-rules.json", Synonyms: bw + "synonyms.json"},
		bw+"golden-dev.jsonl")
}
