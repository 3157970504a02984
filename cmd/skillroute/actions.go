package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/recall"
	"github.com/skillroute/skillroute/store"
)

// actionFlags choose the action layer's data and router.
type actionFlags struct {
	memories, tools, router string
}

func (f *actionFlags) register(fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&f.memories, "memories", "", "memories file (default: the state folder's memories.jsonl)")
	fs.StringVar(&f.tools, "tools", "", "declared tools, tools.yaml (default: the state folder's)")
	fs.StringVar(&f.router, "router", "feature", "action router: feature or rule")
}

// memoriesPath is the state folder's memories file.
func (a *app) memoriesPath() string { return filepath.Join(a.stateDir, recall.MemoriesFile) }

// actionFiles are the memories and tools files: the state folder's
// unless files are given (the state folder's tools file may be absent).
func (a *app) actionFiles(f actionFlags) (memories, tools string, toolsOptional bool) {
	memories, tools = f.memories, f.tools
	if memories == "" {
		memories = a.memoriesPath()
	}
	if tools == "" {
		tools, toolsOptional = filepath.Join(a.stateDir, recall.ToolsFile), true
	}
	return memories, tools, toolsOptional
}

// actionCached reports whether the state folder's memories and tools are
// compiled in the cache, as the hook needs them to stay in its budget.
func (a *app) actionCached() bool {
	mems, tools, _ := a.actionFiles(actionFlags{})
	return recall.FileCached(mems, a.cacheDir()) && recall.FileCached(tools, a.cacheDir())
}

