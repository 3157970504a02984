package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchGen protects `skillroute bench gen`: it writes a catalog that
// eval reads, refuses to write over a folder in use, and says how to use
// it.
func TestBenchGen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "catalog")
	code, out, errOut := runCLI(t, "bench", "gen", "--skills", "30", "--seed", "4", "--queries", "20", "-o", dir)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "wrote 30 skills and 20 labelled prompts")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 31, "30 skill folders and queries.jsonl")

	code, out, errOut = runCLI(t, "eval", "--json", "--catalog", dir, filepath.Join(dir, "queries.jsonl"))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"top1":`)

	code, _, errOut = runCLI(t, "bench", "gen", "--skills", "5", "-o", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, dir)

	for _, args := range [][]string{{"bench"}, {"bench", "gen", "-o", dir}, {"bench", "gen", "--skills", "5"}, {"bench", "run"}} {
		code, _, _ = runCLI(t, args...)
		assert.Equal(t, 2, code, "%v", args)
	}
}
