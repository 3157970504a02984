package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// learnHome gives the command a fresh state folder and home.
func learnHome(t *testing.T) *app {
	t.Helper()
	return isolate(t)
}

func learnOutcome(t *testing.T, a *app) learn.Outcome {
	t.Helper()
	code, out, errOut := runApp(t, a, "learn", "--json")
	require.Equal(t, 0, code, errOut)
	var o learn.Outcome
	require.NoError(t, json.Unmarshal([]byte(out), &o))
	return o
}

// devRouter reads dev.jsonl, skipping when absent, and opens the built-in
// router.
func devRouter(t *testing.T) (*eval.File, *router.Router) {
	t.Helper()
	return labelledRouter(t, sharedDev)
}

// labelledRouter reads the labelled prompts at path, skipping when absent,
// and opens the built-in router.
func labelledRouter(t *testing.T, path string) (*eval.File, *router.Router) {
	t.Helper()
	f, err := eval.Read(path)
	if err != nil {
		t.Skipf("%s not present: %v", path, err)
	}
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	return f, r
}

// confirm logs that the session used the skill the router chose, as the
// hook does when the user follows the route.
func confirm(t *testing.T, dir, query, skill string, at time.Time) {
	t.Helper()
	require.NoError(t, (&feedback.Log{Dir: dir}).Append(context.Background(), feedback.Record{
		TS: at, Session: "s", Query: query, Routed: skill, Corrected: skill, Kind: feedback.KindImplicit}))
}

// The replay of the issue: route labelled prompts, correct the misrouted
// ones as a user would, learn, route again. The prompts are the held-out
// set fresh2, which the router gets wrong often enough to learn from
// (it routes every prompt of dev.jsonl right).
func TestReplayCorrectionsImproveRouting(t *testing.T) {
	a := learnHome(t)
	dir := a.stateDir
	f, r := labelledRouter(t, "../../eval/testdata/fresh2.jsonl")
	var wrong, right []eval.Case
	for i, c := range f.Cases {
		if c.Expected == eval.None {
			continue
		}
		if d := r.Route(c.Query, router.Session{}); d.Skill == c.Expected {
			right = append(right, c)
			confirm(t, dir, c.Query, c.Expected, time.Now().Add(-2*time.Hour-time.Duration(i)*time.Minute))
		} else {
			wrong = append(wrong, c)
		}
	}
	require.NotEmpty(t, wrong, "the replay needs a misrouted prompt")
	t0 := time.Now().Add(-time.Hour) // recent: five-day half-life
	for i, c := range wrong {
		code, out, errOut := runApp(t, a, "correct", c.Expected, "--query", c.Query)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "should go to "+c.Expected)
		for k := 0; k < 2; k++ { // a user corrects a route that keeps recurring
			require.NoError(t, (&feedback.Log{Dir: dir}).Append(context.Background(), feedback.Record{
				TS: t0.Add(time.Duration(10*i+k) * time.Second), Session: "s", Query: c.Query,
				Routed: r.Route(c.Query, router.Session{}).Skill, Corrected: c.Expected, Kind: feedback.KindExplicit}))
		}
	}
	o := learnOutcome(t, a)
	assert.True(t, o.Adopted, "%+v", o)

	learned, err := loader.Open(loader.Config{Catalog: loader.Builtin, StateDir: dir})
	require.NoError(t, err)
	fixed := 0
	for _, c := range wrong {
		if learned.Route(c.Query, router.Session{}).Skill == c.Expected {
			fixed++
		}
	}
	assert.Greater(t, fixed, 0, "accuracy on the corrected prompts rises")
	kept := 0
	for _, c := range right {
		if learned.Route(c.Query, router.Session{}).Skill == c.Expected {
			kept++
		}
	}
	assert.GreaterOrEqual(t, float64(kept)/float64(len(right)), 0.99, "the untouched prompts lose at most a point")
}

