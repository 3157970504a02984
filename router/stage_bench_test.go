package router_test

import (
	"testing"

	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/tokenize"

	"github.com/skillroute/skillroute/bm25"
)

// benchStages times the router's first stages one by one over the prompts
// of file: cutting the prompt, scoring it, firing the rules.
func benchStages(b *testing.B, opt loader.Config, file string) {
	qs := prompts(b, file)
	r, err := loader.Open(opt)
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

func BenchmarkStagesBookworm(b *testing.B) { benchStages(b, bookwormSet.opt, bookwormSet.prompts) }

// BenchmarkStagesRealDev: the stages over real-dev's published skills,
// whose prompts are a third Chinese.
func BenchmarkStagesRealDev(b *testing.B) { benchStages(b, realDevSet.opt, realDevSet.prompts) }
