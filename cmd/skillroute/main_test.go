package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/skills"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// isolate returns the command's view of a fresh machine: a home of its
// own with the state folder inside, and no Claude Code environment, so no
// user's skills or state leak in.
func isolate(tb testing.TB) *app {
	tb.Helper()
	home := tb.TempDir()
	return &app{stateDir: filepath.Join(home, ".claude", "skillroute"), places: skills.Places{Home: home}, stdin: strings.NewReader(""),
		lookGo: func() (string, error) { return "/usr/local/go/bin/go", nil }}
}

// runApp runs a command line in-process with the given app.
func runApp(t *testing.T, a *app, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(a, args, &out, &errb)
	return code, out.String(), errb.String()
}

// runCLI runs a command line in-process on a fresh machine.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runApp(t, isolate(t), args...)
}

const sharedDev = "../../../shared/eval/dev.jsonl"

func TestRouteJSON(t *testing.T) {
	code, out, _ := runCLI(t, "route", "--json", "--catalog", "builtin", "React", "页面加载慢，Lighthouse", "只有", "40", "分")
	require.Equal(t, 0, code)
	var d struct {
		Query      string  `json:"query"`
		Skill      string  `json:"skill"`
		Confidence float64 `json:"confidence"`
		Level      string  `json:"level"`
		Candidates []struct {
			Skill      string  `json:"skill"`
			Score      float64 `json:"score"`
			Confidence float64 `json:"confidence"`
		} `json:"candidates"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	assert.Equal(t, "React 页面加载慢，Lighthouse 只有 40 分", d.Query)
	assert.Equal(t, "performance-expert", d.Skill, "a slow React page is a performance problem")
	assert.Contains(t, []string{"HIGH", "MEDIUM"}, d.Level)
	require.NotEmpty(t, d.Candidates)
	assert.Equal(t, d.Skill, d.Candidates[0].Skill)
	assert.InDelta(t, d.Confidence, d.Candidates[0].Confidence, 1e-9)
	for _, c := range d.Candidates {
		assert.True(t, c.Confidence >= 0 && c.Confidence <= 1)
	}
}

func TestRouteAbstainsOnSmallTalk(t *testing.T) {
	code, out, _ := runCLI(t, "route", "--json", "thanks, see you tomorrow")
	require.Equal(t, 0, code)
	var d struct {
		Skill string `json:"skill"`
		Level string `json:"level"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	assert.Equal(t, "", d.Skill)
	assert.Equal(t, "LOW", d.Level)
}

func TestRouteExplain(t *testing.T) {
	code, out, _ := runCLI(t, "route", "--explain", "渗透测试报告怎么写")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "security-expert")
	assert.Contains(t, out, "bm25 security-expert")
	assert.Contains(t, out, "field, weight")
}