// A poisoned log, corrections to random skills among the confirmations of
// good routes, is refused by the held-out check.
func TestPoisonedLogIsRefused(t *testing.T) {
	a := learnHome(t)
	dir := a.stateDir
	f, r := devRouter(t)
	// An honest log confirms the routes that worked, twice each; poison
	// floods it with corrections to skills drawn at random from the
	// catalog, eight a prompt, as a broken client or a malicious corrector
	// would send. Learning them would push routes off their skills; the
	// held-out confirmations show it.
	names := r.Index.SkillNames()
	rng := rand.New(rand.NewPCG(1, 2))
	log := &feedback.Log{Dir: dir}
	for i, c := range f.Cases {
		d := r.Route(c.Query, router.Session{})
		if c.Expected == eval.None || d.Skill != c.Expected {
			continue
		}
		at := time.Now().Add(-time.Duration(i) * time.Minute)
		confirm(t, dir, c.Query, d.Skill, at)
		confirm(t, dir, c.Query, d.Skill, at.Add(time.Second))
		for k := 2; k < 10; k++ {
			require.NoError(t, log.Append(context.Background(), feedback.Record{TS: at.Add(time.Duration(k) * time.Second),
				Session: "s", Query: c.Query, Routed: d.Skill, Corrected: names[rng.IntN(len(names))], Kind: feedback.KindExplicit}))
		}
	}
	o := learnOutcome(t, a)
	assert.False(t, o.Adopted, "%+v", o)
	assert.Less(t, o.After, o.Before)
	_, err := os.Stat(filepath.Join(dir, learn.WeightsFile))
	assert.True(t, os.IsNotExist(err), "nothing adopted, nothing written")
}

// Eight corrections of one prompt to a plausible second choice flip its
// route at once, through the prompt memory; `learn` then says why it does
// not adopt weights on so little (two or three held-out records, all the
// same prompt), never "adopted" on a held-out accuracy of 0 before and
// after, and the route stays flipped. No learned delta passes the clamp.
func TestEightCorrectionsFlipARoute(t *testing.T) {
	a := learnHome(t)
	dir := a.stateDir
	const query = "接口响应很慢，帮我看看是不是数据库的问题"
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	d := r.Route(query, router.Session{})
	require.GreaterOrEqual(t, len(d.Candidates), 2)
	first, second := d.Candidates[0].Skill, d.Candidates[1].Skill
	for i := 0; i < 8; i++ {
		code, _, errOut := runApp(t, a, "correct", second, "--query", query)
		require.Equal(t, 0, code, errOut)
	}
	routed := func() string {
		code, out, errOut := runApp(t, a, "route", "--json", "--catalog", "builtin", query)
		require.Equal(t, 0, code, errOut)
		var got router.Decision
		require.NoError(t, json.Unmarshal([]byte(out), &got))
		return got.Skill
	}
	assert.Equal(t, second, routed(), "was %s; flipped before any learn", first)

	code, out, errOut := runApp(t, a, "learn", "--json")
	require.Equal(t, 0, code, errOut)
	var o map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &o))
	require.Contains(t, o, "reason")
	assert.Equal(t, false, o["adopted"], "%v", o)
	assert.Contains(t, o["reason"], "too few records to judge")
	assert.Contains(t, o["reason"], "prompt memory")
	assert.False(t, o["adopted"] == true && o["before"] == 0.0 && o["after"] == 0.0)
	assert.Equal(t, second, routed(), "still flipped after learn")
	_, err = os.Stat(filepath.Join(dir, learn.WeightsFile))
	assert.True(t, os.IsNotExist(err), "nothing adopted, nothing written")

	records, _, err := (&feedback.Log{Dir: dir}).Read()
	require.NoError(t, err)
	w := learn.Learn(records, r.Index, time.Now())
	for _, terms := range w.Keyword {
		for term, delta := range terms {
			assert.LessOrEqual(t, delta, learn.MaxDelta, term)
			assert.GreaterOrEqual(t, delta, -learn.MaxDelta, term)
		}
	}
}

func TestCorrectRefusesUnknownSkill(t *testing.T) {
	a := learnHome(t)
	code, _, errOut := runApp(t, a, "correct", "perfomance-expert", "--query", "slow page")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `unknown skill "perfomance-expert"; nearest: performance-expert`)
	code, _, errOut = runApp(t, a, "correct", "tester-expert")
	assert.Equal(t, 1, code)
	assert.True(t, strings.Contains(errOut, "no routed prompt to correct"), errOut)
}

