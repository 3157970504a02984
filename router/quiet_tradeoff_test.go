package router_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestQuietTradeoff measures what the quiet stage trades, the figures of
// the README's table: each set routed with the stage and without it. The
// stage may cost a skill prompt a set (a question it silences), and on
// the held-out sets it must keep more no-skill prompts silent than it
// costs. go test ./router -run TestQuietTradeoff -v prints the table.
func TestQuietTradeoff(t *testing.T) {
	for _, set := range []tradeoffSet{
		{"dev.jsonl", true, filepath.Join(shared, "eval/dev.jsonl"), false},
		{"fresh2", true, "../eval/testdata/fresh2.jsonl", true},
		{"fresh3", true, "../eval/testdata/fresh3.jsonl", true},
		{"real-dev", false, filepath.Join(shared, "eval/real-dev/prompts.jsonl"), false},
		{"real-fresh", false, "../eval/testdata/real-fresh.jsonl", true},
		{"real-fresh2", false, "../eval/testdata/real-fresh2.jsonl", true},
		{"train-noisy3", false, "../eval/testdata/train-noisy3.jsonl", false},
	} {
		with, without := withAndWithout(t, "quiet", set)
		t.Logf("%-12s top-1 %5.1f %% / %5.1f %%   no-skill prompts silent %5.1f %% / %5.1f %%",
			set.name, 100*with.Top1, 100*without.Top1, 100*with.NoneCorrect, 100*without.NoneCorrect)
		assert.GreaterOrEqual(t, with.NoneCorrect, without.NoneCorrect, set.name)
		assert.GreaterOrEqual(t, with.Top1*float64(with.N)+1, without.Top1*float64(without.N), "%s: at most one skill prompt silenced", set.name)
		if set.heldOut {
			assert.Greater(t, with.NoneCorrect, without.NoneCorrect, set.name)
		}
	}
}
