package hook

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSlashCommand: a typed command is left to Claude Code; a prompt that
// opens with a path is routed.
func TestSlashCommand(t *testing.T) {
	for prompt, want := range map[string]bool{
		"/deploy staging":               true,
		"/skillroute:wrong":             true,
		"/tester-expert add tests":      true,
		"/compact":                      true,
		"/usr/bin/foo is slow":          false,
		"/tmp/build.log: no space left": false,
		"/":                             false,
		"/ what":                        false,
		"deploy /staging":               false,
		"/评审 这个 PR":                     true, // a command file may be named so
	} {
		assert.Equal(t, want, slashCommand(prompt), prompt)
	}
}

// TestSucceeded: a tool response's own verdict, in the shapes Claude
// Code's tools and MCP servers give it.
func TestSucceeded(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"success":true,"commandName":"x"}`: true,
		`{"success":false}`:                  false,
		`{"is_error":true}`:                  false,
		`{"content":[{"type":"text","text":"boom"}],"isError":true}`: false,
		`{"content":[{"type":"text","text":"ok"}]}`:                  true,
		`"plain text output"`:                                        true,
		``:                                                           true,
	} {
		assert.Equal(t, want, succeeded(json.RawMessage(raw)), raw)
	}
}
