package recall

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTools(t *testing.T) {
	list := `# tools
- name: port-procs
  description: "Show which processes listen on a port."
  risk: 0.05
  cost: 0.05
- name: restart-service
  description: Restart a service.
  risk: 0.8
- name: k8s-pods
  description: List pods.
  requires: [memory]
`
	tools, err := ParseTools("tools.yaml", []byte(list))
	require.NoError(t, err)
	require.Len(t, tools, 3)
	assert.Equal(t, Tool{Name: "port-procs", Description: "Show which processes listen on a port.", Risk: 0.05, Cost: 0.05}, tools[0])
	assert.Equal(t, DefaultCost, tools[1].Cost, "an unstated cost gets the default")
	assert.Equal(t, DefaultRisk, tools[2].Risk, "an unstated risk is not assumed harmless")
	assert.Equal(t, []string{"memory"}, tools[2].Requires)

	mapped, err := ParseTools("tools.yaml", []byte("tools:\n  - name: a\n    description: b\n    risk: 0\n"))
	require.NoError(t, err)
	require.Len(t, mapped, 1)
	assert.Zero(t, mapped[0].Risk, "a stated zero stays zero")

	empty, err := ParseTools("tools.yaml", nil)
	assert.NoError(t, err)
	assert.Empty(t, empty)
}

func TestParseToolsErrors(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"- name: a\n  description: b\n- description: c\n", "tools.yaml:3: tool without a name"},
		{"- name: a\n  description: b\n- name: a\n  description: c\n", "tools.yaml:3: tool a already declared on line 1"},
		{"- name: a\n", "tools.yaml:1: tool a has no description"},
		{"- name: a\n  description: b\n  risk: 1.5\n", "tools.yaml:1: tool a: risk 1.5 is outside [0, 1]"},
		{"- name: a\n  description: b\n  cost: -1\n", "tools.yaml:1: tool a: cost -1 is outside [0, 1]"},
		{"- name: a\n  description: b\n  requires: [tool]\n", `requires "tool"`},
		{"- name: a\n  description: b\n  risk: high\n", "tools.yaml:1:"},
		{"name: a\n", "tools.yaml:1: expected a list of tools"},
		{"- [a\n", "tools.yaml:"},
		// A misspelt risk was ignored and the tool took the default 0.5,
		// under the 0.7 gate: a tool written as dangerous was suggested.
		{"- name: drop-db\n  description: drop the database\n  riks: 0.9\n", `tools.yaml:3: tool drop-db: unknown field "riks" (fields: name, description, risk, cost, requires)`},
		{"- name: a\n  description: b\n  risk: .nan\n", "tools.yaml:1: tool a: risk NaN is outside [0, 1]"},
		{"- name: a\n  description: b\n  cost: .nan\n", "tools.yaml:1: tool a: cost NaN is outside [0, 1]"},
	} {
		_, err := ParseTools("tools.yaml", []byte(c.data))
		assert.ErrorContains(t, err, c.want, c.data)
	}
}

func TestReadTools(t *testing.T) {
	_, err := ReadTools(filepath.Join(t.TempDir(), "tools.yaml"))
	assert.True(t, errors.Is(err, fs.ErrNotExist), "a file asked for must exist")
}
