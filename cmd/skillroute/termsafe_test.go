package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/internal/termsafe"
)

// A skill folder from a cloned repository may carry terminal escape
// sequences in its folder name (the skill's name), its header's name, its
// description and its keywords. `skills list` and `route` print all of
// them: escaped, never raw.
func TestHostileNamesPrintedEscaped(t *testing.T) {
	a := isolate(t)
	dir := t.TempDir()
	hostile := "evil\x1b]0;pwned\x07\x1b[2J"
	skill := filepath.Join(dir, hostile)
	require.NoError(t, os.MkdirAll(skill, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte(`---
name: "red\e[31m-skill\u202e"
description: "Kubernetes pods crash \e[2J\rloop"
keywords:
  core: ["kubectl\e[8m", crashloopbackoff]
---
body
`), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "plain"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plain", "SKILL.md"), []byte("---\nname: plain\ndescription: nothing to do with it\n---\n"), 0o644))

	for _, args := range [][]string{
		{"skills", "list", "--catalog", dir},
		{"route", "--catalog", dir, "--explain", "kubectl crashloopbackoff"},
		{"route", "--catalog", dir, "--json", "--explain", "kubectl crashloopbackoff"},
	} {
		code, out, errOut := runApp(t, a, args...)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		for _, text := range []string{out, errOut} {
			for _, r := range text {
				assert.False(t, termsafe.Unsafe(r), "%v printed %U raw:\n%s", args, r, text)
			}
		}
		// The skill is named by its folder, as Claude Code invokes it.
		assert.Contains(t, out, `evil\u001b]0;pwned\u0007\u001b[2J`, args)
	}
}

// The binary links no networking package: SECURITY.md says the hook has
// no network access, and this keeps it so.
func TestNoNetworkPackages(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the binary's packages")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, pkg := range strings.Fields(string(out)) {
		assert.False(t, pkg == "net" || strings.HasPrefix(pkg, "net/") || pkg == "crypto/tls", "skillroute links %s", pkg)
	}
}
