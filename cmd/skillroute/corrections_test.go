package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webhook is the prompt: receiving a payment provider's webhook,
// which the api-integration rule sends to api-integration-specialist
// (with backend-builder on its penalty list), and which the user wants
// built into the backend.
const webhook = "We need to receive Stripe payment webhooks in our backend and mark the order as paid"

// routeJSON routes a prompt with the command and returns its decision.
func routeDecision(t *testing.T, a *app, prompt string, flags ...string) router.Decision {
	t.Helper()
	args := append(append([]string{"route", "--json"}, flags...), prompt)
	code, out, errOut := runApp(t, a, args...)
	require.Equal(t, 0, code, errOut)
	var d router.Decision
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	return d
}

func correctQuery(t *testing.T, a *app, skill, query string, flags ...string) string {
	t.Helper()
	code, out, errOut := runApp(t, a, append([]string{"correct", skill, "--query", query}, flags...)...)
	require.Equal(t, 0, code, errOut)
	return out
}

// One correction in a fresh state folder, and that very prompt goes to
// the corrected skill from the next route on, although a shipped rule
// boosts another; --explain shows the rule and the memory.
func TestOneCorrectionBeatsARule(t *testing.T) {
	a := isolate(t)
	before := routeDecision(t, a, webhook, "--catalog", "builtin")
	require.Equal(t, "api-integration-specialist", before.Skill)
	require.Contains(t, before.Rules, "api-integration", "the rule that pins backend-builder below")

	out := correctQuery(t, a, "backend-builder", webhook, "--catalog", "builtin")
	assert.Contains(t, out, "should go to backend-builder (it went to api-integration-specialist). From now on it does")

	after := routeDecision(t, a, webhook, "--catalog", "builtin")
	assert.Equal(t, "backend-builder", after.Skill)
	assert.NotEqual(t, router.Low, after.Level)
	assert.Contains(t, after.Rules, "api-integration", "the rule still fired; the user's word came after it")
	assert.Contains(t, after.Memory, "taught backend-builder")

	code, text, _ := runApp(t, a, "route", "--explain", "--catalog", "builtin", webhook)
	require.Equal(t, 0, code)
	assert.Contains(t, text, "rule api-integration penalises backend-builder")
	assert.Contains(t, text, "prompt memory: 1 remembered prompt near this one (cosine 1.00; 1 correction")
	i, j := strings.Index(text, "prompt memory: 1 remembered"), strings.Index(text, "rule api-integration penalises backend-builder")
	assert.Less(t, i, j, "the memory's node wraps the rule's")

	// The memory holds term hashes, never the prompt's text, whatever
	// log_prompts says (issue 12).
	raw, err := os.ReadFile(filepath.Join(a.stateDir, memory.File))
	require.NoError(t, err)
	for _, word := range []string{"Stripe", "stripe", "webhook", "payment", "paid"} {
		assert.NotContains(t, string(raw), word)
	}
}

// A close paraphrase (one word changed) needs two corrections; the same
// request in another order, one.
func TestTwoCorrectionsMoveAParaphrase(t *testing.T) {
	a := isolate(t)
	const paraphrase = "We need to receive Paddle payment webhooks in our backend and mark the order as paid"
	const reordered = "Mark the order as paid: we need to receive Stripe payment webhooks in our backend"
	require.Equal(t, "api-integration-specialist", routeDecision(t, a, paraphrase, "--catalog", "builtin").Skill)

	correctQuery(t, a, "backend-builder", webhook, "--catalog", "builtin")
	assert.Equal(t, "backend-builder", routeDecision(t, a, reordered, "--catalog", "builtin").Skill)
	one := routeDecision(t, a, paraphrase, "--catalog", "builtin")
	assert.Contains(t, one.Memory, "taught backend-builder", "one correction already counts for a paraphrase")

	correctQuery(t, a, "backend-builder", webhook, "--catalog", "builtin")
	assert.Equal(t, "backend-builder", routeDecision(t, a, paraphrase, "--catalog", "builtin").Skill)
}

// Prompts about something else that share one word with the corrected
// one route exactly as before, even after two corrections.
func TestCorrectionsLeaveOtherPromptsAlone(t *testing.T) {
	a := isolate(t)
	others := []string{
		"add a payment method field to the checkout form UI",              // payment
		"which backend framework should a beginner learn first",           // backend
		"sort the table by order date descending in the React admin page", // order
		"订单列表页加一个按日期筛选的下拉框",                                               // 订单 (order), against 的 corrected Chinese prompt
		"Stripe 的定价页面文案帮我润色一下",                                            // Stripe
	}
	before := map[string]router.Decision{}
	for _, p := range others {
		before[p] = routeDecision(t, a, p, "--catalog", "builtin")
	}
	for range 2 {
		correctQuery(t, a, "backend-builder", webhook, "--catalog", "builtin")
		correctQuery(t, a, "backend-builder", "接收 Stripe 的支付回调，把订单标记为已支付", "--catalog", "builtin")
	}
	for _, p := range others {
		assert.Equal(t, before[p], routeDecision(t, a, p, "--catalog", "builtin"), p)
	}
}

