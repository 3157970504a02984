package hook_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const promptEvent = `{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"git rebase 之后冲突了，怎么解决"}`

func hookLog(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "hook.log"))
	require.NoError(t, err)
	return string(data)
}

// The runtime prints the handler's line, and logs the loader's warnings.
func TestRuntimePrintsAndLogs(t *testing.T) {
	dir := t.TempDir()
	var warnings strings.Builder
	rt := &hook.Runtime{
		Handler: &hook.Handler{Store: &hook.Store{Dir: dir}, Open: func() (*router.Router, error) {
			warnings.WriteString("warning: learned weights ignored")
			return builtinRouter()
		}},
		Deadline: 10 * time.Second,
		Warnings: &warnings,
	}
	var out bytes.Buffer
	rt.Run(strings.NewReader(promptEvent), &out)
	assert.Contains(t, out.String(), "git-operation-master")
	assert.True(t, strings.HasSuffix(out.String(), "}\n"), "one line")
	assert.Contains(t, hookLog(t, dir), "learned weights ignored")
}

// Past the deadline the runtime says nothing, and when the index was not
// compiled yet it starts the compile in the background, once.
func TestRuntimeDeadlineStartsBackgroundCompile(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	defer close(release)
	compiles := 0
	rt := &hook.Runtime{
		Handler: &hook.Handler{Store: &hook.Store{Dir: dir}, Open: func() (*router.Router, error) {
			<-release // a compile that takes longer than the user should wait
			return nil, errors.New("released")
		}},
		Deadline: 20 * time.Millisecond,
		Compiled: func() bool { return false },
		Compile:  func() error { compiles++; return nil },
	}
	var out bytes.Buffer
	start := time.Now()
	rt.Run(strings.NewReader(promptEvent), &out)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Empty(t, out.String())
	assert.Equal(t, 1, compiles)
	assert.Contains(t, hookLog(t, dir), "compiling the index in the background")

	// Compiled already: the slow part was something else; no compile.
	rt.Compiled = func() bool { return true }
	rt.Run(strings.NewReader(promptEvent), &out)
	assert.Equal(t, 1, compiles)
}

// A panic anywhere in the handler is silence, a reset cache and a stack
// in hook.log, never a crash of the user's prompt.
func TestRuntimeRecoversFromPanic(t *testing.T) {
	dir := t.TempDir()
	reset := false
	rt := &hook.Runtime{
		Handler: &hook.Handler{Store: &hook.Store{Dir: dir}, Open: func() (*router.Router, error) {
			panic("damaged cache")
		}},
		Deadline: 10 * time.Second,
		Reset:    func() { reset = true },
	}
	var out bytes.Buffer
	rt.Run(strings.NewReader(promptEvent), &out)
	assert.Empty(t, out.String())
	assert.True(t, reset)
	assert.Contains(t, hookLog(t, dir), "panic: damaged cache")
}

// A background compile is never started from a test binary (it would run
// the tests), and needs a binary to run.
func TestCompileInBackgroundRefusesTestBinary(t *testing.T) {
	assert.Error(t, hook.CompileInBackground("", t.TempDir()))
	assert.Error(t, hook.CompileInBackground("/tmp/x/skillroute.test", t.TempDir()))
}

// The hook checks the one skill it is about to name: a removed skill is
// not named, and a compile starts; a new session starts a full check.
func TestChangedSkillStartsRecompile(t *testing.T) {
	recompiles := 0
	h := newHandler(t)
	h.Changed = func(r *router.Router, names ...string) []string { return names }
	h.Recompile = func() error { recompiles++; return nil }
	res := h.Handle(context.Background(), []byte(promptEvent))
	assert.Nil(t, res.Output, "the skill's file is gone: not named")
	assert.Contains(t, res.Reason, "git-operation-master was removed")
	assert.Equal(t, 1, recompiles)

	h.Changed = func(*router.Router, ...string) []string { return nil }
	res = h.Handle(context.Background(), []byte(promptEvent))
	assert.NotNil(t, res.Output, res.Reason)
	assert.Equal(t, 1, recompiles, "nothing changed: no compile")

	h.Handle(context.Background(), []byte(`{"hook_event_name":"SessionStart","session_id":"s","source":"startup"}`))
	assert.Equal(t, 2, recompiles)
}
