package disambig_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/skillroute/skillroute/disambig"
)

// BenchmarkLoadCachedAndFire measures what the hook pays for the rules on
// each prompt: loading the checked rules from the cache, then firing them
// on one prompt (which numbers their literals and compiles the branches
// that pass the screen).
func BenchmarkLoadCachedAndFire(b *testing.B) {
	data, err := os.ReadFile("../rules/disambiguation.yaml")
	if err != nil {
		b.Skip(err)
	}
	set, problems, err := disambig.Parse("rules.yaml", data, func(string) bool { return true })
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "rules.bin")
	if err := set.Save(path, problems); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, _, err := disambig.LoadCached(path)
		if err != nil {
			b.Fatal(err)
		}
		s.Fired("react 页面加载慢，首屏要 4 秒")
	}
}

func BenchmarkLoadCached(b *testing.B) {
	data, err := os.ReadFile("../rules/disambiguation.yaml")
	if err != nil {
		b.Skip(err)
	}
	set, problems, _ := disambig.Parse("rules.yaml", data, func(string) bool { return true })
	path := filepath.Join(b.TempDir(), "rules.bin")
	if err := set.Save(path, problems); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := disambig.LoadCached(path); err != nil {
			b.Fatal(err)
		}
	}
}
