package router_test

import (
	"testing"

	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/tokenize"

	"github.com/skillroute/skillroute/bm25"
)

func BenchmarkStagesBookworm(b *testing.B) {
	const bw = "../../shared/bookworm/"
	qs := prompts(b, bw+"golden-dev.jsonl")
	r, err := loader.Open(loader.Config{Catalog: bw + "skills-index.json", Rules: bw + "disambiguation-rules.json", Synonyms: bw + "synonyms.json"})
	if err != nil {
		b.Skip(err)
	}
	tok := r.Index.Tokenizer()
	b.Run("tokenize", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			tok.Tokenize(qs[i%len(qs)])
		}
	})
	b.Run("score", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			bm25.Score(r.Index, tok.Tokenize(qs[i%len(qs)]))
		}
	})
	b.Run("rules", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			r.Rules.Fired(tokenize.NewText(qs[i%len(qs)]))
		}
	})
}
