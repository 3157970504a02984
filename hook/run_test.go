package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/store"
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

// The deadline runs from when the event is read: Claude Code, busy with
// its own work, may write the event late, and that wait is not the
// router's to count. An event that never comes ends the call at
// EventWait, silent.
func TestRuntimeDeadlineCountsFromTheEvent(t *testing.T) {
	_, err := builtinRouter() // compiled before the clock runs
	require.NoError(t, err)
	dir := t.TempDir()
	rt := &hook.Runtime{
		Handler:  &hook.Handler{Store: &hook.Store{Dir: dir}, Open: builtinRouter},
		Deadline: 500 * time.Millisecond,
	}
	stdin, w := io.Pipe()
	go func() {
		time.Sleep(700 * time.Millisecond) // longer than the deadline
		w.Write([]byte(promptEvent))
		w.Close()
	}()
	var out bytes.Buffer
	rt.Run(stdin, &out)
	assert.Contains(t, out.String(), "git-operation-master")
	assert.Contains(t, hookLog(t, dir), "the event came after")

	rt.EventWait = 50 * time.Millisecond
	never, _ := io.Pipe()
	out.Reset()
	start := time.Now()
	rt.Run(never, &out)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.Empty(t, out.String())
	assert.Contains(t, hookLog(t, dir), "no event on stdin within 50ms")
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

// A hook.log line says which event it is about (event, session, prompt or
// tool call), so that a silent prompt can be found again, and never holds
// the prompt's text; also when the hook gave up at its deadline.
func TestLogLineNamesTheEvent(t *testing.T) {
	dir := t.TempDir()
	release := make(chan struct{})
	defer close(release)
	slow := &hook.Runtime{
		Handler: &hook.Handler{Store: &hook.Store{Dir: dir}, Open: func() (*router.Router, error) {
			<-release
			return nil, errors.New("released")
		}},
		Deadline: 20 * time.Millisecond,
	}
	slow.Run(strings.NewReader(`{"session_id":"s1","prompt_id":"p-42","hook_event_name":"UserPromptSubmit","prompt":"secret plans for the launch"}`), &bytes.Buffer{})
	fast := &hook.Runtime{Handler: &hook.Handler{Store: &hook.Store{Dir: dir}, Open: builtinRouter}, Deadline: 10 * time.Second}
	fast.Run(strings.NewReader(`{"session_id":"s1","tool_use_id":"toolu_7","hook_event_name":"PostToolUse","tool_name":"Skill","tool_input":{"skill":"nope"}}`), &bytes.Buffer{})
	lines := strings.Split(strings.TrimSpace(hookLog(t, dir)), "\n")
	require.Len(t, lines, 2)
	var deadline, use map[string]string
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &deadline))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &use))
	assert.Contains(t, deadline["msg"], "deadline")
	assert.Equal(t, "UserPromptSubmit", deadline["hook_event"])
	assert.Equal(t, "s1", deadline["session"])
	assert.Equal(t, "p-42", deadline["prompt_id"])
	assert.Equal(t, "PostToolUse", use["hook_event"])
	assert.Equal(t, "toolu_7", use["tool_use_id"])
	assert.NotContains(t, hookLog(t, dir), "secret")
}

// A state file whose lock another process holds past the hook's budget
// (another hook of the session, a command rewriting a log) costs what was
// to be written there, never the route: the line is printed by the
// deadline, and hook.log has a line about the event.
func TestRuntimePrintsRouteWhenStateLocked(t *testing.T) {
	_, err := builtinRouter() // loaded before the clock runs
	require.NoError(t, err)
	layer, err := action.NewLayer(nil, nil)
	require.NoError(t, err)
	for _, file := range []string{filepath.Join("sessions", "s.json"), hook.DecisionsFile, action.TrajectoryFile} {
		t.Run(file, func(t *testing.T) {
			// Not t.TempDir: the handler goes on (giving up on its lock)
			// after the runtime has returned, as a hook process would exit
			// meanwhile; the folder goes once it is done.
			dir, err := os.MkdirTemp("", "hook-locked")
			require.NoError(t, err)
			t.Cleanup(func() {
				assert.Eventually(t, func() bool { return os.RemoveAll(dir) == nil }, 10*time.Second, 10*time.Millisecond)
			})
			held, release := make(chan struct{}), make(chan struct{})
			go func() {
				_ = store.Lock(context.Background(), filepath.Join(dir, file), func() error {
					close(held)
					<-release
					return nil
				})
			}()
			<-held
			defer close(release)
			const deadline = 500 * time.Millisecond
			h := &hook.Handler{Store: &hook.Store{Dir: dir}, Open: builtinRouter,
				Actions: func(string) (*action.Layer, error) { return layer, nil }}
			rt := &hook.Runtime{Handler: h, Deadline: deadline}
			var out bytes.Buffer
			start := time.Now()
			rt.Run(strings.NewReader(promptEvent), &out)
			assert.Less(t, time.Since(start), deadline+500*time.Millisecond)
			assert.Contains(t, out.String(), "git-operation-master", "the route stands")
			assert.True(t, strings.HasSuffix(out.String(), "}\n"), "one line")
			assert.Contains(t, hookLog(t, dir), `"hook_event":"UserPromptSubmit"`)
		})
	}
}