// Flags after the prompt are flags: `route fix the login bug --json`
// printed text, with "--json" routed as a word of the prompt, and a
// --catalog there routed over the default catalog. After "--" every word
// is the prompt's.
func TestRouteFlagsAfterText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		query string
	}{
		{"json last", []string{"write", "unit", "tests", "--json", "--catalog", "builtin"}, "write unit tests"},
		{"json between", []string{"write", "--json", "unit tests", "--catalog=builtin"}, "write unit tests"},
		{"words after --", []string{"--json", "--catalog", "builtin", "--", "why", "does", "-race", "fail"}, "why does -race fail"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, append([]string{"route"}, tc.args...)...)
			require.Equal(t, 0, code, errOut)
			var d struct {
				Query string `json:"query"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &d), "JSON asked for: %s", out)
			assert.Equal(t, tc.query, d.Query)
		})
	}
}

func TestRouteUsage(t *testing.T) {
	code, _, errOut := runCLI(t, "route")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "Usage: skillroute route")
	code, _, errOut = runCLI(t, "route", "--help")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "-json")
	code, _, _ = runCLI(t, "nonsense")
	assert.Equal(t, 2, code)
}

func TestCompileWritesLoadableIndex(t *testing.T) {
	file := filepath.Join(t.TempDir(), "index.bin")
	code, out, errOut := runCLI(t, "compile", "-o", file)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "compiled 50 skills")
	info, err := os.Stat(file)
	require.NoError(t, err)
	assert.Greater(t, info.Size(), int64(1000))
}

// The hook's background compile must leave both caches the hook loads,
// else the prompts after a catalog change keep missing the deadline.
func TestCompileCachesIndexAndRules(t *testing.T) {
	a := isolate(t)
	code, _, errOut := runApp(t, a, "compile", "--catalog", "builtin")
	require.Equal(t, 0, code, errOut)
	cache := a.cacheDir()
	for _, pattern := range []string{"index-*.bin", "rules-*.bin"} {
		found, _ := filepath.Glob(filepath.Join(cache, pattern))
		assert.Len(t, found, 1, pattern)
	}
}

// A compile into a cache it cannot write fails, naming the folder: it
// said "compiled ... -> CACHE" and exited 0 with nothing cached, and the
// hook went on compiling on every prompt's clock.
func TestCompileFailsWhenTheCacheCannotBeWritten(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		says string // on stdout or stderr
	}{
		{"compile", []string{"compile", "--catalog", "builtin"}, "cannot cache index in"},
		{"background compile", []string{"compile", "--catalog", "builtin", "--background"}, "not a directory"},
		{"skills install", []string{"skills", "install", "--dir", "SKILLS", "tester-expert"}, "warning: index not compiled yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := isolate(t)
			require.NoError(t, os.MkdirAll(a.stateDir, 0o700))
			require.NoError(t, os.WriteFile(a.cacheDir(), []byte("a file where the cache folder goes"), 0o600))
			args := slices.Clone(tc.args)
			for i, arg := range args {
				if arg == "SKILLS" {
					args[i] = filepath.Join(a.places.Home, ".claude", "skills")
				}
			}
			code, out, errOut := runApp(t, a, args...)
			assert.Contains(t, out+errOut, tc.says)
			assert.NotContains(t, out, "compiled into")
			if tc.name != "skills install" { // the skills are written: a warning only
				assert.Equal(t, 1, code, out+errOut)
				assert.NotContains(t, out, "compiled")
				assert.Contains(t, errOut, a.cacheDir())
			}
		})
	}
}

func TestCompileReportsBadSkillFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "broken"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken", "SKILL.md"),
		[]byte("---\nname: broken\ndescription: [unclosed\n---\nbody\n"), 0o644))
	code, _, errOut := runCLI(t, "compile", "--catalog", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, filepath.Join(dir, "broken", "SKILL.md")+":")
}

func TestEvalJSONLastLine(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cases.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(strings.Join([]string{
		`{"query": "帮我写单元测试，用 Jest mock 掉 axios", "expected": "tester-expert", "lang": "zh", "kind": "direct"}`,
		`{"query": "git rebase 之后冲突了怎么解决", "expected": "git-operation-master", "lang": "zh", "kind": "direct"}`,
		`{"query": "你好", "expected": "none", "lang": "zh", "kind": "none"}`,
	}, "\n")), 0o644))
	code, out, errOut := runCLI(t, "eval", "--json", "--split", "2", file)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var s map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &s))
	for _, k := range []string{"n", "top1", "top3", "mrr", "none_n", "none_correct", "false_abstain", "p50_us", "p99_us",
		"high_n", "high_precision", "calibration", "by_lang", "by_kind", "folds"} {
		assert.Contains(t, s, k)
	}
	assert.Equal(t, 2.0, s["n"])
	assert.Equal(t, 1.0, s["none_n"])
	assert.Equal(t, 1.0, s["top1"])
	assert.Equal(t, 1.0, s["none_correct"])
	assert.Len(t, s["folds"], 2, "--split 2: two halves")
	assert.Contains(t, s["by_kind"], "none")
	assert.Contains(t, out, "lang zh")
}

// --split K takes K from 2 to the number of prompts: a K of a billion
// made a billion summaries and ran the machine out of memory (a crash,
// not an error), and 1 or a negative K printed the usage without saying
// what was wrong.
func TestEvalSplitBounds(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cases.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(`{"query": "帮我写单元测试", "expected": "tester-expert"}
{"query": "你好", "expected": "none"}
{"id": "s1", "turns": [{"query": "write unit tests", "expected": "tester-expert"}, {"query": "thanks", "expected": "none"}]}
`), 0o644))
	for _, tc := range []struct {
		split string
		code  int
		msg   string
	}{
		{"2", 0, ""},
		{"4", 0, ""},
		{"5", 1, "--split 5: more parts than the 4 prompts of " + file},
		{"1000000000000", 1, "--split 1000000000000: more parts than the 4 prompts"},
		{"1", 2, "--split 1: K is 2 or more (0: no split)"},
		{"-2", 2, "--split -2: K is 2 or more (0: no split)"},
	} {
		t.Run(tc.split, func(t *testing.T) {
			code, _, errOut := runCLI(t, "eval", "--catalog", "builtin", "--split", tc.split, file)
			assert.Equal(t, tc.code, code, errOut)
			if tc.msg != "" {
				assert.Contains(t, errOut, tc.msg)
			}
		})
	}
}

// A file of single prompts and sessions is summarised whole by --json:
// its last line counted the sessions' turns alone, dropping the single
// prompts' figures.
func TestEvalJSONCountsPromptsAndSessions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mixed.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(`{"query": "帮我写单元测试，用 Jest mock 掉 axios", "expected": "tester-expert"}
{"query": "你好", "expected": "none"}
{"id": "s1", "turns": [{"query": "git rebase 之后冲突了怎么解决", "expected": "git-operation-master"}, {"query": "thanks, that's all", "expected": "none"}]}
`), 0o644))
	code, out, errOut := runCLI(t, "eval", "--catalog", "builtin", "--json", "--split", "2", file)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var s struct {
		N     int `json:"n"`
		NoneN int `json:"none_n"`
		Folds []struct {
			N     int `json:"n"`
			NoneN int `json:"none_n"`
		} `json:"folds"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &s))
	assert.Equal(t, 2, s.N, "a single prompt and a turn expect a skill")
	assert.Equal(t, 2, s.NoneN, "a single prompt and a turn expect none")
	require.Len(t, s.Folds, 2)
	assert.Equal(t, 4, s.Folds[0].N+s.Folds[0].NoneN+s.Folds[1].N+s.Folds[1].NoneN, "the folds hold every prompt")
}

