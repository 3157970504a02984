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

// TestQuietTradeoff measures what the quiet stage trades, the figures of
// the README's table: each set routed with the stage and without it. The
// stage may cost a skill prompt a set (a question it silences), and on
// the held-out sets it must keep more no-skill prompts silent than it
// costs. go test ./router -run TestQuietTradeoff -v prints the table.
func TestQuietTradeoff(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared (design data) is absent")
	}
	realDev := loader.Config{Catalog: filepath.Join(shared, "eval/real-dev/skills")}
	builtin := loader.Config{Catalog: loader.Builtin}
	for _, set := range []struct {
		name    string
		cfg     loader.Config
		file    string
		heldOut bool
	}{
		{"dev.jsonl", builtin, filepath.Join(shared, "eval/dev.jsonl"), false},
		{"fresh2", builtin, "../eval/testdata/fresh2.jsonl", true},
		{"fresh3", builtin, "../eval/testdata/fresh3.jsonl", true},
		{"real-dev", realDev, filepath.Join(shared, "eval/real-dev/prompts.jsonl"), false},
		{"real-fresh", realDev, "../eval/testdata/real-fresh.jsonl", true},
		{"real-fresh2", realDev, "../eval/testdata/real-fresh2.jsonl", true},
		{"train-noisy3", realDev, "../eval/testdata/train-noisy3.jsonl", false},
	} {
		f, err := eval.Read(set.file)
		require.NoError(t, err)
		r, err := loader.Open(set.cfg)
		require.NoError(t, err)
		with := eval.Summarize(eval.RouteCases(r, f.Cases)).Summary
		restore := router.WithoutStage("quiet")
		without := eval.Summarize(eval.RouteCases(r, f.Cases)).Summary
		restore()
		t.Logf("%-12s top-1 %5.1f %% / %5.1f %%   no-skill prompts silent %5.1f %% / %5.1f %%",
			set.name, 100*with.Top1, 100*without.Top1, 100*with.NoneCorrect, 100*without.NoneCorrect)
		assert.GreaterOrEqual(t, with.NoneCorrect, without.NoneCorrect, set.name)
		assert.GreaterOrEqual(t, with.Top1*float64(with.N)+1, without.Top1*float64(without.N), "%s: at most one skill prompt silenced", set.name)
		if set.heldOut {
			assert.Greater(t, with.NoneCorrect, without.NoneCorrect, set.name)
		}
	}
}