// Simulated feedback on the labelled prompts: every miss of one half
// (split by a hash of the prompt) is corrected once with the command,
// then the whole set is routed again. The corrected prompts go where
// they should (at least 95 %), and the others, the corrected half's and
// the held-out half's, lose nothing. Over the built-in catalog the
// project's fresh set has a dozen misses (dev.jsonl has one, held out);
// real-dev, plain published skills, has dozens.
func TestSimulatedCorrections(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared (design data) is absent")
	}
	sets := []struct {
		name, file, catalog string
	}{
		{"fresh", "../../eval/testdata/fresh.jsonl", "builtin"},
		{"real-dev", filepath.Join(shared, "eval/real-dev/prompts.jsonl"), shared + "/eval/real-dev/skills"},
	}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			a := isolate(t)
			f, err := eval.Read(set.file)
			require.NoError(t, err)
			cfg := loader.Config{Catalog: set.catalog, StateDir: a.stateDir}
			open := func() *router.Router {
				r, err := loader.Open(cfg)
				require.NoError(t, err)
				return r
			}
			want := func(c eval.Case) string {
				if c.Expected == eval.None {
					return ""
				}
				return c.Expected
			}
			heldOut := func(c eval.Case) bool {
				h := fnv.New32a()
				h.Write([]byte(c.Query))
				return h.Sum32()%2 == 1
			}
			r := open()
			right := map[string]bool{}
			var corrected []eval.Case
			for _, c := range f.Cases {
				right[c.Query] = r.Route(c.Query, router.Session{}).Skill == want(c)
				if !right[c.Query] && !heldOut(c) {
					corrected = append(corrected, c)
				}
			}
			for _, c := range corrected {
				skill := c.Expected // "none" is what correct takes for no skill
				correctQuery(t, a, skill, c.Query, "--catalog", set.catalog)
			}
			r = open()
			var fixed, restBefore, restAfter, rest, heldBefore, heldAfter, held int
			for _, c := range f.Cases {
				ok := r.Route(c.Query, router.Session{}).Skill == want(c)
				isCorrected := !right[c.Query] && !heldOut(c)
				switch {
				case isCorrected:
					if ok {
						fixed++
					}
				default:
					rest++
					restBefore += b2i(right[c.Query])
					restAfter += b2i(ok)
					if right[c.Query] && !ok {
						t.Errorf("lost: %q (%s)", c.Query, c.Expected)
					}
				}
				if heldOut(c) {
					held++
					heldBefore += b2i(right[c.Query])
					heldAfter += b2i(ok)
				}
			}
			t.Logf("%s: %d prompts, %d corrected once: %d right after; the other %d: %d right before, %d after; held-out half (%d): %d before, %d after",
				set.name, len(f.Cases), len(corrected), fixed, rest, restBefore, restAfter, held, heldBefore, heldAfter)
			require.NotEmpty(t, corrected)
			assert.GreaterOrEqual(t, float64(fixed)/float64(len(corrected)), 0.95)
			assert.GreaterOrEqual(t, restAfter, restBefore, "no drop on the rest")
			assert.GreaterOrEqual(t, heldAfter, heldBefore, "no drop on the held-out half")
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// `correct --undo` takes the last correction back, from the log and the
// memory: the prompt routes as before it.
func TestCorrectUndo(t *testing.T) {
	a := isolate(t)
	code, _, errOut := runApp(t, a, "correct", "--undo")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no correction to undo")

	const other = "订单列表页加一个按日期筛选的下拉框"
	before := routeDecision(t, a, other, "--catalog", "builtin").Skill
	require.Equal(t, "frontend-expert", before)
	correctQuery(t, a, "miniprogram-expert", other, "--catalog", "builtin")
	correctQuery(t, a, "backend-builder", webhook, "--catalog", "builtin")
	require.Equal(t, "backend-builder", routeDecision(t, a, webhook, "--catalog", "builtin").Skill)

	code, out, errOut := runApp(t, a, "correct", "--undo", "--catalog", "builtin")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `undone: "`+webhook+`" is no longer corrected to backend-builder`)
	assert.Equal(t, "api-integration-specialist", routeDecision(t, a, webhook, "--catalog", "builtin").Skill)
	assert.Equal(t, "miniprogram-expert", routeDecision(t, a, other, "--catalog", "builtin").Skill, "the earlier correction stays")

	records, _, err := (&feedback.Log{Dir: a.stateDir}).Read()
	require.NoError(t, err)
	require.Len(t, records, 1)
	assert.Equal(t, other, records[0].Query)
	m, err := memory.LoadDir(a.stateDir)
	require.NoError(t, err)
	assert.Equal(t, 1, m.Events())
}

