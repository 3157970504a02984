package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/calibrate"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/prefs"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
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

	// Hook entries, in the user's or the project's settings, and the plugin.
	home := a.places.Home
	files := a.places.SettingsFiles()
	var found, unreadable []string
	for _, path := range files {
		if data, err := hook.ReadSettings(path); err == nil && len(bytes.TrimSpace(data)) > 0 {
			if err := hook.SyntaxError(data); err != nil {
				check(false, "hooks in "+path, err.Error()+": whether skillroute's hooks are there cannot be told; mend the file")
				unreadable = append(unreadable, path)
				continue
			}
		}
		if events, cmd := hook.Installed(path); len(events) > 0 {
			bin, _ := hook.CommandBinary(cmd)
			_, err := os.Stat(bin)
			check(len(events) == len(hook.Registrations) && err == nil, "hooks in "+path,
				fmt.Sprintf("%d of %d events, binary %s", len(events), len(hook.Registrations), bin))
			found = append(found, path)
		}
	}
	plugin := pluginEnabledIn(files)
	if a.places.PluginRoot != "" {
		plugin = append(plugin, "this session (running as the plugin)")
	}
	if len(plugin) > 0 {
		a.checkPlugin(home, plugin, check, note)
	}
	switch {
	case len(found) == 0 && len(plugin) == 0 && len(unreadable) == 0:
		check(false, "hooks", "none registered: run `skillroute install` (or add the plugin)")
	case len(found) > 0 && len(plugin) > 0:
		check(false, "installed twice", fmt.Sprintf("hooks in %s and the plugin enabled in %s: every prompt runs both and gets two lines; run `skillroute uninstall` (--project for a project's settings) or disable the plugin",
			strings.Join(found, ", "), strings.Join(plugin, ", ")))
	}

	// The skills Claude Code can load, which are all the hook may name.
	start := time.Now()
	r, err := loader.Open(a.config(&dataFlags{catalog: loader.Installed}, stderr))
	if err != nil {
		check(false, "installed skills", err.Error()+": run `skillroute skills install`")
	} else {
		check(true, "installed skills", fmt.Sprintf("%d skills, index and rules loaded in %v", r.Index.Skills.Len(), time.Since(start).Round(10*time.Microsecond)))
		// Which skill a sample prompt reaches depends on what is installed;
		// that it routes at all, without error, is the check.
		d := r.Route("React 页面加载慢，首屏要 4 秒", router.Session{})
		got := d.Skill
		if got == "" {
			got = "no skill"
		}
		check(true, "routing", fmt.Sprintf("a sample prompt (React page slow) routes to %s (confidence %.2f)", got, d.Confidence))
		// The hook checks only the skill it names; doctor checks them all.
		cfg := a.config(&dataFlags{catalog: loader.Installed}, stderr)
		if !loader.Cached(cfg) {
			// Opened above, it was compiled into the cache, unless the cache
			// cannot be written: then every hook call compiles it again and
			// gives up at its deadline, silent, while doctor waited.
			check(false, "index cache", fmt.Sprintf("the index could not be cached in %s (the warnings above say why): "+
				"every prompt compiles it again and the hook gives up after %v, silent", cfg.CacheDir, hook.Deadline))
		}
		if loader.Fresh(cfg, r.Index) {
			note("index", "current: compiled after the last change to any skill file")
		} else {
			note("index", "older than a skill file: the hook recompiles it in the background at the next session start; `skillroute compile` does it now")
		}
	}
	if st, ok := readStatus(a.cacheDir()); ok {
		switch st.State {
		case "compiling":
			note("background compile", fmt.Sprintf("running since %s (pid %d)", st.Started.Format(time.DateTime), st.PID))
		case "failed":
			check(false, "background compile", fmt.Sprintf("failed at %s: %s", st.Finished.Format(time.DateTime), st.Error))
		default:
			note("background compile", fmt.Sprintf("%s %d skills at %s in %v", st.State, st.Skills, st.Finished.Format(time.DateTime), st.Finished.Sub(st.Started).Round(time.Millisecond)))
		}
	}

	// Claude Code's skill listing: over its budget, the model sees skills
	// by bare name.
	places := a.places
	cat, leftOut, err := skills.Discover(places, false)
	if err == nil {
		listed := append(cat.Skills, places.Commands()...)
		ours := skills.ListingSize(listed)
		size := ours + skills.ClaudeCodeListing
		budget := listingBudget(a.listingBudget, filepath.Join(home, ".claude", "settings.json"), skills.ListingBudget)
		detail := fmt.Sprintf("%d of %d chars: %d skills and commands take %d, Claude Code's own about %d", size, budget, len(listed), ours, skills.ClaudeCodeListing)
		if size > budget {
			detail += "; over budget, Claude Code lists the least-used skills without their descriptions. Remove skills you do not use " +
				"(`skillroute skills install NAME...` installs only those named), shorten long descriptions, move trigger phrases " +
				"from when_to_use to triggers (not listed), or raise skillListingBudgetFraction in settings"
		} else {
			detail += fmt.Sprintf(" (a model with a 200k-token context allows about %d)", skills.SmallContextBudget)
		}
		check(size <= budget, "skill listing", detail)
		if len(cat.LeftOut) > 0 {
			// Why a skill on disk is never named: the model cannot invoke it.
			note("skills left out", fmt.Sprintf("%d the model cannot invoke, never routed to: %s", len(cat.LeftOut), strings.Join(cat.LeftOut, ", ")))
		}
		// Routed, but a stricter reader of YAML drops them.
		for i := range cat.Skills {
			if r := cat.Skills[i].Repaired; r != nil {
				note("skill header", r.Error())
			}
		}
	}
	// A settings file that is not JSON: which plugins are enabled and
	// which skills are kept from the model is not known from it.
	leftOut = slices.DeleteFunc(leftOut, func(err error) bool {
		var se *skills.SettingsError
		if errors.As(err, &se) {
			check(false, "settings", err.Error())
			return true
		}
		return false
	})
	// A skill file that does not parse is left out of the index, with a
	// warning only from the compile that met it: named here on every run.
	if len(leftOut) > 0 {
		check(false, "skill files", fmt.Sprintf("%d left out, never routed to: %v", len(leftOut), leftOut[0]))
		for _, w := range leftOut[1:] {
			note("", w.Error())
		}
	}

	// State: writable, with what it has gathered.
	dir := a.stateDir
	probe := filepath.Join(dir, ".doctor")
	werr := store.WriteFile(probe, nil) // creates the folder 0700, refuses one not yours
	os.Remove(probe)
	if werr != nil {
		check(false, "state folder", werr.Error())
	} else {
		check(true, "state folder", dir)
		// Made 0700 since the store's rules; an older one may be open.
		if info, err := os.Stat(dir); err == nil && info.Mode().Perm()&0o077 != 0 {
			note("state folder", fmt.Sprintf("readable by other users (mode %04o) and it holds your prompts: chmod 700 %s", info.Mode().Perm(), dir))
		}
	}
	switch settings, err := a.userSettings(); {
	case err != nil:
		check(false, "settings", err.Error())
	case settings.LogPrompts:
		note("settings", "prompt text is kept in the feedback log and session files; log_prompts: false in "+
			filepath.Join(dir, prefs.File)+" keeps only hashes")
	default:
		note("settings", "log_prompts: false: only prompt hashes are kept")
	}
	switch n, damaged, err := (&hook.Store{Dir: dir}).Decisions(context.Background()); {
	case err != nil:
		note("decisions", err.Error())
	case damaged > 0:
		note("decisions", fmt.Sprintf("%d routed prompts logged; %d line%s skipped (a record a crash cut short, or damage)", n, damaged, plural(damaged)))
	case n > 0:
		note("decisions", fmt.Sprintf("%d routed prompts logged", n))
	}
	if records, warnings, err := (&feedback.Log{Dir: dir}).Read(); err == nil && len(records) > 0 {
		corrections := 0
		for _, r := range records {
			if r.IsCorrection() {
				corrections++
			}
		}
		note("feedback", fmt.Sprintf("%d records, %d corrections, %d damaged lines", len(records), corrections, len(warnings)))
	}
	// A damaged weights file or calibration table is ignored by the router,
	// with a warning no hook shows: what was learned is lost until it is
	// mended, so it fails the check.
	if w, err := learn.LoadWeights(filepath.Join(dir, learn.WeightsFile)); err == nil {
		if w.Learned.IsZero() {
			note("learned weights", "none: rolled back to before the first learn")
		} else {
			note("learned weights", fmt.Sprintf("from %d records, %s", w.Records, w.Learned.Format(time.DateTime)))
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		check(false, "learned weights", err.Error()+": ignored when routing; `skillroute learn` learns them again, `skillroute learn --rollback` restores the last ones")
	}
	if _, err := calibrate.LoadTable(filepath.Join(dir, loader.CalibrationFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		check(false, "calibration table", err.Error()+": ignored when routing; `skillroute calibrate` builds it again")
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
	if m, err := memory.LoadDir(dir); m != nil {
		note("prompt memory", fmt.Sprintf("%d prompts, %d corrections and confirmations", m.Len(), m.Events()))
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		note("prompt memory", fmt.Sprintf("unreadable, rebuilt by the next correction or `skillroute learn`: %v", err))
	}
	// A prompt the hook gave up on is silent, and says so only in
	// hook.log: a few (a catalog's first compile) are expected, a habit is
	// a fault to mend.
	if d, err := (&hook.Store{Dir: dir}).Deadlines(context.Background()); err != nil {
		note("hook deadline", err.Error())
	} else if d.Prompts > 0 {
		detail := fmt.Sprintf("%d of %d prompts since %s given up at the %v deadline, silent", d.PastDeadline, d.Prompts, d.Since.Local().Format(time.DateTime), hook.Deadline)
		if d.LateEvents > 0 {
			detail += fmt.Sprintf("; %d events came late from Claude Code (not counted by the deadline)", d.LateEvents)
		}
		ok := d.PastDeadline <= maxPastDeadline(d.Prompts)
		if !ok {
			detail += ": hook.log says why (a catalog compiled on the prompt's clock, a slow disk, a locked state file)"
		}
		check(ok, "hook deadline", detail)
	}
	if lines := lastLines(filepath.Join(dir, "hook.log"), 3); len(lines) > 0 {
		note("hook.log (last)", strings.Join(lines, "\n"+strings.Repeat(" ", 28)))
	}
	if failed > 0 {
		return fmt.Errorf("%d checks failed", failed)
	}
	return nil
}

// checkPlugin reports whether the enabled plugin has its router: it builds
// it with Go on its first event and, without Go, stays silent forever.
func (a *app) checkPlugin(home string, enabledIn []string, check func(bool, string, string), note func(string, string)) {
	where := "enabled in " + strings.Join(enabledIn, ", ")
	dirs := pluginDataDirs(home)
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "bin", "skillroute")); err == nil {
			check(true, "plugin", where+"; its router is built in "+filepath.Join(d, "bin"))
			return
		}
	}
	if _, err := a.lookGo(); err != nil {
		check(false, "plugin", where+", but Go is not installed, so the plugin cannot build its router and stays silent: "+
			"install Go 1.26 or later (https://go.dev/dl/), or run `skillroute install` and disable the plugin")
		return
	}
	for _, d := range dirs {
		log := filepath.Join(d, "build.log")
		if st, ok := readBuildLock(d); ok {
			switch {
			case st.age > pluginBuildLimit:
				check(false, "plugin", fmt.Sprintf("%s, but its build (pid %d) has held its lock for %v, past the %v a build may take: "+
					"the next event starts it again; see %s", where, st.pid, st.age.Round(time.Second), pluginBuildLimit, log))
			case !st.alive && (st.pid != 0 || st.age > time.Minute):
				note("plugin", fmt.Sprintf("%s; its last build (pid %d) ended without finishing (killed?): the next event builds again", where, st.pid))
			default:
				note("plugin", fmt.Sprintf("%s; its router is being built (pid %d, for %v): silent until then; see %s", where, st.pid, st.age.Round(time.Second), log))
			}
			return
		}
		_, markErr := os.Stat(filepath.Join(d, "build.failed"))
		info, logErr := os.Stat(log)
		if markErr == nil || logErr == nil && info.Size() > 0 {
			detail := where + ", but building its router failed: see " + log
			if last := lastLines(log, 1); len(last) > 0 {
				detail += " (" + last[0] + ")"
			}
			check(false, "plugin", detail)
			return
		}
	}
	note("plugin", where+"; it builds its router with Go on its first event")
}

// pluginBuildLimit is how long the plugin's entry script lets a build
// hold its lock (max_build_minutes in bin/skillroute-hook) before it takes
// the lock over.
const pluginBuildLimit = 10 * time.Minute

// buildLock is the state of the plugin's build lock (DATA/bin.lock, a
// folder holding the build's pid).
type buildLock struct {
	pid   int
	age   time.Duration
	alive bool
}

// readBuildLock reads the plugin's build lock in its data folder dir.
func readBuildLock(dir string) (buildLock, bool) {
	lock := filepath.Join(dir, "bin.lock")
	info, err := os.Stat(lock)
	if err != nil {
		return buildLock{}, false
	}
	st := buildLock{age: time.Since(info.ModTime())}
	if data, err := os.ReadFile(filepath.Join(lock, "pid")); err == nil {
		st.pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	}
	st.alive = st.pid > 0 && processAlive(st.pid)
	return st, true
}

// maxPastDeadline is how many of n prompts may have given up at the
// deadline before doctor fails: two (a new catalog's first compile, a
// machine waking up) or one in ten.
func maxPastDeadline(n int) int { return max(2, n/10) }

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
