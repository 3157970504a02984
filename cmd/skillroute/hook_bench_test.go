package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const benchEvent = `{"session_id":"bench","hook_event_name":"UserPromptSubmit","cwd":".","prompt":"React 页面加载慢，首屏要 4 秒，Lighthouse 只有 45 分"}`

// hookHome prepares a home with the built-in skills installed and the
// index compiled, as after `skillroute install`.
func hookHome(b *testing.B) *app {
	a := isolate(b)
	var out, errb bytes.Buffer
	if code := run(a, []string{"skills", "install"}, &out, &errb); code != 0 {
		b.Fatal(errb.String())
	}
	return a
}

// BenchmarkHookInProcess runs the hook's whole path for one prompt event
// (index and rules from the cache, state files, routing) without the
// process start.
func BenchmarkHookInProcess(b *testing.B) {
	a := hookHome(b)
	var out bytes.Buffer
	for b.Loop() {
		out.Reset()
		a.hookRuntime(0).Run(strings.NewReader(benchEvent), &out)
	}
	if !strings.Contains(out.String(), "performance-expert") {
		b.Fatalf("unexpected hook output %q", out.String())
	}
}

// BenchmarkHookProcess execs the built binary once per iteration, as
// Claude Code does: the figure the 5 ms median is about.
func BenchmarkHookProcess(b *testing.B) {
	a := hookHome(b)
	bin := filepath.Join(b.TempDir(), "skillroute")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	runOnce := func() string {
		cmd := exec.Command(bin, "hook")
		cmd.Stdin = strings.NewReader(benchEvent)
		cmd.Env = append(os.Environ(), "HOME="+a.places.Home, "SKILLROUTE_HOME="+a.stateDir,
			"CLAUDE_PLUGIN_DATA=", "CLAUDE_PROJECT_DIR=", "CLAUDE_PLUGIN_ROOT=")
		out, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		return string(out)
	}
	if out := runOnce(); !strings.Contains(out, "performance-expert") { // compiles the cache
		b.Fatalf("unexpected hook output %q", out)
	}
	b.ResetTimer()
	for b.Loop() {
		runOnce()
	}
}