// `forget --corrections SKILL` clears the corrections to or from one
// skill; without SKILL, all of them.
func TestForgetCorrections(t *testing.T) {
	a := isolate(t)
	const other = "订单列表页加一个按日期筛选的下拉框"
	before := routeDecision(t, a, other, "--catalog", "builtin").Skill
	require.Equal(t, "frontend-expert", before)
	correctQuery(t, a, "miniprogram-expert", other, "--catalog", "builtin")
	correctQuery(t, a, "backend-builder", webhook, "--catalog", "builtin")
	correctQuery(t, a, "backend-builder", webhook, "--catalog", "builtin")

	code, out, errOut := runApp(t, a, "forget", "--corrections", "backend-builder", "--catalog", "builtin")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "forgot 2 corrections involving backend-builder")
	assert.Equal(t, "api-integration-specialist", routeDecision(t, a, webhook, "--catalog", "builtin").Skill)
	assert.Equal(t, "miniprogram-expert", routeDecision(t, a, other, "--catalog", "builtin").Skill, "the other correction stays")

	code, out, _ = runApp(t, a, "forget", "--corrections", "backend-builder")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "no corrections involving backend-builder to forget")

	code, out, _ = runApp(t, a, "forget", "--corrections")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "forgot 1 correction:")
	assert.Equal(t, before, routeDecision(t, a, other, "--catalog", "builtin").Skill)

	code, _, _ = runApp(t, a, "forget")
	assert.Equal(t, 2, code, "forget what? usage")
}

// `forget --all` deletes everything skillroute keeps in the state folder,
// says what, and leaves what is not its own.
func TestForgetAll(t *testing.T) {
	a := isolate(t)
	dir := a.stateDir
	code, _, errOut := runApp(t, a, "skills", "install")
	require.Equal(t, 0, code, errOut)
	correctQuery(t, a, "backend-builder", webhook, "--catalog", "builtin") // feedback, memory
	// The hook's runtime, not the command, which turns the garbage
	// collector off for the rest of the process: session, decisions, caches.
	var hookOut strings.Builder
	a.hookRuntime(time.Minute).Run(strings.NewReader(`{"hook_event_name":"UserPromptSubmit","session_id":"s1","prompt":"React 页面加载慢，首屏要 4 秒"}`), &hookOut)
	require.NotEmpty(t, hookOut.String())
	code, _, errOut = runApp(t, a, "learn") // memory rebuilt
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runApp(t, a, "calibrate", "--preset", "balanced")
	require.Equal(t, 0, code, errOut)
	for name, data := range map[string]string{
		"weights.json": "{}", "snapshots/weights-1.json": "{}", "workflow.json": "{}", "hook.log": "x\n", "hook.log.1": "x\n",
		"decisions-2.jsonl": "{}\n", "feedback-1.jsonl": "", ".weights.json.123.tmp": "",
		"notes.txt": "mine", "bin/skillroute": "the plugin's build",
	} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600))
	}
	code, out, errOut := runApp(t, a, "forget", "--all")
	require.Equal(t, 0, code, errOut)
	for _, name := range []string{"sessions/", "cache/", "snapshots/", "feedback.jsonl", "feedback-1.jsonl", "decisions.jsonl",
		"decisions-2.jsonl", "hook.log", "hook.log.1", "workflow.json", "weights.json", "calibration.json", "memory.bin", ".weights.json.123.tmp"} {
		assert.Contains(t, out, name)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	assert.ElementsMatch(t, []string{"notes.txt", "bin"}, left)
	assert.Contains(t, out, "left (not skillroute's data")

	require.NoError(t, os.RemoveAll(filepath.Join(dir, "bin")))
	require.NoError(t, os.Remove(filepath.Join(dir, "notes.txt")))
	code, out, errOut = runApp(t, a, "forget", "--all")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "nothing to remove")
	assert.Contains(t, out, "removed the empty folder")
	code, out, _ = runApp(t, a, "forget", "--all")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "does not exist")
}

