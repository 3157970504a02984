package index_test

import (
	"path/filepath"
	"testing"

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
