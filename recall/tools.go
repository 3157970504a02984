package recall

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// ToolsFile is the declared tools' file name in the state folder.
const ToolsFile = "tools.yaml"

// Defaults for a tool that leaves risk or cost out. A tool whose side
// effects nobody stated is not assumed harmless: 0.5 is below the action
// layer's risk gate (0.7) yet weighs against the tool. 0.2 is the cost of
// a typical read (a listing, a log tail) among the declared tools of the
// action dev set.
const (
	DefaultRisk = 0.5
	DefaultCost = 0.2
)

// Tool is one declared MCP tool or slash command.
type Tool struct {
	Name        string  `yaml:"name" json:"name"`
	Description string  `yaml:"description" json:"description"`
	Risk        float64 `yaml:"risk" json:"risk"`
	Cost        float64 `yaml:"cost" json:"cost"`
	// Requires lists the step types ("memory", "skill") that must come
	// before the tool in a decision: a tool whose argument only a
	// remembered fact can supply.
	Requires []string `yaml:"requires,omitempty" json:"requires,omitempty"`
}

// toolFields are the fields a tool may have.
var toolFields = []string{"name", "description", "risk", "cost", "requires"}

// ReadTools reads a tools file; a missing file is fs.ErrNotExist.
func ReadTools(path string) ([]Tool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseTools(path, data)
}

// ParseTools parses a tools.yaml: a list of tools (or a mapping with a
// "tools" list). Errors name the file and the line of the tool at fault.
func ParseTools(name string, data []byte) ([]Tool, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil // empty file
	}
	list := doc.Content[0]
	if list.Kind == yaml.MappingNode {
		var found *yaml.Node
		for i := 0; i+1 < len(list.Content); i += 2 {
			if list.Content[i].Value == "tools" {
				found = list.Content[i+1]
			}
		}
		if found == nil {
			return nil, fmt.Errorf("%s:%d: expected a list of tools (or a \"tools:\" list)", name, list.Line)
		}
		list = found
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: expected a list of tools", name, list.Line)
	}
	var out []Tool
	seen := map[string]int{}
	for _, item := range list.Content {
		var t Tool
		if err := item.Decode(&t); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, item.Line, strings.TrimPrefix(err.Error(), "yaml: "))
		}
		t.Name, t.Description = strings.TrimSpace(t.Name), strings.TrimSpace(t.Description)
		has := map[string]bool{}
		if item.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(item.Content); i += 2 {
				key := item.Content[i]
				if !slices.Contains(toolFields, key.Value) {
					// Ignored, a misspelt risk left the default 0.5,
					// under the risk gate: a dangerous tool suggested.
					return nil, fmt.Errorf("%s:%d: tool %s: unknown field %q (fields: %s)", name, key.Line, t.Name, key.Value, strings.Join(toolFields, ", "))
				}
				has[key.Value] = true
			}
		}
		switch {
		case t.Name == "":
			return nil, fmt.Errorf("%s:%d: tool without a name", name, item.Line)
		case seen[t.Name] > 0:
			return nil, fmt.Errorf("%s:%d: tool %s already declared on line %d", name, item.Line, t.Name, seen[t.Name])
		case t.Description == "":
			return nil, fmt.Errorf("%s:%d: tool %s has no description (it is what prompts are matched against)", name, item.Line, t.Name)
		}
		if !has["risk"] {
			t.Risk = DefaultRisk
		}
		if !has["cost"] {
			t.Cost = DefaultCost
		}
		if !(t.Risk >= 0 && t.Risk <= 1) { // NaN too
			return nil, fmt.Errorf("%s:%d: tool %s: risk %g is outside [0, 1]", name, item.Line, t.Name, t.Risk)
		}
		if !(t.Cost >= 0 && t.Cost <= 1) {
			return nil, fmt.Errorf("%s:%d: tool %s: cost %g is outside [0, 1]", name, item.Line, t.Name, t.Cost)
		}
		for _, r := range t.Requires {
			if r != "memory" && r != "skill" {
				return nil, fmt.Errorf("%s:%d: tool %s: requires %q, but a tool can require only \"memory\" or \"skill\" steps", name, item.Line, t.Name, r)
			}
		}
		seen[t.Name] = item.Line
		out = append(out, t)
	}
	return out, nil
}
