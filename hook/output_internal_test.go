package hook

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The answer's JSON is byte for byte what encoding/json writes for the
// same object, whatever the text holds: Claude Code parses it, and
// hook.log and the tests compare it.
func TestContextOutputIsJSON(t *testing.T) {
	for _, text := range []string{
		"", `skillroute: the skill "performance-expert" matches (confidence 0.77; "首屏").`,
		"<script>&amp;</script>", "line\nbreak\ttab\\slash", "sep\u2028par\u2029", "bad \xff utf-8", "\x00\x1f",
	} {
		want, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "UserPromptSubmit", "additionalContext": text}})
		assert.NoError(t, err)
		assert.Equal(t, string(want), string(contextOutput(text)), "%q", text)
	}
}