func TestEvalNamesBadLine(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(file, []byte("{\"query\":\"a\",\"expected\":\"none\"}\n{oops\n"), 0o644))
	code, _, errOut := runCLI(t, "eval", file)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, file+":2:")
}

func TestRulesLint(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, []byte(`rules:
  - id: pentest
    note: a pentest is security work
    trigger: '渗透测试|pentest'
    boost: security-expert
    penalty: [tester-expert]
    weight: 0.3
    examples: ["下周要做渗透测试，先列范围"]
`), 0o644))
	code, out, errOut := runCLI(t, "rules", "lint", good)
	require.Equal(t, 0, code, out+errOut)
	assert.Contains(t, out, "1 rules: 1 loaded, 1 examples: ok")

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte(`rules:
  - id: broken-regex
    trigger: '(unclosed'
    boost: security-expert
    weight: 0.3
  - id: ghost
    trigger: 'x'
    boost: no-such-skill
    weight: 0.3
`), 0o644))
	code, _, errOut = runCLI(t, "rules", "lint", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, bad+":2: rule broken-regex: trigger does not compile")
	assert.Contains(t, errOut, "rule ghost: boost names unknown skill \"no-such-skill\"")

	wrong := filepath.Join(dir, "wrong.yaml")
	require.NoError(t, os.WriteFile(wrong, []byte(`rules:
  - id: misrouted
    trigger: 'rebase'
    boost: copywriter-expert
    weight: 0.1
    examples: ["git rebase 冲突了"]
`), 0o644))
	code, out, _ = runCLI(t, "rules", "lint", wrong)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "rule misrouted: example \"git rebase 冲突了\" routes to")
}

// TestBuiltinRulesLint keeps the shipped rules file clean: every rule
// compiles, names real skills, and its examples route to its boost.
func TestBuiltinRulesLint(t *testing.T) {
	code, out, errOut := runCLI(t, "rules", "lint", "../../rules/disambiguation.yaml")
	require.Equal(t, 0, code, out+errOut)
}