// The plugin's /skillroute:wrong runs `correct` in a shell without
// CLAUDE_PLUGIN_DATA and names the plugin's data folder with --state.
func TestCorrectInNamedStateFolder(t *testing.T) {
	a := learnHome(t)
	defaultDir := a.stateDir
	pluginData := t.TempDir()
	h := &hook.Handler{Store: &hook.Store{Dir: pluginData}, Open: func() (*router.Router, error) {
		return loader.Open(loader.Config{Catalog: loader.Builtin})
	}}
	res := h.Handle(context.Background(), []byte(`{"hook_event_name":"UserPromptSubmit","session_id":"s1","prompt":"React 页面加载慢，首屏要 4 秒"}`))
	require.NotNil(t, res.Output, res.Reason)

	code, _, errOut := runApp(t, a, "correct", "debugger-expert", "--session", "s1")
	assert.Equal(t, 1, code, "the default folder has no such session")
	assert.Contains(t, errOut, "no routed prompt to correct")

	code, out, errOut := runApp(t, a, "correct", "--state", pluginData, "--session", "s1", "debugger-expert")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "should go to debugger-expert (it went to performance-expert)")
	records, _, err := (&feedback.Log{Dir: pluginData}).Read()
	require.NoError(t, err)
	require.Len(t, records, 1)
	assert.Equal(t, feedback.KindExplicit, records[0].Kind)
	assert.Equal(t, "s1", records[0].Session)
	_, err = os.Stat(filepath.Join(defaultDir, feedback.LogFile))
	assert.True(t, os.IsNotExist(err), "nothing lands in the default folder")
	assert.Equal(t, defaultDir, a.stateDir, "--state lasts one command")
}

func TestCalibrateWritesTable(t *testing.T) {
	a := learnHome(t)
	dir := a.stateDir
	for i := 0; i < 12; i++ {
		confirm(t, dir, "这个接口报错了，帮我排查一下 NullPointerException", "debugger-expert", time.Now().Add(-time.Duration(i)*time.Minute))
	}
	code, out, errOut := runApp(t, a, "calibrate", "--preset", "balanced")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "balanced table from 12 samples")
	assert.Contains(t, out, "debug")
	assert.Contains(t, out, "calibrated")
	code, _, errOut = runApp(t, a, "calibrate", "--preset", "cheapest")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "cheapest")
}

// A session file `correct` cannot read is named in its error, not taken
// for a session without a routed prompt: the user can see what to fix.
func TestCorrectNamesDamagedSessionFile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(path string) error
		want  string
	}{
		{"truncated", func(p string) error {
			return os.WriteFile(p, []byte(`{"skillroute":"session","version":1,"data":{"id":"s1","la`), 0o600)
		}, "s1.json"},
		{"a folder", func(p string) error { return os.MkdirAll(filepath.Join(p, "x"), 0o700) }, "s1.json"},
		{"a newer version", func(p string) error {
			return os.WriteFile(p, []byte(`{"skillroute":"session","version":99,"data":{}}`), 0o600)
		}, "s1.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := learnHome(t)
			path := filepath.Join(a.stateDir, "sessions", "s1.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
			require.NoError(t, tc.write(path))
			code, _, errOut := runApp(t, a, "correct", "tester-expert", "--session", "s1")
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, tc.want)
			assert.Contains(t, errOut, "--query TEXT")
		})
	}
}

