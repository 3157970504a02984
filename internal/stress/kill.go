package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/learn"
)

// killRounds starts every kind of writer at once, kills each with
// SIGKILL at a random point, and checks what they leave. It has a sandbox
// of its own, whose logs stay small: learn, which reads the whole feedback
// log, then takes a fraction of a second, and a round not much more.
func killRounds(root, bin string, o options, rep *report) {
	sb, err := newSandbox(root, "kill", bin)
	if err != nil {
		rep.fail("kill -9: sandbox: %v", err)
		return
	}
	defer sb.waitBackground()
	rng := rand.New(rand.NewPCG(12, uint64(time.Now().UnixNano())))
	killed, started, invalid, settingsBad, nextFailed, tornLines := 0, 0, 0, 0, 0, 0
	var firstProblem string
	// How long each writer takes when left alone: it is killed at a
	// random point of three times that time (they run slower side by side,
	// and some should finish).
	lifetime := make([]time.Duration, 0, 8)
	for round := -1; round < o.rounds; round++ {
		writers := [][]string{
			{"hook"}, {"hook"}, {"hook"}, {"hook"},
			{"correct", "debugger-expert", "--query", fmt.Sprintf("kill round %d", round)},
			{"learn"},
			{"install", "--no-skills", "--binary", sb.bin},
			{"uninstall"},
		}
		events := []string{
			fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"kill-a","prompt_id":"k%d-1","prompt":"git rebase 之后冲突了"}`, round),
			fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"kill-a","prompt_id":"k%d-2","prompt":"React 页面加载慢"}`, round),
			`{"hook_event_name":"PostToolUse","session_id":"kill-a","tool_name":"Skill","tool_input":{"skill":"performance-expert"}}`,
			`{"hook_event_name":"UserPromptExpansion","session_id":"kill-b","expansion_type":"slash_command","command_name":"tester-expert"}`,
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i, args := range writers {
			stdin := ""
			if i < len(events) {
				stdin = events[i]
			}
			if round < 0 { // the calibration round: nothing killed
				lifetime = append(lifetime, max(sb.run(context.Background(), stdin, args...).wall, time.Millisecond))
				continue
			}
			cmd := sb.command(stdin, args...)
			if err := cmd.Start(); err != nil {
				continue
			}
			started++
			delay := time.Duration(rng.Int64N(int64(lifetime[i] * 3)))
			wg.Add(1)
			go func(cmd *exec.Cmd) {
				defer wg.Done()
				done := make(chan struct{})
				go func() {
					_ = cmd.Wait()
					close(done)
				}()
				select {
				case <-done:
				case <-time.After(delay):
					_ = cmd.Process.Kill() // SIGKILL, to this process alone
					<-done
					mu.Lock()
					killed++
					mu.Unlock()
				}
			}(cmd)
		}
		wg.Wait()
		if round < 0 {
			continue
		}
		problem, torn := checkState(sb)
		tornLines = torn // the logs keep them: the last round counts all
		if problem != "" {
			invalid++
			if firstProblem == "" {
				firstProblem = fmt.Sprintf("round %d: %s", round, problem)
			}
		}
		if problem := checkSettings(sb); problem != "" {
			settingsBad++
			if firstProblem == "" {
				firstProblem = fmt.Sprintf("round %d: %s", round, problem)
			}
		}
		if problem := nextHookWorks(sb, round); problem != "" {
			nextFailed++
			if firstProblem == "" {
				firstProblem = fmt.Sprintf("round %d: %s", round, problem)
			}
		}
	}
	note := fmt.Sprintf("%d processes started, %d killed; rounds with an invalid state file %d, invalid settings.json %d, next hook failing %d; records cut short by a kill %d (each on a line of its own, skipped by readers)",
		started, killed, invalid, settingsBad, nextFailed, tornLines)
	rep.row(fmt.Sprintf("kill -9: %d rounds", o.rounds), fmt.Sprint(o.rounds), fmt.Sprint(o.rounds-nextFailed), "",
		fmt.Sprint(nextFailed), fmt.Sprint(tornLines), note)
	if invalid+settingsBad+nextFailed > 0 {
		rep.fail("kill -9: %s (first: %s)", note, firstProblem)
	}
}

