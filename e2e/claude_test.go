//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// claudeVersion is the Claude Code CLI the tests run: pinned, because hook
// payloads and the skill listing change between versions.
const claudeVersion = "2.1.328"

// runTimeout bounds one `claude -p` run; against the mock one takes about
// a second.
const runTimeout = 2 * time.Minute

// slowPage routes to performance-expert with high confidence.
const slowPage = "React 页面加载慢，首屏要 4 秒"

// claudeBinary installs the pinned CLI from the npm registry into the
// cache folder, once, and returns its path.
func claudeBinary(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SKILLROUTE_E2E_CACHE")
	if dir == "" {
		c, err := os.UserCacheDir()
		require.NoError(t, err)
		dir = filepath.Join(c, "skillroute-e2e")
	}
	prefix := filepath.Join(dir, "claude-code-"+claudeVersion)
	bin := filepath.Join(prefix, "node_modules", ".bin", "claude")
	require.NoError(t, os.MkdirAll(prefix, 0o755))
	lock := flock.New(prefix + ".lock") // two test runs never install at once
	require.NoError(t, lock.Lock())
	defer lock.Unlock()
	if version(bin) == "" {
		npm, err := exec.LookPath("npm")
		require.NoError(t, err, "the e2e tests install Claude Code with npm")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "install", "--prefix", prefix, "--no-audit", "--no-fund",
			"--loglevel=error", "@anthropic-ai/claude-code@"+claudeVersion)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "npm install: %s", out)
	}
	require.Contains(t, version(bin), claudeVersion)
	return bin
}

func version(bin string) string {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return ""
	}
	return string(out)
}

// sandbox is a home folder with a project folder, in which `claude -p`
// runs against the mock with the skillroute built from this checkout.
type sandbox struct {
	t          *testing.T
	root       string // the repository
	dir        string
	home       string
	project    string
	env        []string
	claude     string
	skillroute string
	mock       *mockAPI
	runs       int
	debugLogs  []string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	dir, err := os.MkdirTemp("", "sr-e2e-") // not "skillroute": the path reaches the model
	require.NoError(t, err)
	s := &sandbox{t: t, root: root, dir: dir, claude: claudeBinary(t), mock: startMock(t)}
	s.home = filepath.Join(s.dir, "home")
	s.project = filepath.Join(s.dir, "project")
	for _, d := range []string{s.home, s.project} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	s.skillroute = filepath.Join(s.dir, "bin", "skillroute")
	build := exec.Command("go", "build", "-o", s.skillroute, "./cmd/skillroute")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	s.env = []string{
		"HOME=" + s.home,
		"PATH=" + os.Getenv("PATH"),
		"TMPDIR=" + s.dir,
		"ANTHROPIC_BASE_URL=" + s.mock.URL(),
		"ANTHROPIC_API_KEY=sk-ant-e2e-not-a-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
	}
	// The plugin builds skillroute with Go on its first event: keep the
	// build and module caches of this machine, not the sandbox home's.
	goenv, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN").Output()
	require.NoError(t, err)
	var vars map[string]string
	require.NoError(t, json.Unmarshal(goenv, &vars))
	for k, v := range vars {
		if v != "" {
			s.env = append(s.env, k+"="+v)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("sandbox kept for inspection: %s (debug-NN.log are Claude Code's debug logs)", s.dir)
			logHookLogs(t, s.dir)
			return
		}
		// The plugin's build and the hook's background compile are
		// detached and may still be writing: retry briefly.
		for i := 0; i < 50 && os.RemoveAll(s.dir) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	return s
}

// logHookLogs logs the last lines of every hook.log under dir: why the
// hook was silent, which a CI run's output then shows without the
// sandbox.
func logHookLogs(t *testing.T, dir string) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "hook.log" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		t.Logf("%s, last lines:\n%s", path, strings.Join(lines[max(0, len(lines)-12):], "\n"))
		return nil
	})
}

// result is what one `claude -p` run produced.
type result struct {
	output   string
	debug    string
	requests []request
}

// injected is the start of the line the hook adds to a routed prompt.
const injected = "skillroute: the skill "

// routed reports whether the run's requests carry the hook's line for the
// skill, or, with skill "", any line of the hook.
func (r result) routed(skill string) bool {
	if skill == "" {
		return strings.Contains(r.modelText(), injected)
	}
	return strings.Contains(r.modelText(), injected+strconv.Quote(skill)+" matches this request")
}

// modelText is everything the run's main-loop requests gave the model.
func (r result) modelText() string {
	var b strings.Builder
	for _, req := range r.requests {
		if req.Path == "/v1/messages" && offersTool(req.Body, "Skill") {
			b.WriteString(texts(req.Body))
		}
	}
	return b.String()
}

