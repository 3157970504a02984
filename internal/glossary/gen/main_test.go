package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompare pins what -check reports: nothing when the file is what
// the generator writes, and otherwise the entries it would remove and
// add, with the command that brings the file up to date.
func TestCompare(t *testing.T) {
	path := filepath.Join(t.TempDir(), "glossary.yaml")
	have := "entries:\n  分支: [branch]\n  日志: [log]\n"
	require.NoError(t, os.WriteFile(path, []byte(have), 0o644))

	assert.NoError(t, compare(path, []byte(have)))

	err := compare(path, []byte("entries:\n  日志: [log]\n  绑定: [bind]\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "-   分支: [branch]")
	assert.Contains(t, err.Error(), "+   绑定: [bind]")
	assert.NotContains(t, err.Error(), "日志", "unchanged entries are not listed")
	assert.Contains(t, err.Error(), "go run ./internal/glossary/gen")

	assert.Error(t, compare(filepath.Join(t.TempDir(), "missing.yaml"), []byte(have)), "a missing file is no match")
}
