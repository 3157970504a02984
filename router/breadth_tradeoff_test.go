package router_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBreadthTradeoff measures the breadth stage on the dev sets: each
// routed with the stage and without it. The built-in catalog's sets do
// not move (their skills' keywords are written); on real-dev's catalog
// the stage gains prompts over the sets and costs at most one a set
// (three net since the synonyms' implied concepts reach two prompts it
// alone won; four before). go test ./router -run TestBreadthTradeoff -v
// prints the figures.
func TestBreadthTradeoff(t *testing.T) {
	gained := 0
	for _, set := range []tradeoffSet{
		{"dev.jsonl", true, filepath.Join(shared, "eval/dev.jsonl"), false},
		{"fresh2", true, "../eval/testdata/fresh2.jsonl", true},
		{"paraphrase", true, "../eval/testdata/paraphrase.jsonl", false},
		{"real-dev", false, filepath.Join(shared, "eval/real-dev/prompts.jsonl"), false},
		{"real-fresh", false, "../eval/testdata/real-fresh.jsonl", true},
		{"real-fresh2", false, "../eval/testdata/real-fresh2.jsonl", true},
		{"train-real", false, "../eval/testdata/train-real.jsonl", false},
		{"train-noisy3", false, "../eval/testdata/train-noisy3.jsonl", false},
	} {
		with, without := withAndWithout(t, "breadth", set)
		w, wo := right(with), right(without)
		t.Logf("%-12s right %d with the stage, %d without", set.name, w, wo)
		if set.builtin {
			assert.Equal(t, wo, w, set.name)
		}
		assert.GreaterOrEqual(t, w, wo-1, set.name)
		gained += w - wo
	}
	assert.GreaterOrEqual(t, gained, 3, "prompts gained over the sets")
}