func TestSkillsInstallAndDiscovery(t *testing.T) {
	a := isolate(t)
	home := a.places.Home
	dir := filepath.Join(home, ".claude", "skills")
	// A user's own version of a built-in skill must survive install.
	mine := filepath.Join(dir, "tester-expert", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(mine), 0o755))
	custom := "---\nname: tester-expert\ndescription: my own testing playbook for flaky cucumber suites\n---\nbody\n"
	require.NoError(t, os.WriteFile(mine, []byte(custom), 0o644))

	code, out, errOut := runApp(t, a, "skills", "install")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "49 written, 0 overwritten, 0 unchanged, 1 skipped")
	got, err := os.ReadFile(mine)
	require.NoError(t, err)
	assert.Equal(t, custom, string(got))

	code, out, _ = runApp(t, a, "skills", "install")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "0 written, 0 overwritten, 49 unchanged, 1 skipped")

	// The user's file overrides the built-in skill in the merged catalog.
	code, out, _ = runApp(t, a, "skills", "list")
	require.Equal(t, 0, code)
	assert.Contains(t, out, mine)
	assert.Contains(t, out, "(derived)")
	assert.Contains(t, out, "50 skills")

	code, out, _ = runApp(t, a, "skills", "install", "--force")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "1 overwritten")
}

// A user may install only the built-in skills they want: each skill
// Claude Code loads takes a line of its skill listing.
func TestSkillsInstallNamed(t *testing.T) {
	a := isolate(t)
	dir := filepath.Join(a.places.Home, ".claude", "skills")
	code, _, errOut := runApp(t, a, "skills", "install", "performance-expert", "--force", "tester-expert")
	require.Equal(t, 0, code, errOut)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"performance-expert", "tester-expert"}, names)

	code, _, errOut = runApp(t, a, "skills", "install", "perfomance-expert")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `no built-in skill "perfomance-expert"`)
	entries, _ = os.ReadDir(dir)
	assert.Len(t, entries, 2, "nothing written")
}

func TestDiscoveryAddsProjectAndPluginSkills(t *testing.T) {
	a, project := isolate(t), t.TempDir()
	home := a.places.Home
	a.places.ProjectDir = project
	write := func(path, body string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	}
	write(filepath.Join(project, ".claude", "skills", "invoice-helper", "SKILL.md"),
		"---\ndescription: Generate and check customer invoices, VAT lines and credit notes\n---\n")
	write(filepath.Join(home, ".claude", "plugins", "cache", "market", "acme", "1.0.0", "skills", "deploy", "SKILL.md"),
		"---\nname: deploy\ndescription: Ship the acme platform to the fleet\n---\n")
	write(filepath.Join(home, ".claude", "skills", "broken", "SKILL.md"), "---\nname: [\n---\n")
	write(filepath.Join(home, ".claude", "settings.json"), `{"enabledPlugins": {"acme@market": true}}`)
	code, out, errOut := runApp(t, a, "skills", "list")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "invoice-helper")
	assert.Contains(t, out, "acme:deploy")
	assert.Contains(t, out, "52 skills")
	assert.Contains(t, errOut, "broken")

	code, out, _ = runApp(t, a, "route", "--json", "the VAT lines on this customer invoice are wrong, add a credit note")
	require.Equal(t, 0, code)
	assert.Contains(t, out, `"skill":"invoice-helper"`)

	// Disabling the plugin in the settings takes its skills out of the
	// cached index: the settings files are part of its stamp.
	write(filepath.Join(home, ".claude", "settings.json"), `{"enabledPlugins": {"acme@market": false}}`)
	code, out, errOut = runApp(t, a, "skills", "list")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "acme:deploy")
	assert.Contains(t, out, "51 skills")
}

// A project skill with paths is listed with its globs, and routed to only
// for a prompt that names a file they match: Claude Code loads it then.
func TestSkillWithPathsRoutedForItsFiles(t *testing.T) {
	a, project := isolate(t), t.TempDir()
	a.places.ProjectDir = project
	p := filepath.Join(project, ".claude", "skills", "migration-writer", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte("---\ndescription: Write reversible Alembic database migrations, upgrade and downgrade steps\npaths: [\"migrations/**/*.py\"]\n---\n"), 0o644))

	code, out, errOut := runApp(t, a, "skills", "list")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "migration-writer (paths: migrations/**/*.py)")

	code, out, _ = runApp(t, a, "route", "--explain", "write a reversible alembic migration with upgrade and downgrade steps")
	require.Equal(t, 0, code)
	assert.NotContains(t, out, "route to migration-writer")
	assert.Contains(t, out, "left out: migration-writer")

	code, out, _ = runApp(t, a, "route", "--json", "write a reversible alembic migration in migrations/versions/0042_orders.py with upgrade and downgrade steps")
	require.Equal(t, 0, code)
	assert.Contains(t, out, `"skill":"migration-writer"`)
}

