package memory_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/loader"
)

// Synthetic returns a memory of n remembered prompts over ix, each
// corrected once: the prompts of dev.jsonl, each again and again with a
// word of its own added, so that every one is a prompt of its own with
// the term statistics of real ones. It returns the set and the dev
// prompts.
func synthetic(tb testing.TB, ix *index.Index, n int) (*memory.Set, []string) {
	f, err := eval.Read(shared + "eval/dev.jsonl")
	if err != nil {
		tb.Skipf("dev.jsonl not present: %v", err)
	}
	var prompts []string
	for _, c := range f.Cases {
		prompts = append(prompts, c.Query)
	}
	tok := ix.Tokenizer()
	names := ix.SkillNames()
	s := &memory.Set{Catalog: ix.SourceHash}
	for i := range n {
		q := fmt.Sprintf("%s variant%d", prompts[i%len(prompts)], i)
		rec := feedback.Record{TS: t0.Add(-time.Duration(i) * time.Minute), Session: "bench", Query: q,
			Routed: names[i%len(names)], Corrected: names[(i+7)%len(names)], Kind: feedback.KindExplicit}
		s.Add(memory.Vectorize(ix, tok.Tokenize(q)), memory.EventOf(rec))
	}
	return s, prompts
}

// BenchmarkRecall recalls dev prompts among 1,000 and 10,000 remembered
// ones: what the learned stage adds to a route (the vector included).
func BenchmarkRecall(b *testing.B) {
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	if err != nil {
		b.Fatal(err)
	}
	tok := r.Index.Tokenizer()
	for _, n := range []int{1000, 10000} {
		s, prompts := synthetic(b, r.Index, n)
		path := filepath.Join(b.TempDir(), memory.File)
		if err := s.Save(path); err != nil {
			b.Fatal(err)
		}
		m, err := memory.Load(path)
		if err != nil {
			b.Fatal(err)
		}
		m.Now = t0
		queries := make([]memory.Vector, len(prompts))
		for i, p := range prompts {
			queries[i] = memory.Vectorize(r.Index, tok.Tokenize(p))
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				m.Recall(queries[i%len(queries)])
			}
		})
	}
}

// BenchmarkUpdate adds one event to a memory of 10,000 prompts, as the
// hook does after a skill use: read, add, prune, write (with the fsyncs
// and the verifying read of the store's cache writes).
func BenchmarkUpdate(b *testing.B) {
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	if err != nil {
		b.Fatal(err)
	}
	s, _ := synthetic(b, r.Index, 10000)
	dir := b.TempDir()
	if err := s.Save(filepath.Join(dir, memory.File)); err != nil {
		b.Fatal(err)
	}
	v := memory.Vectorize(r.Index, r.Index.Tokenizer().Tokenize("React 页面加载慢，首屏要 4 秒"))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		err := memory.Update(b.Context(), dir, t0, func(s *memory.Set, _ bool) error {
			s.Add(v, memory.Event{ID: uint64(i), TS: t0, Routed: "a", Corrected: "b"})
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadJournal loads a memory whose journal is full (MaxJournal:
// about eighty verdicts since the file was written), as every prompt then
// does; and appends one verdict, as the hook does after a skill use.
func BenchmarkLoadJournal(b *testing.B) {
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	if err != nil {
		b.Fatal(err)
	}
	s, prompts := synthetic(b, r.Index, 1000)
	dir := b.TempDir()
	if err := s.Save(filepath.Join(dir, memory.File)); err != nil {
		b.Fatal(err)
	}
	b.Run("no-journal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := memory.LoadDir(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	tok := r.Index.Tokenizer()
	for i := 0; ; i++ {
		v := memory.Vectorize(r.Index, tok.Tokenize(prompts[i%len(prompts)]))
		if err := memory.Append(b.Context(), dir, v, memory.Event{ID: uint64(i), TS: t0, Routed: "a", Corrected: "b"}, t0); err != nil {
			b.Fatal(err)
		}
		if info, err := os.Stat(filepath.Join(dir, memory.JournalFile)); err == nil && info.Size() > memory.MaxJournal*9/10 {
			break
		}
	}
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := memory.LoadDir(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	v := memory.Vectorize(r.Index, tok.Tokenize(prompts[0]))
	b.Run("append", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := memory.Append(b.Context(), b.TempDir(), v, memory.Event{ID: uint64(i), TS: t0, Routed: "a", Corrected: "b"}, t0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