// `forget --all --state DIR` empties the named folder (the plugin's data
// folder, which a plugin command's shell cannot find by itself) and
// leaves the default one alone.
func TestForgetAllNamedState(t *testing.T) {
	a := isolate(t)
	named := filepath.Join(t.TempDir(), "plugin-data")
	for _, dir := range []string{a.stateDir, named} {
		require.NoError(t, os.MkdirAll(dir, 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "weights.json"), []byte("{}"), 0o600))
	}
	code, out, errOut := runApp(t, a, "forget", "--all", "--state", named)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "weights.json")
	assert.NoFileExists(t, filepath.Join(named, "weights.json"))
	assert.FileExists(t, filepath.Join(a.stateDir, "weights.json"))
}

// stateFile tells skillroute's files from others, by name.
func TestStateFileNames(t *testing.T) {
	for name, ours := range map[string]bool{
		"sessions": true, "cache": true, "snapshots": true, "snapshots.lock": true,
		"decisions.jsonl": true, "decisions.jsonl.lock": true, "decisions-12.jsonl": true, "decisions.jsonl.1": true,
		"feedback.jsonl": true, "feedback-20260101T000000Z.jsonl": true, "hook.log": true, "hook-1.log": true, "hook.log.1": true,
		"weights.json": true, "weights.json.lock": true, "calibration.json": true, "workflow.json": true,
		"memory.bin": true, "memory.bin.lock": true, ".memory.bin.verified": true, ".feedback-3.jsonl.8812.tmp": true,
		"memory.journal": true, "memory.journal.lock": true,
		"bin": false, "bin.lock": false, "built-from": false, "build.log": false, "told-twice": false,
		"notes.txt": false, ".bashrc": false, "weights.json.bak": false, ".tmp": false, "feedback.txt": false,
	} {
		assert.Equal(t, ours, stateFile(name), name)
	}
}

// Twenty corrections of one prompt away from a skill (weights learned
// from them, as if adopted) move that prompt, and cost the skill none of
// its other dev.jsonl prompts: the skill's own delta, which applies
// everywhere, is bounded (learn.MaxSkillDelta), and the term deltas only
// touch the words of that prompt. Weights alone are bounded: "React 页面加载慢，
// 首屏要 4 秒", which performance-expert wins 12.3 to 4.1 since the
// skills' situations, comes to a near tie (10.1 to 9.4) after twenty
// corrections, and the prompt memory moves it (TestOneCorrectionBeatsARule).
func TestCorrectionsStayLocal(t *testing.T) {
	f, r := devRouter(t)
	now := time.Now()
	for _, c := range []struct{ from, to, query string }{
		{"frontend-expert", "vue-expert", "用 React 写一个带搜索过滤的下拉选择组件，选项从接口异步加载"},
		{"api-integration-specialist", "backend-builder", webhook},
		{"performance-expert", "frontend-expert", "React 页面加载慢"},
	} {
		t.Run(c.from, func(t *testing.T) {
			var recs []feedback.Record
			for i := range 20 {
				recs = append(recs, feedback.Record{TS: now.Add(-time.Duration(i) * time.Minute), Session: fmt.Sprint(i), Query: c.query,
					Routed: c.from, Corrected: c.to, Kind: feedback.KindExplicit})
			}
			w := learn.Learn(recs, r.Index, now)
			assert.InDelta(t, -learn.MaxSkillDelta, w.SkillDelta(c.from), 1e-9)
			learned := *r
			learned.Weights = w
			assert.Equal(t, c.to, learned.Route(c.query, router.Session{}).Skill, "the corrected prompt moves, over any rule")
			for _, dc := range f.Cases {
				if dc.Expected != c.from || dc.Query == c.query || r.Route(dc.Query, router.Session{}).Skill != c.from {
					continue
				}
				assert.Equal(t, c.from, learned.Route(dc.Query, router.Session{}).Skill, dc.Query)
			}
		})
	}
}

// `correct none` says no skill should have been recommended: the prompt
// is then answered with silence.
func TestCorrectToNone(t *testing.T) {
	a := isolate(t)
	const dinner = "book a table for dinner and send the invite to the team"
	before := routeDecision(t, a, dinner, "--catalog", "builtin")
	require.NotEmpty(t, before.Skill, "routed to a skill by stray words")
	out := correctQuery(t, a, "none", dinner, "--catalog", "builtin")
	assert.Contains(t, out, "should go to no skill (it went to "+before.Skill+")")
	after := routeDecision(t, a, dinner, "--catalog", "builtin")
	assert.Empty(t, after.Skill)
	assert.Contains(t, after.Memory, "taught no skill")
	records, _, err := (&feedback.Log{Dir: a.stateDir}).Read()
	require.NoError(t, err)
	require.Len(t, records, 1)
	assert.Equal(t, "", records[0].Corrected)
	assert.Equal(t, before.Skill, records[0].Routed)

	code, _, errOut := runApp(t, a, "correct", "nobody", "--query", dinner, "--catalog", "builtin")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `(or "none": no skill should have been recommended)`)
}