// A verdict a hook records while `learn` runs (after learn read the log,
// before it rebuilt the prompt memory) stays in the memory: the rebuild
// does not go by the log as it was when learn began.
func TestLearnKeepsVerdictRecordedMeanwhile(t *testing.T) {
	a := learnHome(t)
	dir := a.stateDir
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	prompts := []string{"React 页面加载慢，首屏要 4 秒", "帮我写单元测试，用 Jest mock 掉 axios 请求", "git rebase 之后冲突了，怎么解决",
		"Dockerfile 改成多阶段构建，镜像太大了", "这个接口报错了，帮我排查一下 NullPointerException"}
	// Confirmations of good routes: learning them holds, and is adopted.
	// Fixed times: the held-out share is drawn from them, and must hold
	// the ten records a trial needs (it holds 20).
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	const n = 60
	for i := range n {
		q := prompts[i%len(prompts)]
		confirm(t, dir, q, r.Route(q, router.Session{}).Skill, at.Add(time.Duration(i)*time.Second))
	}

	// The memory's lock, held, stops learn between its read of the log
	// and its rebuild of the memory; the weights it writes in between say
	// when it got there.
	locked, release, done := make(chan struct{}), make(chan struct{}), make(chan int)
	go func() {
		_ = store.Lock(context.Background(), filepath.Join(dir, memory.File), func() error {
			close(locked)
			<-release
			return nil
		})
	}()
	<-locked
	var out, errOut strings.Builder
	go func() { done <- run(a, []string{"learn"}, &out, &errOut) }()
	for {
		if _, err := os.Stat(filepath.Join(dir, learn.WeightsFile)); err == nil {
			break // adopted: learn goes on to rebuild the memory
		}
		select {
		case code := <-done:
			close(release)
			t.Fatalf("learn ended (%d) before it adopted weights: %s%s", code, out.String(), errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
	}

	// Meanwhile a hook records a verdict: the record, then its event.
	const q = "Jenkins 流水线一直卡在拉镜像这一步"
	rec := feedback.Record{TS: time.Now(), Session: "s2", Query: q, Routed: r.Route(q, router.Session{}).Skill, Corrected: "tester-expert", Kind: feedback.KindImplicit}
	require.NoError(t, (&feedback.Log{Dir: dir}).Append(context.Background(), rec))
	vec := memory.Vectorize(r.Index, r.Index.Tokenizer().Tokenize(q))
	require.NoError(t, memory.Append(context.Background(), dir, vec, memory.EventOf(rec), time.Now()))
	close(release)
	require.Equal(t, 0, <-done, errOut.String())

	m, err := memory.LoadDir(dir)
	require.NoError(t, err)
	assert.Equal(t, n+1, m.Events(), "the confirmations and the verdict recorded meanwhile")
}

// A --fallback table that names a category the classifier never gives,
// or a skill the catalog lacks, would never apply: calibrate refuses it,
// naming the file, the entry and the valid names, and writes no table. A
// file that is not JSON is named with its line.
func TestCalibrateChecksFallback(t *testing.T) {
	cases := []struct {
		name, content string
		errs          []string
	}{
		{"good", `{"debug": "debugger-expert", "docs": ""}`, nil},
		{"skill by its header name", `{"test": "tester-expert"}`, nil},
		{"unknown category", `{"debgu": "debugger-expert"}`, []string{`category "debgu"`, "debug, "}},
		{"unknown skill", `{"debug": "debuger-expert"}`, []string{`unknown skill "debuger-expert"`, "nearest: debugger-expert"}},
		{"not JSON", "{\n  \"debug\": \"debugger-expert\",\n}", []string{"line 3, column 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := learnHome(t)
			path := filepath.Join(t.TempDir(), "fallback.json")
			require.NoError(t, os.WriteFile(path, []byte(c.content), 0o600))
			code, _, errOut := runApp(t, a, "calibrate", "--fallback", path, "--catalog", "builtin")
			_, statErr := os.Stat(filepath.Join(a.stateDir, loader.CalibrationFile))
			if c.errs == nil {
				require.Equal(t, 0, code, errOut)
				assert.NoError(t, statErr)
				return
			}
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, path)
			for _, e := range c.errs {
				assert.Contains(t, errOut, e)
			}
			assert.True(t, os.IsNotExist(statErr), "no table written")
		})
	}
}

// `learn --rollback` says what it restored: the weights of a learn, by
// its time and records, or the first snapshot, nothing learned, which is
// not "weights learned 0001-01-01T00:00:00Z from 0 records".
func TestRollbackSaysWhatItRestored(t *testing.T) {
	a := learnHome(t)
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for i := range 60 {
		q := []string{"React 页面加载慢，首屏要 4 秒", "帮我写单元测试，用 Jest mock 掉 axios 请求", "git rebase 之后冲突了，怎么解决"}[i%3]
		confirm(t, a.stateDir, q, r.Route(q, router.Session{}).Skill, at.Add(time.Duration(i)*time.Second))
	}
	for range 2 {
		require.True(t, learnOutcome(t, a).Adopted)
	}
	for _, c := range []struct{ n, want string }{
		{"1", "restored snapshot 1: weights learned "},
		{"2", "restored snapshot 2: no learned weights (as before the first learn)"},
	} {
		code, out, errOut := runApp(t, a, "learn", "--rollback", c.n)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, c.want)
		assert.NotContains(t, out, "0001-01-01")
	}
	_, out, _ := runApp(t, a, "doctor")
	assert.Contains(t, out, "none: rolled back to before the first learn")
	assert.NotContains(t, out, "0001-01-01")
}

