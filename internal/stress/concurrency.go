package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillroute/skillroute/learn/feedback"
)

// prompts routed in the concurrency part: Chinese and English, most
// routing to a skill, one to none.
var prompts = []string{
	"git rebase 之后冲突了，怎么解决",
	"帮我写单元测试，用 Jest mock 掉 axios 请求",
	"Dockerfile 改成多阶段构建，镜像太大了",
	"React 页面加载慢，首屏要 4 秒",
	"kubectl get pods 一直 CrashLoopBackOff",
	"the weather is nice today",
}

// used are the skills the simulated model then uses.
var used = []string{"git-operation-master", "tester-expert", "devops-expert", "performance-expert", "kubernetes-specialist", "debugger-expert"}

// plan is one worker's events and the records they must leave.
type plan struct {
	events    []string
	decisions []string // prompt ids that must be in decisions.jsonl
	verdicts  []verdict
}

// verdict is a feedback record an event must leave: on the decision of
// prompt id decision, by the event with id by (its tool_use_id or
// prompt_id).
type verdict struct{ decision, by string }

// newPlan writes worker w's n events: a session start, then cycles of a
// prompt, the Skill tool using a skill (a verdict on that prompt), a
// typed plain command (no verdict), a second prompt, and one of: a typed
// skill right after it (a verdict on it), a resumed session, malformed
// input, or the Skill tool with a name that is no skill (no record).
// Every event carries an id of its own (prompt_id, tool_use_id), which
// hook.log names when the hook stays silent.
func newPlan(w, n int) plan {
	var p plan
	session := fmt.Sprintf("stress-w%d", w)
	ev := func(fields map[string]any) {
		fields["session_id"] = session
		data, _ := json.Marshal(fields)
		p.events = append(p.events, string(data))
	}
	ev(map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	for k := 0; len(p.events) < n; k++ {
		id := func(what string) string { return fmt.Sprintf("w%d-c%d-%s", w, k, what) }
		steps := []func(){
			func() {
				ev(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt_id": id("p"), "prompt": prompts[(w+k)%len(prompts)]})
				p.decisions = append(p.decisions, id("p"))
			},
			func() {
				ev(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Skill", "tool_use_id": id("u"),
					"tool_input": map[string]any{"skill": used[k%len(used)]}})
				p.verdicts = append(p.verdicts, verdict{id("p"), id("u")})
			},
			func() {
				ev(map[string]any{"hook_event_name": "UserPromptExpansion", "prompt_id": id("s"), "expansion_type": "slash_command", "command_name": "standup"})
			},
			func() {
				ev(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt_id": id("q"), "prompt": prompts[(w+k+3)%len(prompts)]})
				p.decisions = append(p.decisions, id("q"))
			},
			func() {
				switch k % 4 {
				case 0:
					ev(map[string]any{"hook_event_name": "UserPromptExpansion", "prompt_id": id("e"), "expansion_type": "slash_command", "command_name": "debugger-expert"})
					p.verdicts = append(p.verdicts, verdict{id("q"), id("e")})
				case 1:
					ev(map[string]any{"hook_event_name": "SessionStart", "source": "resume"})
				case 2:
					p.events = append(p.events, `{"hook_event_name":"UserPromptSubmit","session_id":`)
				case 3:
					ev(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Skill", "tool_use_id": id("n"),
						"tool_input": map[string]any{"skill": "not-a-skill"}})
				}
			},
		}
		for _, step := range steps {
			if len(p.events) < n {
				step()
			}
		}
	}
	return p
}

// missReasons are the hook.log messages that account for a record a hook
// did not write: it gave up at its deadline, or could not take a lock in
// time.
var missReasons = []string{"deadline of", "decision not logged", "record use:", "close route:", "file is locked"}

// concurrency runs the workers with correct and learn beside them.
func concurrency(sb *sandbox, o options, rep *report) {
	// Logs nearly full, so that both rotate after the first few dozen
	// records of the run (and once only: the decisions log keeps one
	// rotated file).
	decisionsPath := filepath.Join(sb.state, "decisions.jsonl")
	now := time.Now().UTC().Format(time.RFC3339Nano)
	_ = fill(decisionsPath, 1<<20-8<<10, func(i int) string {
		return fmt.Sprintf(`{"id":"fill-%d","session":"fill","prompt_hash":"0000000000000000","skill":"","confidence":0,"time":%q}`, i, now)
	})
	_ = fill(filepath.Join(sb.state, feedback.LogFile), feedback.MaxLogBytes-8<<10, func(i int) string {
		return fmt.Sprintf(`{"ts":%q,"session":"fill","decision":"fill-%d","query":"","routed":"","corrected":"","kind":"implicit","confidence":0}`, now, i)
	})
	os.Remove(filepath.Join(sb.state, "hook.log"))

	var (
		wg                  sync.WaitGroup
		hookFailures        atomic.Int64
		badOutput           atomic.Int64
		slowest             atomic.Int64
		plans               = make([]plan, o.workers)
		stop                = make(chan struct{})
		corrections, learns []string
		correctFailed       atomic.Int64
		learnFailed         atomic.Int64
		besideWG            sync.WaitGroup
		besideMu            sync.Mutex
	)
	for w := range o.workers {
		plans[w] = newPlan(w, o.events)
	}
	// correct and learn, beside the hooks until they are done.
	besideWG.Add(2)
	go func() {
		defer besideWG.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			q := fmt.Sprintf("stress correction %d: the flaky unit tests of the parser", i)
			r := sb.run(context.Background(), "", "correct", "tester-expert", "--query", q)
			besideMu.Lock()
			if r.code == 0 {
				corrections = append(corrections, q)
			} else {
				correctFailed.Add(1)
			}
			besideMu.Unlock()
			time.Sleep(20 * time.Millisecond)
		}
	}()
	go func() {
		defer besideWG.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			r := sb.run(context.Background(), "", "learn")
			besideMu.Lock()
			learns = append(learns, fmt.Sprint(r.code))
			if r.code != 0 {
				learnFailed.Add(1)
				fmt.Fprintf(os.Stderr, "learn: exit %d: %s\n", r.code, r.stderr)
			}
			besideMu.Unlock()
		}
	}()
	start := time.Now()
	for w := range o.workers {
		wg.Add(1)
		go func(p plan) {
			defer wg.Done()
			for _, ev := range p.events {
				r := sb.hook(ev)
				if r.code != 0 {
					hookFailures.Add(1)
				}
				if ms := r.wall.Milliseconds(); ms > slowest.Load() {
					slowest.Store(ms)
				}
				if out := strings.TrimSpace(r.stdout); out != "" && (strings.Count(out, "\n") > 0 || !json.Valid([]byte(out))) {
					badOutput.Add(1)
				}
			}
		}(plans[w])
	}
	wg.Wait()
	took := time.Since(start)
	close(stop)
	besideWG.Wait()
	sb.waitBackground()

	// What was recorded.
	decided := map[string]bool{}
	tornDecisions := 0
	for _, l := range sb.lines("decisions.jsonl") {
		var d struct {
			ID string `json:"id"`
		}
		if json.Unmarshal([]byte(l), &d) != nil {
			tornDecisions++
			continue
		}
		decided[d.ID] = true
	}
	records, warnings, err := (&feedback.Log{Dir: sb.state}).Read()
	if err != nil {
		rep.fail("feedback log: %v", err)
	}
	verdicts, explicit := map[string]bool{}, map[string]bool{}
	for _, r := range records {
		if r.Kind == feedback.KindExplicit {
			explicit[r.Query] = true
		} else {
			verdicts[r.Decision] = true
		}
	}
	// The events hook.log says a hook missed (by prompt_id or
	// tool_use_id), and torn lines of it.
	// A hook that was not even given the CPU to read its event before
	// its deadline logs a line that names no event: each such line
	// accounts for one hook call, so for at most one missing record.
	missed := map[string]bool{}
	anonymous, tornLog := 0, 0
	for _, l := range sb.lines("hook.log") {
		var line map[string]string
		if json.Unmarshal([]byte(l), &line) != nil {
			tornLog++
			continue
		}
		for _, reason := range missReasons {
			if strings.Contains(line["msg"], reason) {
				if line["hook_event"] == "" {
					anonymous++
				} else {
					missed[line["prompt_id"]+line["tool_use_id"]] = true
				}
				break
			}
		}
	}
	var sentDecisions, silentDecisions, lostDecisions, sentVerdicts, silentVerdicts, lostVerdicts int
	var lostIDs []string
	for _, p := range plans {
		for _, id := range p.decisions {
			sentDecisions++
			switch {
			case decided[id]:
			case missed[id]:
				silentDecisions++
			case anonymous > 0:
				anonymous--
				silentDecisions++
			default:
				lostDecisions++
				lostIDs = append(lostIDs, id)
			}
		}
		for _, v := range p.verdicts {
			sentVerdicts++
			switch {
			case verdicts[v.decision]:
			case missed[v.by] || missed[v.decision]: // the use, or the prompt it is a verdict on
				silentVerdicts++
			case anonymous > 0:
				anonymous--
				silentVerdicts++
			default:
				lostVerdicts++
				lostIDs = append(lostIDs, v.by)
			}
		}
	}
	missingCorrections := 0
	for _, q := range corrections {
		if !explicit[q] {
			missingCorrections++
		}
	}
	lost := lostDecisions + lostVerdicts + missingCorrections
	rep.row(fmt.Sprintf("hook: decisions (%d × %d events)", o.workers, o.events), fmt.Sprint(sentDecisions),
		fmt.Sprint(sentDecisions-silentDecisions-lostDecisions), fmt.Sprint(silentDecisions), fmt.Sprint(lostDecisions),
		fmt.Sprint(tornDecisions), fmt.Sprintf("%v, slowest hook %d ms", took.Round(100*time.Millisecond), slowest.Load()))
	rep.row("hook: verdicts (Skill tool, typed skill)", fmt.Sprint(sentVerdicts), fmt.Sprint(sentVerdicts-silentVerdicts-lostVerdicts),
		fmt.Sprint(silentVerdicts), fmt.Sprint(lostVerdicts), fmt.Sprint(len(warnings)), "")
	rep.row("correct: explicit corrections", fmt.Sprint(len(corrections)+int(correctFailed.Load())), fmt.Sprint(len(corrections)-missingCorrections),
		"", fmt.Sprint(missingCorrections+int(correctFailed.Load())), "", fmt.Sprintf("learn ran %d times beside", len(learns)))
	rotated := ""
	for _, name := range []string{"decisions-1.jsonl", "feedback-1.jsonl"} {
		if _, err := os.Stat(filepath.Join(sb.state, name)); err != nil {
			rep.fail("%s: the log did not rotate during the run", name)
		} else {
			rotated += name + " "
		}
	}
	rep.row("hook.log", "", "", fmt.Sprint(len(missed)), "", fmt.Sprint(tornLog),
		fmt.Sprintf("%d events a hook gave up on at its deadline or for a lock, each logged; rotated during the run: %s", len(missed), rotated))
	if hookFailures.Load()+badOutput.Load() > 0 {
		rep.fail("%d hook processes exited non-zero, %d printed more than one JSON line", hookFailures.Load(), badOutput.Load())
	}
	switch {
	case lost > 0:
		rep.fail("%d records lost: %d decisions, %d verdicts, %d corrections (first ids: %v)",
			lost, lostDecisions, lostVerdicts, missingCorrections, lostIDs[:min(len(lostIDs), 5)])
	case tornDecisions+len(warnings)+tornLog > 0:
		rep.fail("%d torn lines", tornDecisions+len(warnings)+tornLog)
	case correctFailed.Load()+learnFailed.Load() > 0:
		rep.fail("correct failed %d times, learn %d times", correctFailed.Load(), learnFailed.Load())
	}
}