// checkState checks every file of the state folder: JSON files parse
// (the hook's own through its store), and every log line is a record or
// a record cut short on a line of its own, which it counts in torn.
func checkState(sb *sandbox) (problem string, torn int) {
	st := &hook.Store{Dir: sb.state}
	_ = filepath.WalkDir(sb.state, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || problem != "" {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") { // temp files of killed writers, sidecars
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			problem = err.Error()
			return nil
		}
		switch ext := filepath.Ext(name); {
		case ext == ".json":
			if !json.Valid(data) {
				problem = path + ": not valid JSON"
			}
		case ext == ".jsonl" || ext == ".log":
			for i, l := range bytes.Split(data, []byte("\n")) {
				switch lineState(l) {
				case lineTorn:
					torn++
				case lineDamaged:
					problem = fmt.Sprintf("%s:%d: damaged line (not a record cut short): %.80q", path, i+1, l)
					return nil
				}
			}
		}
		return nil
	})
	if problem != "" {
		return problem, torn
	}
	for _, id := range []string{"kill-a", "kill-b"} {
		if _, err := st.SessionFile(id); err != nil {
			return err.Error(), torn
		}
	}
	if _, err := st.Workflow(); err != nil {
		return err.Error(), torn
	}
	if _, err := learn.LoadWeights(filepath.Join(sb.state, learn.WeightsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err.Error(), torn
	}
	if _, err := st.Deadlines(context.Background()); err != nil {
		return "reading the logs back: " + err.Error(), torn
	}
	return "", torn
}

// The states of a log line after a kill.
const (
	lineWhole   = iota // a record, or an empty line
	lineTorn           // a record cut short, standing on its own line
	lineDamaged        // anything else: two records run together, garbage
)

// lineState tells a log line's state. A record cut short is what a writer
// killed inside write(2) leaves: Linux stops a write to a file between
// pages when SIGKILL is pending and returns the bytes written so far (the
// kill rounds met one in 25 rounds of a CI run). The store's next append
// starts a new line, so the cut record costs itself only, and readers skip
// it; a cut record that ran into the next one would be a damaged line.
func lineState(line []byte) int {
	if len(line) == 0 || json.Valid(line) {
		return lineWhole
	}
	var v any
	var syntax *json.SyntaxError
	err := json.Unmarshal(line, &v)
	if errors.As(err, &syntax) && syntax.Offset == int64(len(line)) && line[0] == '{' {
		return lineTorn // "unexpected end of JSON input": a prefix of a record
	}
	return lineDamaged
}

// checkSettings checks the home's settings.json: valid JSON holding the
// user's keys and hook, and our entries in all four events or in none.
func checkSettings(sb *sandbox) string {
	path := filepath.Join(sb.home, ".claude", "settings.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	if !json.Valid(data) {
		return "settings.json is not valid JSON"
	}
	for _, kept := range []string{`"model": "opus"`, `echo 'not skillroute hook'`, `12345678901234567890`} {
		if !strings.Contains(string(data), kept) {
			return "settings.json lost " + kept
		}
	}
	if events, _ := hook.Installed(path); len(events) != 0 && len(events) != len(hook.Registrations) {
		return fmt.Sprintf("settings.json holds %d of our %d entries", len(events), len(hook.Registrations))
	}
	return ""
}

// nextHookWorks sends a prompt after the round: it must route, print its
// line and record its decision. A hook that ran out of its 200 ms on a
// loaded machine (it says so in hook.log) is given two more tries: the
// load is not the state's fault.
// routedLine marks a routed hook's output. Which skill it names is not
// the check: the workers' corrections teach the prompt memory, which may
// move this prompt to whatever skill they corrected it to.
const routedLine = `"additionalContext":"skillroute: the skill`

func nextHookWorks(sb *sandbox, round int) string {
	var id string
	var r result
	for try := range 3 {
		id = fmt.Sprintf("after-kill-%d-%d", round, try)
		r = sb.hook(fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"kill-next","prompt_id":%q,"prompt":"git rebase 之后冲突了，怎么解决"}`, id))
		if r.code != 0 || strings.Contains(r.stdout, routedLine) {
			break
		}
		if log := sb.lines("hook.log"); len(log) == 0 || !strings.Contains(log[len(log)-1], "deadline of") {
			break
		}
	}
	if r.code != 0 || !strings.Contains(r.stdout, routedLine) {
		return fmt.Sprintf("next hook: exit %d, printed %q", r.code, r.stdout)
	}
	for _, l := range sb.lines("decisions.jsonl") {
		if strings.Contains(l, `"id":"`+id+`"`) {
			return ""
		}
	}
	return "next hook: decision " + id + " not recorded"
}