func TestDoctor(t *testing.T) {
	a := isolate(t)
	code, out, _ := runApp(t, a, "doctor")
	assert.Equal(t, 1, code, "nothing installed yet")
	assert.Contains(t, out, "FAIL hooks")

	bin, err := os.Executable() // any existing file stands for the binary
	require.NoError(t, err)
	code, _, errOut := runApp(t, a, "install", "--binary", bin)
	require.Equal(t, 0, code, errOut)
	code, out, errOut = runApp(t, a, "doctor")
	require.Equal(t, 0, code, out+errOut)
	assert.Contains(t, out, "5 of 5 events")
	assert.Contains(t, out, "50 skills")
	assert.Contains(t, out, "routes to performance-expert")
	assert.Contains(t, out, "0 memories, 0 declared tools")

	require.NoError(t, os.WriteFile(filepath.Join(a.stateDir, "tools.yaml"), []byte("- name: x\n"), 0o644))
	code, out, _ = runApp(t, a, "doctor")
	assert.Equal(t, 1, code, "a broken tools file fails the check")
	assert.Contains(t, out, "tools.yaml:1: tool x has no description")
	require.NoError(t, os.Remove(filepath.Join(a.stateDir, "tools.yaml")))

	// Installing again, under another binary name, replaces the entries.
	code, out, _ = runApp(t, a, "install", "--binary", bin, "--no-skills")
	require.Equal(t, 0, code)
	assert.NotContains(t, out, "added")
}

// doctor counts the prompts the hook gave up on at its deadline, which
// were silent with no word but in hook.log: a few pass, a habit fails.
func TestDoctorHookDeadline(t *testing.T) {
	a := isolate(t)
	bin, err := os.Executable()
	require.NoError(t, err)
	code, _, errOut := runApp(t, a, "install", "--binary", bin)
	require.Equal(t, 0, code, errOut)
	var decisions, log strings.Builder
	for i := range 6 {
		fmt.Fprintf(&decisions, `{"id":"p%d","skill":"","time":"2026-12-04T01:0%d:00Z"}`+"\n", i, i)
	}
	deadline := `{"time":"2026-12-04T01:05:30Z","hook_event":"UserPromptSubmit","msg":"deadline of 200ms passed (200.4 ms)"}` + "\n"
	log.WriteString(deadline)
	write := func() {
		require.NoError(t, os.WriteFile(filepath.Join(a.stateDir, "decisions.jsonl"), []byte(decisions.String()), 0o600))
		require.NoError(t, os.WriteFile(filepath.Join(a.stateDir, "hook.log"), []byte(log.String()), 0o600))
	}
	write()
	code, out, errOut := runApp(t, a, "doctor")
	require.Equal(t, 0, code, out+errOut)
	assert.Contains(t, out, "ok   hook deadline")
	assert.Contains(t, out, "1 of 7 prompts since")

	log.WriteString(strings.Repeat(deadline, 2))
	write()
	code, out, _ = runApp(t, a, "doctor")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL hook deadline")
	assert.Contains(t, out, "3 of 9 prompts since")
	assert.Contains(t, out, "hook.log says why")
	assert.Contains(t, out, "6 routed prompts logged\n")

	// A record a kill cut short is skipped, and said so; not a prompt.
	decisions.WriteString(`{"id":"p6","skill":"","ti`)
	write()
	_, out, _ = runApp(t, a, "doctor")
	assert.Contains(t, out, "6 routed prompts logged; 1 line skipped")
}

