package hook_test

import (
	"context"
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

// Deadlines counts the prompts of the logs: those decided
// (decisions.jsonl) and those given up (hook.log), and the events that
// came late. While decisions.jsonl never rotated, every prompt given up
// counts; after, those before its first decision do not. Other events,
// and lines that do not parse, are not counted.
func TestDeadlines(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lines ...string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	}
	at := func(sec int) time.Time { return time.Date(2026, 12, 4, 1, 3, sec, 0, time.UTC) }
	write(hook.DecisionsFile,
		`{"id":"a","skill":"","time":"2026-12-04T01:03:15Z"}`,
		`{"id":"b","skill":"performance-expert","time":"2026-12-04T01:03:16Z"}`,
		`torn line`,
		`{"id":"c","skill":"debugger-expert","time":"2026-12-04T01:03:17Z"}`)
	write(hook.LogFile,
		`{"time":"2026-12-04T01:03:10Z","hook_event":"UserPromptSubmit","msg":"deadline of 200ms passed (200.4 ms)"}`,
		`{"time":"2026-12-04T01:03:14Z","hook_event":"SessionStart","msg":"session reset (startup) (2.6 ms)"}`,
		`{"time":"2026-12-04T01:03:15.5Z","hook_event":"UserPromptSubmit","msg":"deadline of 200ms passed; the event came after 410.0 ms (610.4 ms)"}`,
		`{"time":"2026-12-04T01:03:16Z","hook_event":"UserPromptSubmit","msg":"action direct_answer (router abstained, confidence 0.28) (4.9 ms)"}`,
		`{"time":"2026-12-04T01:03:17Z","hook_event":"UserPromptSubmit","msg":"action load_skill; the event came after 80.0 ms (88.2 ms)"}`,
		`not json`)
	st := &hook.Store{Dir: dir}
	got, err := st.Deadlines(context.Background())
	require.NoError(t, err)
	assert.Equal(t, hook.Deadlines{Since: at(10), Prompts: 5, PastDeadline: 2, LateEvents: 2}, got, "never rotated")

	write("decisions-1.jsonl", `{"id":"z","skill":"","time":"2026-12-04T01:03:12Z"}`)
	got, err = st.Deadlines(context.Background())
	require.NoError(t, err)
	assert.Equal(t, hook.Deadlines{Since: at(12), Prompts: 5, PastDeadline: 1, LateEvents: 2}, got, "rotated")

	empty, err := (&hook.Store{Dir: t.TempDir()}).Deadlines(context.Background())
	require.NoError(t, err)
	assert.Zero(t, empty.Prompts)
}

// What Run logs is what Deadlines reads: a prompt decided in time and
// one given up on.
func TestDeadlinesReadsRun(t *testing.T) {
	_, err := builtinRouter() // compiled before the clock runs
	require.NoError(t, err)
	dir := t.TempDir()
	release := make(chan struct{})
	defer close(release)
	rt := &hook.Runtime{
		Handler:  &hook.Handler{Store: &hook.Store{Dir: dir}, Open: builtinRouter},
		Deadline: 5 * time.Second,
	}
	var out strings.Builder
	rt.Run(strings.NewReader(promptEvent), &out)
	rt.Handler.Open = func() (*router.Router, error) { <-release; return nil, nil }
	rt.Deadline = 20 * time.Millisecond
	rt.Run(strings.NewReader(promptEvent), &out)
	got, err := (&hook.Store{Dir: dir}).Deadlines(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, got.Prompts)
	assert.Equal(t, 1, got.PastDeadline)
}
