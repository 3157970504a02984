package prefs_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/prefs"
)

func TestLoad(t *testing.T) {
	cases := []struct {
		name, content string // "" content with missing: no file
		missing       bool
		logPrompts    bool
		errContains   string
	}{
		{name: "no file", missing: true, logPrompts: true},
		{name: "empty file", content: "", logPrompts: true},
		{name: "comments only", content: "# nothing yet\n", logPrompts: true},
		{name: "off", content: "log_prompts: false\n", logPrompts: false},
		{name: "on", content: "log_prompts: true\n", logPrompts: true},
		{name: "misspelt key keeps prompts out", content: "log_prompts: false\nlog_prompt: true\n", logPrompts: false, errContains: "line 2"},
		{name: "bad YAML keeps prompts out", content: "log_prompts: [\n", logPrompts: false, errContains: prefs.File},
		{name: "not a bool", content: "log_prompts: sometimes\n", logPrompts: false, errContains: "line 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if !c.missing {
				require.NoError(t, os.WriteFile(filepath.Join(dir, prefs.File), []byte(c.content), 0o600))
			}
			s, err := prefs.Load(dir)
			assert.Equal(t, c.logPrompts, s.LogPrompts)
			if c.errContains == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, c.errContains)
			}
		})
	}
}

// A settings file that is a FIFO or a huge file is refused without
// blocking or reading it all, and prompts stay out meanwhile.
func TestLoadHostileFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, prefs.File), 0o600))
	done := make(chan struct{})
	go func() {
		defer close(done)
		s, err := prefs.Load(dir)
		assert.Error(t, err)
		assert.False(t, s.LogPrompts)
	}()
	<-done

	dir = t.TempDir()
	big := make([]byte, 1<<20)
	require.NoError(t, os.WriteFile(filepath.Join(dir, prefs.File), big, 0o600))
	s, err := prefs.Load(dir)
	assert.ErrorContains(t, err, "more than")
	assert.False(t, s.LogPrompts)
}

func TestPrompt(t *testing.T) {
	text, hash := prefs.Default().Prompt("React 页面加载慢")
	assert.Equal(t, "React 页面加载慢", text)
	assert.Len(t, hash, 16)
	text, hash2 := prefs.Settings{LogPrompts: false}.Prompt("React 页面加载慢")
	assert.Empty(t, text)
	assert.Equal(t, hash, hash2, "the hash does not depend on the setting")
	assert.NotEqual(t, hash, prefs.Hash("another prompt"))
}