// doctor names every skill file the hook leaves out, on every run: not
// only the first, whose compile warns, but also once the index is cached
// and nothing is parsed again.
func TestDoctorNamesSkillFilesLeftOut(t *testing.T) {
	for _, tc := range []struct {
		name, text, says string
	}{
		{"a YAML error", "---\nname: [\n---\n", "SKILL.md:3: did not find expected node content"},
		{"a frontmatter never closed", "---\nname: broken\ndescription: no end\n", "SKILL.md:1: frontmatter opened with --- is never closed"},
		{"keywords of the wrong kind", "---\nname: broken\nkeywords: [a, b]\n---\n", "SKILL.md:3:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := isolate(t)
			skillsDir := filepath.Join(a.places.Home, ".claude", "skills")
			for name, text := range map[string]string{"good": "---\ndescription: Generate customer invoices\n---\n", "broken": tc.text} {
				require.NoError(t, os.MkdirAll(filepath.Join(skillsDir, name), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(skillsDir, name, "SKILL.md"), []byte(text), 0o644))
			}
			broken := filepath.Join(skillsDir, "broken", "SKILL.md")
			for _, run := range []string{"first run, compiling", "second run, cached"} {
				code, out, _ := runApp(t, a, "doctor")
				assert.Equal(t, 1, code, run)
				assert.Contains(t, out, "ok   installed skills       1 skills", run)
				assert.Regexp(t, `FAIL skill files +1 left out, never routed to: `, out, run)
				assert.Contains(t, out, broken, run)
				assert.Contains(t, out, tc.says, run)
			}
		})
	}
}

// A skill whose description holds an unquoted colon is routed, and doctor
// names its header, on every run, as a note that fails nothing: the hook
// reads it, a strict YAML reader would not.
func TestDoctorNotesRepairedHeaders(t *testing.T) {
	a := isolate(t)
	dir := filepath.Join(a.places.Home, ".claude", "skills", "duck")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SKILL.md"),
		[]byte("---\nname: duck\ndescription: DuckDB for Python. Trigger on: SQL over Parquet files\n---\n"), 0o644))
	for _, run := range []string{"first run, compiling", "second run, cached"} {
		_, out, _ := runApp(t, a, "doctor")
		assert.Contains(t, out, "ok   installed skills       1 skills", run)
		assert.Regexp(t, `skill header +\S+/duck/SKILL.md:3: mapping values are not allowed`, out, run)
		assert.NotContains(t, out, "FAIL skill header", run)
		assert.NotContains(t, out, "skill files", run)
	}
	code, out, _ := runApp(t, a, "route", "query parquet files with sql")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "duck ", "the skill routes")
}

// doctor says when Claude Code's skill listing is over its budget, when
// skillroute is installed twice, and when the plugin cannot build its
// router for want of Go.
func TestDoctorListingPluginAndDoubleInstall(t *testing.T) {
	a := isolate(t)
	home := a.places.Home
	bin, err := os.Executable()
	require.NoError(t, err)
	code, _, errOut := runApp(t, a, "install", "--binary", bin)
	require.Equal(t, 0, code, errOut)

	doctor := func() (int, string) {
		code, out, _ := runApp(t, a, "doctor")
		return code, out
	}
	code, text := doctor()
	require.Equal(t, 0, code, text)
	assert.Regexp(t, `ok   skill listing +\d+ of 30000 chars: 50 skills and commands take \d+`, text)

	a.listingBudget = "9000"
	code, text = doctor()
	assert.Equal(t, 1, code)
	assert.Regexp(t, `FAIL skill listing +\d+ of 9000 chars: .*over budget`, text)
	a.listingBudget = ""

	// The plugin enabled as well: two lines per prompt.
	settings := filepath.Join(home, ".claude", "settings.json")
	var s map[string]any
	data, err := os.ReadFile(settings)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &s))
	s["enabledPlugins"] = map[string]any{"skillroute@local": true}
	data, _ = json.Marshal(s)
	require.NoError(t, os.WriteFile(settings, data, 0o644))
	a.lookGo = func() (string, error) { return "", exec.ErrNotFound } // no Go
	code, text = doctor()
	assert.Equal(t, 1, code)
	assert.Contains(t, text, "FAIL installed twice")
	assert.Contains(t, text, "FAIL plugin")
	assert.Contains(t, text, "Go is not installed, so the plugin cannot build its router and stays silent")

	// install warns about the plugin.
	code, _, errOut = runApp(t, a, "install", "--binary", bin, "--no-skills")
	require.Equal(t, 0, code)
	assert.Contains(t, errOut, "the skillroute plugin is also enabled")

	// Plugin only, built: no complaint about hooks.
	code, _, _ = runApp(t, a, "uninstall")
	require.Equal(t, 0, code)
	pluginBin := filepath.Join(home, ".claude", "plugins", "data", "skillroute-local", "bin")
	require.NoError(t, os.MkdirAll(pluginBin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pluginBin, "skillroute"), nil, 0o755))
	code, text = doctor()
	assert.Equal(t, 0, code, text)
	assert.Contains(t, text, "ok   plugin")
	assert.NotContains(t, text, "installed twice")
}

