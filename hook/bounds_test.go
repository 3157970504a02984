package hook_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/store"
)

// Three events with a megabyte-long skill name once grew workflow.json to
// 5 MB and slowed every later hook. Every string an event brings is
// bounded before it reaches the state, and a name that is no skill of the
// catalog is not recorded at all.
func TestHugeEventStrings(t *testing.T) {
	h := newHandler(t)
	ctx := context.Background()
	huge := strings.Repeat("x", 1<<20)
	prompt := func(session string) {
		h.Handle(ctx, event(t, map[string]any{"session_id": session, "hook_event_name": "UserPromptSubmit",
			"prompt": "Dockerfile 改成多阶段构建，镜像太大了"}))
	}
	prompt("s")
	for range 3 { // the case
		h.Handle(ctx, event(t, map[string]any{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Skill",
			"tool_input": map[string]any{"skill": huge}}))
	}
	h.Handle(ctx, event(t, map[string]any{"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Skill",
		"tool_input": map[string]any{"skill_name": "devops-expert" + huge}}))
	h.Handle(ctx, event(t, map[string]any{"session_id": "s", "hook_event_name": "UserPromptExpansion",
		"expansion_type": "slash_command", "command_name": huge, "command_args": huge}))
	h.Handle(ctx, event(t, map[string]any{"session_id": "s", "hook_event_name": "UserPromptExpansion",
		"expansion_type": "slash_command", "command_name": "devops-expert", "command_args": huge}))
	h.Handle(ctx, event(t, map[string]any{"session_id": huge, "prompt_id": huge, "cwd": "/" + huge,
		"hook_event_name": "UserPromptSubmit", "prompt": "Dockerfile 改成多阶段构建，镜像太大了 " + huge}))
	h.Handle(ctx, event(t, map[string]any{"session_id": huge, "hook_event_name": "PostToolUse", "tool_name": "Skill",
		"tool_input": map[string]any{"skill": "devops-expert"}}))
	h.Handle(ctx, event(t, map[string]any{"session_id": "s", "hook_event_name": huge, "tool_name": huge, "source": huge}))

	total := int64(0)
	require.NoError(t, filepath.WalkDir(h.Store.Dir, func(path string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			return nil
		}
		info, err := d.Info()
		require.NoError(t, err)
		assert.Less(t, info.Size(), int64(32<<10), "%s stays small", path)
		total += info.Size()
		return nil
	}))
	assert.Less(t, total, int64(64<<10), "the state folder stays small")

	sess, err := h.Store.Session("s")
	require.NoError(t, err)
	assert.Equal(t, []string{"devops-expert"}, sess.Recent, "only the catalog's skill is recorded")
	wf, err := h.Store.Workflow()
	require.NoError(t, err)
	for from, next := range wf.Bigrams {
		assert.LessOrEqual(t, len(from), hook.MaxName)
		for to := range next {
			assert.LessOrEqual(t, len(to), hook.MaxName)
		}
	}
	// The session with the huge id is one session, under a bounded id.
	latest := h.Store.Latest()
	assert.LessOrEqual(t, len(latest), hook.MaxID)
	other, err := h.Store.Session(huge)
	require.NoError(t, err)
	assert.Equal(t, []string{"devops-expert"}, other.Recent)
}

// A decision the log cannot take in time (another process holds its
// lock) is not dropped in silence: the reason goes to hook.log.
func TestDecisionNotLoggedIsSaid(t *testing.T) {
	h := newHandler(t)
	path := filepath.Join(h.Store.Dir, hook.DecisionsFile)
	held, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = store.Lock(context.Background(), path, func() error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res := h.Handle(ctx, event(t, map[string]any{"session_id": "s", "hook_event_name": "UserPromptSubmit",
		"prompt": "git rebase 之后冲突了，怎么解决"}))
	assert.NotNil(t, res.Output, "the prompt is still routed")
	assert.Contains(t, res.Reason, "decision not logged")
}

// The line saying why a hook was silent is written even when another
// process holds hook.log's lock past the hook's budget for it.
func TestLogLineWrittenWhenLockBusy(t *testing.T) {
	s := &hook.Store{Dir: t.TempDir()}
	path := filepath.Join(s.Dir, hook.LogFile)
	held, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = store.Lock(context.Background(), path, func() error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	s.Log(ctx, time.Now(), "hook", "deadline of 200ms passed", "session", "s1")
	cancel()
	close(release)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"msg":"deadline of 200ms passed"`)
	assert.Contains(t, string(data), `"session":"s1"`)
}
