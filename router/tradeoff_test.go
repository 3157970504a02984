package router_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

// tradeoffSet is a labelled file and the catalog it is routed over.
type tradeoffSet struct {
	name    string
	builtin bool // over the built-in catalog, else real-dev's published skills
	file    string
	heldOut bool
}

// withAndWithout routes a set with every stage and without the named
// one: what that stage trades. It skips the test without ../shared.
func withAndWithout(t *testing.T, stage string, set tradeoffSet) (with, without eval.Summary) {
	t.Helper()
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared (design data) is absent")
	}
	cfg := loader.Config{Catalog: filepath.Join(shared, "eval/real-dev/skills")}
	if set.builtin {
		cfg = loader.Config{Catalog: loader.Builtin}
	}
	f, err := eval.Read(set.file)
	require.NoError(t, err)
	r, err := loader.Open(cfg)
	require.NoError(t, err)
	with = eval.Summarize(eval.RouteCases(r, f.Cases)).Summary
	restore := router.WithoutStage(stage)
	defer restore()
	without = eval.Summarize(eval.RouteCases(r, f.Cases)).Summary
	return with, without
}

// right counts a summary's right answers: skill prompts whose skill came
// first, and no-skill prompts left silent.
func right(s eval.Summary) int {
	return int(s.Top1*float64(s.N)+0.5) + int(s.NoneCorrect*float64(s.NoneN)+0.5)
}