// uninstall --dry-run reads as a dry run and writes nothing.
func TestUninstallDryRun(t *testing.T) {
	a := isolate(t)
	bin, err := os.Executable()
	require.NoError(t, err)
	code, _, errOut := runApp(t, a, "install", "--binary", bin, "--no-skills")
	require.Equal(t, 0, code, errOut)
	settings := filepath.Join(a.places.Home, ".claude", "settings.json")
	before, err := os.ReadFile(settings)
	require.NoError(t, err)

	code, out, _ := runApp(t, a, "uninstall", "--dry-run")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "dry run: nothing is written."), out)
	assert.Contains(t, out, "UserPromptSubmit     would be removed")
	assert.NotContains(t, out, "were left")
	after, err := os.ReadFile(settings)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))

	code, out, _ = runApp(t, a, "uninstall")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "UserPromptSubmit     removed")
}

// The hook command end to end, as Claude Code runs it: after `skills
// install`, a prompt event gets the JSON line; garbage gets silence.
func TestHookCommand(t *testing.T) {
	a := isolate(t)
	code, _, errOut := runApp(t, a, "skills", "install")
	require.Equal(t, 0, code, errOut)
	// The 200 ms budget is for a real hook; -race on a busy CI machine
	// runs ten times slower.
	hookCall := func(event string) string {
		var out bytes.Buffer
		a.hookRuntime(10*time.Second).Run(strings.NewReader(event), &out)
		return out.String()
	}
	out := hookCall(`{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"git rebase 之后冲突了，怎么解决"}`)
	assert.True(t, strings.HasPrefix(out, `{"hookSpecificOutput":{`), out)
	assert.Contains(t, out, `\"git-operation-master\"`)

	for _, garbage := range []string{"", "{", `{"hook_event_name":"Stop"}`, `{"hook_event_name":"UserPromptSubmit","prompt":"/clear"}`} {
		assert.Empty(t, hookCall(garbage), garbage)
	}
	log, err := os.ReadFile(filepath.Join(a.stateDir, "hook.log"))
	require.NoError(t, err)
	assert.Contains(t, string(log), "slash command")
}

// Only the hook's own process turns the garbage collector off (main): a
// process that runs the hook and goes on, as these tests do, keeps it, or
// grows without bound (this package's tests reached 4 GiB).
func TestHookInProcessKeepsTheCollector(t *testing.T) {
	a := isolate(t)
	a.stdin = strings.NewReader(`{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"git rebase 之后冲突了"}`)
	code, _, _ := runApp(t, a, "hook")
	require.Equal(t, 0, code)
	percent := debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	assert.NotEqual(t, -1, percent, "the collector is off after an in-process hook")
}