// actionLayer opens the action layer: the memories and tools
// (actionFiles) with their compiled indexes, cached beside the router's,
// the enabled policy, and the router asked for.
func (a *app) actionLayer(f actionFlags) (*action.Layer, error) {
	if f.memories != "" {
		// Named, it must be there (the state folder's may be absent, as
		// --tools' is): a typo routed with no memories, unsaid.
		if _, err := os.Stat(f.memories); err != nil {
			return nil, err
		}
	}
	mems, tools, optional := a.actionFiles(f)
	l, err := action.OpenLayer(mems, tools, optional, a.cacheDir())
	if err != nil {
		return nil, err
	}
	if l.Policy, err = action.LoadEnabledPolicy(a.stateDir); err != nil {
		return nil, err
	}
	if f.router != "" && f.router != "feature" {
		if l.Router, err = action.RouterNamed(f.router); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// warmActions compiles the action layer's indexes into the cache, so that
// the next hook call loads them: compiling a thousand memories takes
// longer than the hook's budget. Failures only warn; the hook compiles in
// the background when it must.
func (a *app) warmActions(stderr io.Writer) {
	if _, err := a.actionLayer(actionFlags{}); err != nil {
		fmt.Fprintf(stderr, "warning: action layer: %v\n", err)
	}
}

// projectDir is the project a project memory belongs to: Claude Code's
// project folder when set, else the working folder.
func (a *app) projectDir() string {
	if a.places.ProjectDir != "" {
		return a.places.ProjectDir
	}
	return a.cwd
}

func (a *app) runRemember(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("remember", "remember TEXT... [--scope user|project]  (words after -- are text, even -race)", stderr)
	scope := fs.String("scope", recall.ScopeUser, "user (every project) or project (this project only)")
	if err := parseInterspersed(fs, args); err != nil { // README writes the flag after the text
		return err
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if text == "" {
		fs.Usage()
		return errUsage
	}
	m := recall.Memory{Text: text, Scope: *scope, Created: time.Now().UTC()}
	if *scope == recall.ScopeProject {
		m.Project = a.projectDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	stored, added, err := recall.Remember(ctx, a.memoriesPath(), m)
	if err != nil {
		return err
	}
	a.warmActions(stderr)
	where := "every project"
	if stored.Scope == recall.ScopeProject {
		where = stored.Project
	}
	if !added {
		fmt.Fprintf(stdout, "already remembered as %s (%s, %s)\n", stored.ID, stored.Scope, where)
		return nil
	}
	fmt.Fprintf(stdout, "remembered %s (%s, %s): %s\n", stored.ID, stored.Scope, where, stored.Text)
	return nil
}

func (a *app) runMemories(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("memories", "memories [list [--json]] | memories forget ID", stderr)
	asJSON := fs.Bool("json", false, "list as JSON lines")
	if err := parse(fs, args); err != nil {
		return err
	}
	verb, rest := "list", fs.Args()
	if len(rest) > 0 {
		verb, rest = rest[0], rest[1:]
	}
	if verb == "list" && len(rest) > 0 { // flags after the verb
		if err := parse(fs, rest); err != nil {
			return err
		}
		rest = fs.Args()
	}
	switch {
	case verb == "list" && len(rest) == 0:
		mems, err := recall.ReadMemories(a.memoriesPath())
		if err != nil {
			return err
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetEscapeHTML(false)
			for _, m := range mems {
				if err := enc.Encode(m); err != nil {
					return err
				}
			}
			return nil
		}
		if len(mems) == 0 {
			fmt.Fprintf(stdout, "nothing remembered (skillroute remember TEXT stores a fact)\n")
			return nil
		}
		now := time.Now()
		for _, m := range mems {
			scope := m.Scope
			if m.Scope == recall.ScopeProject && m.Project != "" {
				scope += " " + m.Project
			}
			fmt.Fprintf(stdout, "%-5s %3dd  %-8s %s\n", m.ID, int(m.Age(now).Hours()/24), scope, m.Text)
		}
		return nil
	case verb == "forget" && len(rest) == 1:
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m, err := recall.Forget(ctx, a.memoriesPath(), rest[0])
		if err != nil {
			return err
		}
		a.warmActions(stderr)
		fmt.Fprintf(stdout, "forgot %s: %s\n", m.ID, m.Text)
		return nil
	}
	fs.Usage()
	return errUsage
}

func (a *app) runReplay(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("replay", "replay [--router rule|feature] [--policy] [--compare] [--since T] [--json]", stderr)
	routerName := fs.String("router", "feature", "router to re-run: feature or rule")
	withPolicy := fs.Bool("policy", false, "give the feature router the learned success rates of policy.json (enabled or not)")
	compare := fs.Bool("compare", false, "re-run the rule router, the feature router and, when there is one, the feature router with the learned policy, side by side")
	since := fs.String("since", "", "only decisions from this time on (RFC 3339, a date 2006-01-02, or a duration back from now: 72h)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return errUsage
	}
	r, err := action.RouterNamed(*routerName)
	if err != nil {
		return err
	}
	from, err := parseSince(*since, time.Now())
	if err != nil {
		return err
	}
	ts, warnings, err := action.ReadTrajectories(a.stateDir, from)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	var p *action.Policy
	if *withPolicy || *compare {
		p, err = action.LoadPolicy(filepath.Join(a.stateDir, action.PolicyFile))
		switch {
		case errors.Is(err, iofs.ErrNotExist) && *compare:
			p = nil // nothing learned yet: compare the two routers
		case errors.Is(err, iofs.ErrNotExist):
			return fmt.Errorf("no policy to replay with: run `skillroute policy` first")
		case err != nil:
			return err
		}
	}
	if *compare {
		return writeComparison(stdout, ts, p, *asJSON)
	}
	rep := action.Replay(ts, r, p)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	if rep.Decisions == 0 {
		fmt.Fprintf(stdout, "no logged decisions to replay (the hook logs them in %s)\n", filepath.Join(a.stateDir, action.TrajectoryFile))
		return nil
	}
	what := rep.Router + " router"
	if rep.Policy != "" {
		what += " with " + rep.Policy
	}
	fmt.Fprintf(stdout, "replayed %d logged decisions with the %s\n", rep.Decisions, what)
	fmt.Fprintf(stdout, "  agreement %.1f%% (same action and steps); byte-identical %d\n", 100*rep.Agreement, rep.Identical)
	if len(rep.Changed) > 0 {
		fmt.Fprintf(stdout, "  changed actions by category:\n")
		for _, c := range rep.Changed {
			fmt.Fprintf(stdout, "    %-10s %s -> %s: %d\n", c.Category, c.From, c.To, c.Count)
		}
	}
	for _, m := range []struct {
		name string
		m    action.Metrics
	}{{"logged", rep.Logged}, {"replayed", rep.Replayed}} {
		fmt.Fprintf(stdout, "  %-8s injection rate %.1f%%, adoption %.1f%% of %d skill and tool steps, success after adoption %.1f%%, tokens injected p50 %d p95 %d\n",
			m.name, 100*m.m.InjectionRate, 100*m.m.Adoption, m.m.Recommended, 100*m.m.SuccessAfterAdoption, m.m.TokensP50, m.m.TokensP95)
	}
	return nil
}

// writeComparison replays the log with each router, and with the policy.
func writeComparison(w io.Writer, ts []action.Trajectory, p *action.Policy, asJSON bool) error {
	reps := []action.ReplayReport{action.Replay(ts, action.Rule{}, nil), action.Replay(ts, action.Feature{}, nil)}
	if p != nil {
		reps = append(reps, action.Replay(ts, action.Feature{}, p))
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(reps)
	}
	fmt.Fprintf(w, "replayed %d logged decisions\n", len(ts))
	fmt.Fprintf(w, "  %-32s %9s %9s %9s %9s %11s\n", "router", "agreement", "injection", "adoption", "success", "tokens p50/95")
	row := func(name, agree string, m action.Metrics) {
		fmt.Fprintf(w, "  %-32s %9s %8.1f%% %8.1f%% %8.1f%% %6d/%d\n", name, agree, 100*m.InjectionRate, 100*m.Adoption, 100*m.SuccessAfterAdoption, m.TokensP50, m.TokensP95)
	}
	row("as logged", "", reps[0].Logged)
	for _, r := range reps {
		name := r.Router
		if r.Policy != "" {
			name += " + " + r.Policy
		}
		row(name, fmt.Sprintf("%.1f%%", 100*r.Agreement), r.Replayed)
	}
	fmt.Fprintf(w, "  (a replayed router's adoption and success count only the steps it shares with the logged decisions, whose outcome was seen)\n")
	return nil
}

// parseSince reads --since: RFC 3339, a date, or a duration back from now.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: want RFC 3339 (2026-01-02T15:04:05Z), a date (2026-01-02) or a duration (72h)", s)
}

func (a *app) runPolicy(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("policy", "policy [--enable | --disable] [--explore RATE] [--json]", stderr)
	enable := fs.Bool("enable", false, "let the hook use the learned success rates")
	disable := fs.Bool("disable", false, "stop the hook using them")
	explore := fs.Float64("explore", 0, fmt.Sprintf("exploration rate, 0 (off, the default) to %g; not given, the policy's stays", action.MaxExplore))
	asJSON := fs.Bool("json", false, "print the policy as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 || (*enable && *disable) {
		fs.Usage()
		return errUsage
	}
	exploreGiven := false
	fs.Visit(func(f *flag.Flag) { exploreGiven = exploreGiven || f.Name == "explore" })
	if exploreGiven && !(*explore >= 0 && *explore <= action.MaxExplore) { // NaN and -1 too: no longer "not given"
		return fmt.Errorf("--explore %g: the rate is between 0 and %g", *explore, action.MaxExplore)
	}
	path := filepath.Join(a.stateDir, action.PolicyFile)
	old, err := action.LoadPolicy(path)
	switch {
	case errors.Is(err, store.ErrDamaged):
		// Learned from the logs, read again below: rebuilt, not a dead
		// end that blocks every policy command and the hook's action
		// layer until the file is deleted by hand.
		fmt.Fprintf(stderr, "warning: %v; rebuilt from the logs, with the defaults (off, exploration 0) for what it held\n", err)
	case err != nil && !errors.Is(err, iofs.ErrNotExist):
		return err
	}
	ts, warnings, err := action.ReadTrajectories(a.stateDir, time.Time{})
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	records, fwarnings, err := (&feedback.Log{Dir: a.stateDir}).Read()
	if err != nil {
		return err
	}
	for _, w := range fwarnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	p := action.BuildPolicy(action.PolicyOutcomes(ts), skillOutcomes(records), time.Now())
	if old != nil {
		p.Enabled, p.Explore = old.Enabled, old.Explore
	}
	if *enable {
		p.Enabled = true
	}
	if *disable {
		p.Enabled = false
	}
	if exploreGiven {
		p.Explore = *explore
	}
	if err := p.Save(path); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		return enc.Encode(p)
	}
	state := "off (compare first: skillroute replay --policy; then skillroute policy --enable)"
	if p.Enabled {
		state = "on"
	}
	fmt.Fprintf(stdout, "%s from %d outcomes of %d logged decisions: %s, exploration %g\n", p.Version, p.Outcomes, len(ts), state, p.Explore)
	for _, k := range p.Keys() {
		c := p.Cells[k]
		fmt.Fprintf(stdout, "  %-32s success rate %.2f  (%g succeeded, %g failed)\n", k, c.Mean(), c.Successes, c.Failures)
	}
	if len(p.Skills) > 0 {
		fmt.Fprintf(stdout, "  skills with outcomes of their own in the feedback log: %d\n", len(p.Skills))
	}
	return nil
}

// skillOutcomes reads the feedback log's verdicts on routed skills: a
// confirmation is a success, a correction of the routed skill a failure
// (an implicit one at learn.ImplicitFactor, as the learner weighs it).
func skillOutcomes(records []feedback.Record) []action.SkillOutcome {
	var out []action.SkillOutcome
	for _, r := range records {
		if r.Routed == "" {
			continue // the router abstained: no skill to credit
		}
		w := 1.0
		if r.Kind == feedback.KindImplicit && r.IsCorrection() {
			w = learn.ImplicitFactor
		}
		out = append(out, action.SkillOutcome{Skill: r.Routed, Success: !r.IsCorrection(), Weight: w})
	}
	return out
}
