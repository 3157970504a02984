package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/loader"
)

const (
	benchPrompt = "React 页面加载慢，首屏要 4 秒，Lighthouse 只有 45 分"
	benchEvent  = `{"session_id":"bench","hook_event_name":"UserPromptSubmit","cwd":".","prompt":"` + benchPrompt + `"}`
)

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

// seedMemory gives the state folder a prompt memory of n remembered
// prompts over the catalog the hook routes (the skills installed), each
// corrected once: dev.jsonl's prompts again and again, each time with a
// word of its own, so that every one is a prompt of its own with the term
// statistics of real ones. Many are near the benchmark's prompt, so the
// memory acts on it, as it would for a user who corrected that kind of
// prompt before.
func seedMemory(b *testing.B, a *app, n int) {
	f, err := eval.Read(sharedDev)
	if err != nil {
		b.Skipf("%s not present: %v", sharedDev, err)
	}
	ix, err := loader.OpenIndex(a.config(&dataFlags{catalog: loader.Installed}, nil))
	if err != nil {
		b.Fatal(err)
	}
	tok := ix.Tokenizer()
	names := ix.SkillNames()
	s := &memory.Set{Catalog: ix.SourceHash}
	now := time.Now()
	for i := range n {
		q := fmt.Sprintf("%s variant%d", f.Cases[i%len(f.Cases)].Query, i)
		rec := feedback.Record{TS: now.Add(-time.Duration(i) * time.Minute), Session: "bench", Query: q,
			Routed: names[i%len(names)], Corrected: names[(i+7)%len(names)], Kind: feedback.KindExplicit}
		s.Add(memory.Vectorize(ix, tok.Tokenize(q)), memory.EventOf(rec))
	}
	s.Add(memory.Vectorize(ix, tok.Tokenize(benchPrompt)), memory.Event{ID: 1, TS: now, Routed: "performance-expert", Corrected: "frontend-expert", Explicit: true})
	if err := s.Save(filepath.Join(a.stateDir, memory.File)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkHookMemory is the hook's path with 10,000 remembered
// corrections: a prompt event (the memory mapped, the prompt recalled
// among them; the benchmark's own prompt was corrected, so the memory
// decides it) in process and as a process, and the skill use after a
// route, which adds the session's verdict to the memory (a rewrite of
// it).
func BenchmarkHookMemory(b *testing.B) {
	a := hookHome(b)
	var out bytes.Buffer
	a.hookRuntime(0).Run(strings.NewReader(benchEvent), &out) // compiles the cache
	seedMemory(b, a, 10000)
	b.Run("prompt", func(b *testing.B) {
		for b.Loop() {
			out.Reset()
			a.hookRuntime(0).Run(strings.NewReader(benchEvent), &out)
		}
		if !strings.Contains(out.String(), `\"frontend-expert\"`) {
			b.Fatalf("the memory did not decide: %q", out.String())
		}
	})
	b.Run("verdict", func(b *testing.B) {
		use := `{"session_id":"bench","hook_event_name":"PostToolUse","tool_name":"Skill","tool_input":{"skill":"sre-expert"}}`
		for b.Loop() {
			b.StopTimer()
			a.hookRuntime(0).Run(strings.NewReader(benchEvent), &out) // a route to give a verdict on
			b.StartTimer()
			a.hookRuntime(0).Run(strings.NewReader(use), &out)
		}
	})
	b.Run("process", func(b *testing.B) {
		bin := filepath.Join(b.TempDir(), "skillroute")
		if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
			b.Fatalf("build: %v\n%s", err, out)
		}
		for b.Loop() {
			cmd := exec.Command(bin, "hook")
			cmd.Stdin = strings.NewReader(benchEvent)
			cmd.Env = append(os.Environ(), "HOME="+a.places.Home, "SKILLROUTE_HOME="+a.stateDir,
				"CLAUDE_PLUGIN_DATA=", "CLAUDE_PROJECT_DIR=", "CLAUDE_PLUGIN_ROOT=")
			if _, err := cmd.Output(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
