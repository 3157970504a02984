package router_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

// TestBreadthTradeoff measures the breadth stage on the dev sets: each
// routed with the stage and without it. The built-in catalog's sets do
// not move (their skills' keywords are written); on real-dev's catalog
// the stage gains prompts over the sets and costs at most one a set.
// go test ./router -run TestBreadthTradeoff -v prints the figures.
func TestBreadthTradeoff(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared (design data) is absent")
	}
	realDev := loader.Config{Catalog: filepath.Join(shared, "eval/real-dev/skills")}
	builtin := loader.Config{Catalog: loader.Builtin}
	gained := 0
	for _, set := range []struct {
		name string
		cfg  loader.Config
		file string
	}{
		{"dev.jsonl", builtin, filepath.Join(shared, "eval/dev.jsonl")},
		{"fresh2", builtin, "../eval/testdata/fresh2.jsonl"},
		{"paraphrase", builtin, "../eval/testdata/paraphrase.jsonl"},
		{"real-dev", realDev, filepath.Join(shared, "eval/real-dev/prompts.jsonl")},
		{"real-fresh", realDev, "../eval/testdata/real-fresh.jsonl"},
		{"real-fresh2", realDev, "../eval/testdata/real-fresh2.jsonl"},
		{"train-real", realDev, "../eval/testdata/train-real.jsonl"},
		{"train-noisy3", realDev, "../eval/testdata/train-noisy3.jsonl"},
	} {
		f, err := eval.Read(set.file)
		require.NoError(t, err)
		r, err := loader.Open(set.cfg)
		require.NoError(t, err)
		right := func() int {
			s := eval.Summarize(eval.RouteCases(r, f.Cases)).Summary
			return int(s.Top1*float64(s.N)+0.5) + int(s.NoneCorrect*float64(s.NoneN)+0.5)
		}
		with := right()
		restore := router.WithoutStage("breadth")
		without := right()
		restore()
		t.Logf("%-12s right %d with the stage, %d without", set.name, with, without)
		if set.cfg.Catalog == loader.Builtin {
			assert.Equal(t, without, with, set.name)
		}
		assert.GreaterOrEqual(t, with, without-1, set.name)
		gained += with - without
	}
	assert.GreaterOrEqual(t, gained, 4, "prompts gained over the sets")
}