// learn, calibrate, install and uninstall change the state folder or the
// settings, so a word they do not take is an error, not ignored: `learn 2
// --rollback` learned and could adopt new weights instead of rolling back
// (flags stopped at the "2"), `learn rollback` learned, `calibrate
// minimize-cost` wrote a balanced table over the one in use, and `install
// dry-run` installed.
func TestLearnAndCalibrateRefuseStrayArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		err  string // in stderr
	}{
		{[]string{"learn", "rollback"}, 2, `unexpected argument "rollback"`},
		{[]string{"learn", "--dry-run", "now"}, 2, `unexpected argument "now"`},
		{[]string{"learn", "1", "--rollback"}, 1, "no snapshot 1"},
		{[]string{"learn", "--rollback", "1", "2"}, 2, `unexpected argument "2"`},
		{[]string{"calibrate", "minimize-cost"}, 2, `unexpected argument "minimize-cost"`},
		{[]string{"install", "dry-run"}, 2, `unexpected argument "dry-run"`},
		{[]string{"uninstall", "project"}, 2, `unexpected argument "project"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			a := learnHome(t)
			confirm(t, a.stateDir, "帮我写单元测试", "tester-expert", time.Now())
			code, out, errOut := runApp(t, a, tc.args...)
			assert.Equal(t, tc.code, code, out+errOut)
			assert.Contains(t, errOut, tc.err)
			assert.Empty(t, out, "nothing learned or calibrated")
			assert.NoFileExists(t, filepath.Join(a.stateDir, loader.CalibrationFile))
			assert.NoFileExists(t, filepath.Join(a.stateDir, learn.WeightsFile))
			assert.NoFileExists(t, filepath.Join(a.places.Home, ".claude", "settings.json"), "nothing installed")
		})
	}
}

// calibrate's numbers are checked, not replaced: --tolerance is a share
// (0.02 is the 2 points README gives), and `--tolerance 2`, read as 2
// points, allowed 200 and picked the cheapest skill whatever its
// accuracy; a negative or NaN tolerance and a --min-samples under 1
// became the defaults without a word.
func TestCalibrateChecksNumbers(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--tolerance", "2"}, "--tolerance 2: a share of accuracy from 0 to 1 (0.02 is 2 points)"},
		{[]string{"--tolerance", "-0.1"}, "--tolerance -0.1: a share of accuracy from 0 to 1"},
		{[]string{"--tolerance", "NaN"}, "--tolerance NaN: a share of accuracy from 0 to 1"},
		{[]string{"--min-samples", "0"}, "--min-samples 0: at least 1"},
		{[]string{"--min-samples", "-5"}, "--min-samples -5: at least 1"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			a := learnHome(t)
			confirm(t, a.stateDir, "帮我写单元测试", "tester-expert", time.Now())
			code, out, errOut := runApp(t, a, append([]string{"calibrate", "--preset", "minimize-cost"}, tc.args...)...)
			assert.Equal(t, 2, code, out+errOut)
			assert.Contains(t, errOut, tc.err)
			assert.NoFileExists(t, filepath.Join(a.stateDir, loader.CalibrationFile))
		})
	}
	a := learnHome(t)
	code, out, errOut := runApp(t, a, "calibrate", "--preset", "minimize-cost", "--tolerance", "0", "--min-samples", "1")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "(min 1 per cell)")
}

// `correct SKILL --query TEXT` with a blank TEXT is refused: it recorded
// a correction of the prompt "   ", which no prompt will ever be near,
// and said "recorded".
func TestCorrectRefusesBlankQuery(t *testing.T) {
	for _, q := range []string{"", "   ", "\t\n"} {
		t.Run(fmt.Sprintf("%q", q), func(t *testing.T) {
			a := learnHome(t)
			code, out, errOut := runApp(t, a, "correct", "tester-expert", "--query", q)
			assert.Equal(t, 1, code, out)
			assert.Contains(t, errOut, "--query is empty")
			assert.NoFileExists(t, filepath.Join(a.stateDir, feedback.LogFile))
		})
	}
}

// A --state folder that does not exist is an error: `correct X --query Q
// --state TYPO` made the folder and recorded the correction there, where
// nothing reads, and `forget --corrections --state TYPO` made it too.
func TestStateFlagMustNameAFolder(t *testing.T) {
	a := isolate(t)
	missing := filepath.Join(t.TempDir(), "skillroute-typo")
	for _, args := range [][]string{
		{"correct", "tester-expert", "--query", "write unit tests", "--state", missing},
		{"forget", "--corrections", "--state", missing},
	} {
		code, _, errOut := runApp(t, a, args...)
		assert.Equal(t, 1, code, args)
		assert.Contains(t, errOut, "no such state folder", args)
		_, err := os.Stat(missing)
		assert.True(t, os.IsNotExist(err), "%v made the folder", args)
	}
	require.NoError(t, os.MkdirAll(a.stateDir, 0o700))
	code, _, errOut := runApp(t, a, "correct", "tester-expert", "--query", "write unit tests", "--state", a.stateDir)
	assert.Equal(t, 0, code, errOut)
}
