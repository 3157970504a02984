package disambig_test

import (
	"github.com/skillroute/skillroute/tokenize"
	"testing"

	"github.com/skillroute/skillroute/disambig"
)

// BenchmarkLoadCachedAndFire measures what the hook pays for the rules on
// each prompt: loading the checked rules from the cache, then firing them
// on one prompt (which compiles the branches that pass the screen).
func BenchmarkLoadCachedAndFire(b *testing.B) {
	_, path := builtinCache(b)
	b.ReportAllocs()
	for b.Loop() {
		s, _, err := disambig.LoadCached(path)
		if err != nil {
			b.Fatal(err)
		}
		s.Fired(tokenize.NewText("react 页面加载慢，首屏要 4 秒"))
	}
}

// BenchmarkLoadCached measures loading the checked rules alone.
func BenchmarkLoadCached(b *testing.B) {
	_, path := builtinCache(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := disambig.LoadCached(path); err != nil {
			b.Fatal(err)
		}
	}
}