// run runs `claude -p PROMPT ARGS...` in the project folder.
func (s *sandbox) run(prompt string, args ...string) result {
	s.t.Helper()
	s.runs++
	debug := filepath.Join(s.dir, fmt.Sprintf("debug-%02d.log", s.runs))
	s.debugLogs = append(s.debugLogs, debug)
	from := s.mock.count()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.claude, append([]string{"-p", prompt, "--debug-file", debug}, args...)...)
	cmd.Dir = s.project
	cmd.Env = s.env
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	require.NoError(s.t, err, "claude -p %q: %s", prompt, out)
	log, _ := os.ReadFile(debug)
	reqs, _ := s.mock.since(from)
	return result{output: string(out), debug: string(log), requests: reqs}
}

// skillrouteCmd runs the built skillroute in the sandbox.
func (s *sandbox) skillrouteCmd(extraEnv []string, args ...string) (string, error) {
	cmd := exec.Command(s.skillroute, args...)
	cmd.Dir = s.project
	cmd.Env = append(slices.Clone(s.env), extraEnv...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// feedback reads a state folder's feedback log, by session.
func feedbackRecords(t *testing.T, stateDir string) map[string][]feedback.Record {
	t.Helper()
	records, warnings, err := (&feedback.Log{Dir: stateDir}).Read()
	require.NoError(t, err)
	require.Empty(t, warnings)
	out := map[string][]feedback.Record{}
	for _, r := range records {
		out[r.Session] = append(out[r.Session], r)
	}
	return out
}

func newSessionID(t *testing.T) string {
	t.Helper()
	b := make([]byte, 16)
	_, err := rand.Read(b)
	require.NoError(t, err)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80 // version 4, RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// hookLine is how Claude Code's debug log times a command hook:
// `Hooks: UserPromptSubmit [/x/skillroute hook] finished with status 0 (13ms)`.
var hookLine = regexp.MustCompile(`Hooks: (\w+)(?::\S+)? \[(.+?)\](?: \(plugin [^)]*\))? finished with status (-?\d+) \((\d+)ms\)`)

// hookTimes collects, by event, the milliseconds Claude Code's debug logs
// give the hooks whose command passes match, failing on any non-zero
// status.
func hookTimes(t *testing.T, logs []string, match func(command string) bool) map[string][]int {
	t.Helper()
	times := map[string][]int{}
	for _, path := range logs {
		f, err := os.Open(path)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			m := hookLine.FindStringSubmatch(sc.Text())
			if m == nil || !match(m[2]) {
				continue
			}
			assert.Equal(t, "0", m[3], "hook exit status: %s", sc.Text())
			ms, _ := strconv.Atoi(m[4])
			times[m[1]] = append(times[m[1]], ms)
		}
		f.Close()
	}
	return times
}

func isSkillroute(command string) bool { return strings.Contains(command, "skillroute") }

// baselineHook is a hook that does nothing, registered beside skillroute's
// on UserPromptSubmit: what Claude Code's timing of any command hook
// includes (its spawning a shell and the process), measured alike.
const baselineHook = "true"

// reportHookTimes logs the hook's cost as Claude Code measures it.
func reportHookTimes(t *testing.T, name string, times map[string][]int) {
	t.Helper()
	var all []int
	for _, event := range slices.Sorted(func(yield func(string) bool) {
		for k := range times {
			if !yield(k) {
				return
			}
		}
	}) {
		v := slices.Sorted(slices.Values(times[event]))
		all = append(all, v...)
		t.Logf("%s, %s: median %d ms, max %d ms over %d calls (Claude Code's debug log)", name, event, v[len(v)/2], v[len(v)-1], len(v))
	}
	require.NotEmpty(t, all, "no timed %s in the debug logs", name)
	slices.Sort(all)
	t.Logf("%s, all events: median %d ms over %d calls", name, all[len(all)/2], len(all))
}

func assertNoListingWarning(t *testing.T, logs []string) {
	t.Helper()
	for _, path := range logs {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.NotContains(t, string(data), "Skill listing over budget", path)
	}
}

// overBudget reads Claude Code's count of the skill listing from its
// warning: "Skill listing over budget: 63 skills, 45517 chars > 30000".
var overBudget = regexp.MustCompile(`Skill listing over budget: (\d+) skills, (\d+) chars > (\d+)`)

// doctorListing reads doctor's skill-listing line.
var doctorListing = regexp.MustCompile(`(ok  |FAIL) skill listing +(\d+) of \d+ chars: (\d+) skills and commands`)

func estimateSkills(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestClaudeCodeBinary runs skillroute installed as a binary
// (`skillroute install`) under the real CLI.
func TestClaudeCodeBinary(t *testing.T) {
	s := newSandbox(t)
	out, err := s.skillrouteCmd(nil, "install")
	require.NoError(t, err, out)
	require.Contains(t, out, "50 written")
	state := filepath.Join(s.home, ".claude", "skillroute")
	addBaselineHook(t, filepath.Join(s.home, ".claude", "settings.json"))
	// A plain command of the user's, not a skill.
	standup := filepath.Join(s.home, ".claude", "commands", "standup.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(standup), 0o755))
	require.NoError(t, os.WriteFile(standup, []byte("---\ndescription: Write my standup notes\n---\nWrite my standup notes: $ARGUMENTS\n"), 0o644))
	t.Run("routed prompt reaches the model", func(t *testing.T) {
		r := s.run(slowPage, "--session-id", newSessionID(t))
		assert.True(t, r.routed("performance-expert"), "no routed line in the request")
		assert.Contains(t, r.debug, "Hook UserPromptSubmit (skillroute: routing) provided additionalContext")
	})

	t.Run("silence adds nothing", func(t *testing.T) {
		r := s.run("hello, how are you today?", "--session-id", newSessionID(t))
		require.NotEmpty(t, r.modelText(), "the prompt reached the mock")
		assert.False(t, r.routed(""), "a line for small talk")
	})

	confirm, correct := newSessionID(t), newSessionID(t)
	t.Run("Skill tool calls are verdicts", func(t *testing.T) {
		s.mock.answerWithSkill("performance-expert")
		r := s.run(slowPage, "--session-id", confirm)
		assert.True(t, strings.Contains(r.modelText(), "Base directory for this skill"), "the Skill tool ran and loaded the skill")
		s.mock.answerWithSkill("debugger-expert")
		s.run(slowPage, "--session-id", correct)
		s.mock.answerWithSkill("")

		fb := feedbackRecords(t, state)
		require.Len(t, fb[confirm], 1)
		assert.Equal(t, "performance-expert", fb[confirm][0].Routed)
		assert.Equal(t, "performance-expert", fb[confirm][0].Corrected, "a confirmation")
		require.Len(t, fb[correct], 1)
		assert.Equal(t, "performance-expert", fb[correct][0].Routed)
		assert.Equal(t, "debugger-expert", fb[correct][0].Corrected, "an implicit correction")
		assert.Equal(t, feedback.KindImplicit, fb[correct][0].Kind)
	})

	t.Run("typed commands", func(t *testing.T) {
		newTask, sameTask := newSessionID(t), newSessionID(t)
		s.run(slowPage, "--session-id", newTask)
		s.run("/standup yesterday I fixed the login bug", "--resume", newTask)
		s.run("/tester-expert add unit tests for the date parser", "--resume", newTask)
		s.run(slowPage, "--session-id", sameTask)
		s.run("/debugger-expert", "--resume", sameTask)

		fb := feedbackRecords(t, state)
		assert.Empty(t, fb[newTask], "a plain command and a skill for a new task are no verdicts")
		require.Len(t, fb[sameTask], 1, "a skill typed bare after the routed prompt is one")
		assert.Equal(t, "debugger-expert", fb[sameTask][0].Corrected)
		sess, err := (&hook.Store{Dir: state}).SessionFile(newTask)
		require.NoError(t, err)
		assert.Equal(t, []string{"tester-expert"}, sess.Recent, "/standup is no skill use")
	})

	t.Run("skill listing within budget", func(t *testing.T) {
		assertNoListingWarning(t, s.debugLogs)
		// doctor counts the listing as Claude Code does: force Claude
		// Code's warning, which carries its own count, and compare.
		small := []string{"SLASH_COMMAND_TOOL_CHAR_BUDGET=1000"}
		env := s.env
		s.env = append(slices.Clone(env), small...)
		r := s.run("hello", "--session-id", newSessionID(t))
		s.env = env
		s.debugLogs = s.debugLogs[:len(s.debugLogs)-1] // its warning is wanted
		m := overBudget.FindStringSubmatch(r.debug)
		require.NotNil(t, m, "no listing count in the debug log")
		doctor, _ := s.skillrouteCmd(small, "doctor")
		d := doctorListing.FindStringSubmatch(doctor)
		require.NotNil(t, d, doctor)
		assert.Equal(t, "FAIL", d[1], "over a budget of 1000")
		claude, _ := strconv.Atoi(m[2])
		estimate, _ := strconv.Atoi(d[2])
		assert.InDelta(t, claude, estimate, float64(claude)/200, "doctor's count of the listing (%d skills and commands) against Claude Code's (%s skills)", estimateSkills(d[3]), m[1])
		t.Logf("listing: Claude Code counts %s chars for %s skills; doctor estimates %d", m[2], m[1], estimate)
		doctor, err := s.skillrouteCmd(nil, "doctor")
		assert.NoError(t, err, doctor)
		t.Logf("doctor: %s", regexp.MustCompile(`(?m)^.*skill listing.*$`).FindString(doctor))
	})

	t.Run("uninstall", func(t *testing.T) {
		out, err := s.skillrouteCmd(nil, "uninstall", "--dry-run")
		require.NoError(t, err, out)
		assert.Contains(t, out, "dry run")
		// Routed still (to the skill the earlier verdicts taught, by now).
		assert.True(t, s.run(slowPage, "--session-id", newSessionID(t)).routed(""), "a dry run changes nothing")
		out, err = s.skillrouteCmd(nil, "uninstall")
		require.NoError(t, err, out)
		assert.False(t, s.run(slowPage, "--session-id", newSessionID(t)).routed(""), "uninstalled, yet routed")
	})

	reportHookTimes(t, "skillroute hook", hookTimes(t, s.debugLogs, isSkillroute))
	reportHookTimes(t, "no-op hook", hookTimes(t, s.debugLogs, func(c string) bool { return c == baselineHook }))
}

// addBaselineHook registers baselineHook on UserPromptSubmit.
func addBaselineHook(t *testing.T, settings string) {
	t.Helper()
	data, err := os.ReadFile(settings)
	require.NoError(t, err)
	var s map[string]any
	require.NoError(t, json.Unmarshal(data, &s))
	hooks := s["hooks"].(map[string]any)
	hooks["UserPromptSubmit"] = append(hooks["UserPromptSubmit"].([]any),
		map[string]any{"hooks": []any{map[string]any{"type": "command", "command": baselineHook, "timeout": 5}}})
	data, err = json.MarshalIndent(s, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(settings, data, 0o644))
}

// TestClaudeCodePlugin runs skillroute as a plugin (this repository,
// loaded with --plugin-dir): it builds its binary with Go on its first
// event, and /skillroute:wrong records a correction in its data folder.
func TestClaudeCodePlugin(t *testing.T) {
	s := newSandbox(t)
	plugin := []string{"--plugin-dir", s.root}
	data := filepath.Join(s.home, ".claude", "plugins", "data", "skillroute-inline")
	waitFor := func(what string, limit time.Duration, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for !done() {
			require.True(t, time.Now().Before(deadline), "waited %v for %s", limit, what)
			time.Sleep(200 * time.Millisecond)
		}
	}

	// The first event builds the binary, in the background.
	r := s.run("hello", append(plugin, "--session-id", newSessionID(t))...)
	assert.False(t, r.routed(""), "silent until built")
	waitFor("the plugin's build", 5*time.Minute, func() bool {
		from, err := os.ReadFile(filepath.Join(data, "bin", "built-from"))
		return err == nil && string(from) == s.root
	})

	// The first prompt compiles the index of the plugin's skills, past the
	// hook's deadline, in the background; the rules must be cached with it.
	s.run("hello again", append(plugin, "--session-id", newSessionID(t))...)
	waitFor("the background compile", 2*time.Minute, func() bool {
		index, _ := filepath.Glob(filepath.Join(data, "cache", "index-*.bin"))
		rules, _ := filepath.Glob(filepath.Join(data, "cache", "rules-*.bin"))
		_, err := os.Stat(filepath.Join(data, "cache", ".compiling"))
		return len(index) > 0 && len(rules) > 0 && os.IsNotExist(err)
	})

	session := newSessionID(t)
	r = s.run(slowPage, append(plugin, "--session-id", session)...)
	assert.True(t, r.routed("skillroute:performance-expert"), "no routed line in the request")
	assert.Contains(t, r.debug, "(skillroute: routing) provided additionalContext", "the plugin's hooks carry the status message")

	r = s.run("/skillroute:wrong debugger-expert", append(plugin, "--resume", session)...)
	assert.NotContains(t, r.output, "failed")
	assert.True(t, strings.Contains(r.modelText(), "recorded: "), "the command's output reaches the model")
	fb := feedbackRecords(t, data)
	require.Len(t, fb[session], 1, "one explicit correction, in the plugin's data folder")
	assert.Equal(t, feedback.KindExplicit, fb[session][0].Kind)
	assert.Equal(t, "skillroute:performance-expert", fb[session][0].Routed)
	assert.Equal(t, "debugger-expert", strings.TrimPrefix(fb[session][0].Corrected, "skillroute:"))
	assert.Equal(t, slowPage, fb[session][0].Query)

	assertNoListingWarning(t, s.debugLogs)
	reportHookTimes(t, "skillroute plugin hook", hookTimes(t, s.debugLogs, isSkillroute))
}
