package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

// runDoctor checks that the router is installed and working where Claude
// Code will run it, and says what to do about each problem it finds.
func (a *app) runDoctor(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("doctor", "doctor", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	failed := 0
	check := func(ok bool, what, detail string) {
		mark := "ok  "
		if !ok {
			mark = "FAIL"
			failed++
		}
		fmt.Fprintf(stdout, "%s %-22s %s\n", mark, what, detail)
	}
	note := func(what, detail string) { fmt.Fprintf(stdout, "     %-22s %s\n", what, detail) }

	// Hook entries, in the user's or the project's settings.
	home := a.places.Home
	var found []string
	for _, path := range []string{filepath.Join(home, ".claude", "settings.json"), a.projectSettings()} {
		if path == "" {
			continue
		}
		if events, cmd := hook.Installed(path); len(events) > 0 {
			bin := strings.Trim(strings.TrimSuffix(strings.TrimSpace(cmd), " hook"), "'")
			_, err := os.Stat(bin)
			check(len(events) == len(hook.Registrations) && err == nil, "hooks in "+path,
				fmt.Sprintf("%d of %d events, binary %s", len(events), len(hook.Registrations), bin))
			found = append(found, path)
		}
	}
	if len(found) == 0 && a.places.PluginRoot == "" {
		check(false, "hooks", "none registered: run `skillroute install` (or add the plugin)")
	}

	// The skills Claude Code can load, which are all the hook may name.
	start := time.Now()
	r, err := loader.Open(a.config(&dataFlags{catalog: loader.Installed}, stderr))
	if err != nil {
		check(false, "installed skills", err.Error()+": run `skillroute skills install`")
	} else {
		check(true, "installed skills", fmt.Sprintf("%d skills, index and rules loaded in %v", len(r.Index.Skills), time.Since(start).Round(10*time.Microsecond)))
		// Which skill a sample prompt reaches depends on what is installed;
		// that it routes at all, without error, is the check.
		d := r.Route("React 页面加载慢，首屏要 4 秒", router.Session{})
		got := d.Skill
		if got == "" {
			got = "no skill"
		}
		check(true, "routing", fmt.Sprintf("a sample prompt (React page slow) routes to %s (confidence %.2f)", got, d.Confidence))
	}

	// State: writable, with what it has gathered.
	dir := a.stateDir
	probe := filepath.Join(dir, ".doctor")
	werr := os.MkdirAll(dir, 0o755)
	if werr == nil {
		werr = os.WriteFile(probe, nil, 0o644)
		os.Remove(probe)
	}
	check(werr == nil, "state folder", dir)
	if n := countLines(filepath.Join(dir, "decisions.jsonl")); n > 0 {
		note("decisions", fmt.Sprintf("%d routed prompts logged", n))
	}
	if records, warnings, err := (&learn.Log{Dir: dir}).Read(); err == nil && len(records) > 0 {
		corrections := 0
		for _, r := range records {
			if r.IsCorrection() {
				corrections++
			}
		}
		note("feedback", fmt.Sprintf("%d records, %d corrections, %d damaged lines", len(records), corrections, len(warnings)))
	}
	if w, err := learn.LoadWeights(filepath.Join(dir, learn.WeightsFile)); err == nil {
		note("learned weights", fmt.Sprintf("from %d records, %s", w.Records, w.Learned.Format(time.DateTime)))
	}
	// The action layer: a broken memories or tools file leaves the hook
	// with the skill line alone, so it fails the check.
	if l, err := a.actionLayer(actionFlags{}); err != nil {
		check(false, "action layer", err.Error())
	} else {
		policy := "no learned policy in use"
		if l.Policy != nil {
			policy = "learned policy " + l.Policy.Version + " in use"
		}
		note("action layer", fmt.Sprintf("%d memories, %d declared tools, %s", len(l.Memories()), len(l.Tools()), policy))
	}
	if lines := lastLines(filepath.Join(dir, "hook.log"), 3); len(lines) > 0 {
		note("hook.log (last)", strings.Join(lines, "\n"+strings.Repeat(" ", 28)))
	}
	if failed > 0 {
		return fmt.Errorf("%d checks failed", failed)
	}
	return nil
}

func (a *app) projectSettings() string {
	if dir := a.places.ProjectDir; dir != "" {
		return filepath.Join(dir, ".claude", "settings.json")
	}
	return ""
}

func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		n++
	}
	return n
}

func lastLines(path string, n int) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