// eval names skills as Claude Code invokes them, by folder, and takes a
// label written either way; a label the catalog lacks is refused, naming
// its line, rather than scored as a miss.
func TestEvalLabels(t *testing.T) {
	dir := t.TempDir()
	for folder, header := range map[string]string{
		"root-cause-tracing": "---\nname: Root Cause Tracing\ndescription: Trace a bug back through the call stack to the original trigger.\n---\n",
		"pdf":                "---\nname: pdf\ndescription: Extract text and tables from PDF files, fill PDF forms, merge and split PDFs.\n---\n",
	} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "skills", folder), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "skills", folder, "SKILL.md"), []byte(header), 0o644))
	}
	file := filepath.Join(dir, "cases.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(strings.Join([]string{
		`{"query": "trace this bug back through the call stack to its original trigger", "expected": "Root Cause Tracing"}`,
		`{"query": "merge these two PDF files and split out page 3", "expected": "pdf"}`,
	}, "\n")), 0o644))
	code, out, errOut := runCLI(t, "eval", "--json", "--catalog", filepath.Join(dir, "skills"), file)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var s map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &s))
	assert.Equal(t, 1.0, s["top1"], out)

	code, out, errOut = runCLI(t, "route", "--json", "--catalog", filepath.Join(dir, "skills"), "trace this bug back through the call stack to its original trigger")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"skill":"root-cause-tracing"`, "the folder's name, which Claude Code invokes")

	// A correction may name the skill by its header's name too: the index
	// keeps titles.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "state"), 0o700))
	code, out, errOut = runCLI(t, "correct", "Root Cause Tracing", "--query", "why does this crash deep in the stack",
		"--catalog", filepath.Join(dir, "skills"), "--state", filepath.Join(dir, "state"))
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "should go to root-cause-tracing")

	require.NoError(t, os.WriteFile(file, []byte(`{"query": "q", "expected": "pdf"}`+"\n"+`{"query": "q", "expected": "root-cause"}`+"\n"), 0o644))
	code, _, errOut = runCLI(t, "eval", "--catalog", filepath.Join(dir, "skills"), file)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, file+`:2: expected "root-cause": no such skill in the catalog`)
}

// A settings file that is not JSON is named by doctor with where it
// stops being JSON, not taken for one without hooks ("none registered:
// run skillroute install", which then refuses the file).
func TestDoctorNamesSettingsNotJSON(t *testing.T) {
	bin, err := os.Executable()
	require.NoError(t, err)
	for _, tc := range []struct {
		name, edit, want string
	}{
		{"comment", "{\n  // mine\n", "not valid JSON at line 2, column 3"},
		{"trailing comma", "{\n  \"model\": \"opus\",\n", ""}, // valid: the hooks are found
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := isolate(t)
			code, _, errOut := runApp(t, a, "install", "--binary", bin)
			require.Equal(t, 0, code, errOut)
			path := filepath.Join(a.places.Home, ".claude", "settings.json")
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, []byte(tc.edit+strings.TrimPrefix(string(data), "{\n")), 0o600))
			code, out, _ := runApp(t, a, "doctor")
			if tc.want == "" {
				assert.Contains(t, out, "5 of 5 events")
				return
			}
			assert.Equal(t, 1, code)
			assert.Contains(t, out, "FAIL hooks in "+path)
			assert.Contains(t, out, tc.want)
			assert.NotContains(t, out, "none registered")
		})
	}
}

// TestDoctorFailsOnDamagedLearning: a damaged weights file or calibration
// table is ignored by the router, which no hook shows: doctor fails the
// check and says how to mend it; an absent one is no failure.
func TestDoctorFailsOnDamagedLearning(t *testing.T) {
	for _, tc := range []struct{ file, check string }{
		{learn.WeightsFile, "FAIL learned weights"},
		{loader.CalibrationFile, "FAIL calibration table"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			a := isolate(t)
			code, out, _ := runApp(t, a, "doctor")
			assert.NotContains(t, out, tc.check, "absent: no failure")
			require.NoError(t, os.MkdirAll(a.stateDir, 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(a.stateDir, tc.file), []byte(`{"skillroute":`), 0o600))
			code, out, _ = runApp(t, a, "doctor")
			assert.Equal(t, 1, code)
			assert.Contains(t, out, tc.check)
			assert.Contains(t, out, tc.file)
		})
	}
}

// doctor names a settings file whose skill settings cannot be applied as
// a settings problem, not as a skill file left out.
func TestDoctorNamesUnreadableSettings(t *testing.T) {
	a, project := isolate(t), t.TempDir()
	a.places.ProjectDir = project
	local := filepath.Join(project, ".claude", "settings.local.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(local), 0o755))
	require.NoError(t, os.WriteFile(local, []byte(`{"enabledPlugins": `), 0o644))
	_, out, _ := runApp(t, a, "doctor")
	assert.Contains(t, out, "FAIL settings")
	assert.Contains(t, out, local)
	assert.NotContains(t, out, "skill files")

	// A skill the settings keep from the model is named, with why.
	require.NoError(t, os.WriteFile(local, []byte(`{"skillOverrides": {"tester-expert": "off"}}`), 0o644))
	code, _, errOut := runApp(t, a, "skills", "install")
	require.Equal(t, 0, code, errOut)
	_, out, _ = runApp(t, a, "doctor")
	assert.Contains(t, out, "tester-expert (settings)")
}
