package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/calibrate"
	"github.com/skillroute/skillroute/learn/category"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/tokenize"
)

func (a *app) runCorrect(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("correct", "correct SKILL|none [--query TEXT] [--session ID] [--state DIR] | correct --undo [--state DIR]", stderr)
	var data dataFlags
	data.register(fs, true)
	query := fs.String("query", "", "the prompt that should have gone to SKILL (default: the session's last routed prompt)")
	session := fs.String("session", a.session, "the session whose last prompt to correct (default: $CLAUDE_CODE_SESSION_ID, else the most recently active)")
	stateFlag := fs.String("state", "", "the state folder to read the session from and record in (default: $CLAUDE_PLUGIN_DATA, else $SKILLROUTE_HOME, else ~/.claude/skillroute); the plugin's /skillroute:wrong passes its data folder")
	undo := fs.Bool("undo", false, "take back the last correction you made")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	a, err := a.withState(*stateFlag)
	if err != nil {
		return err
	}
	if *undo {
		if fs.NArg() != 0 {
			fs.Usage()
			return errUsage
		}
		return a.undoCorrection(&data, stdout, stderr)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	queryGiven := false
	fs.Visit(func(f *flag.Flag) { queryGiven = queryGiven || f.Name == "query" })
	if queryGiven && strings.TrimSpace(*query) == "" {
		// Not the session's last prompt: `--query "$UNSET"` names another.
		return errors.New("--query is empty: give the prompt that was misrouted, or leave --query out for the session's last")
	}
	r, err := loader.Open(a.hookConfig(&data, stderr))
	if err != nil {
		return err
	}
	want := fs.Arg(0)
	rec := feedback.Record{TS: time.Now(), Kind: feedback.KindExplicit}
	if want != noSkill {
		id := r.Index.Resolve(want)
		if id < 0 {
			return fmt.Errorf("unknown skill %q; nearest: %s (or %q: no skill should have been recommended)", want, strings.Join(nearest(want, r.Index.SkillNames(), 3), ", "), noSkill)
		}
		rec.Corrected = r.Index.Skills.Name(id)
	}
	settings, err := a.userSettings()
	if err != nil {
		fmt.Fprintf(stderr, "warning: %v\n", err)
	}
	var terms memory.Vector
	if *query != "" {
		d := r.Route(*query, router.Session{})
		rec.Routed, rec.Confidence, rec.Session = d.Skill, d.Confidence, *session
		rec.Query, rec.QueryHash = settings.Prompt(tokenize.Cap(*query))
		terms = d.Terms
	} else {
		store := &hook.Store{Dir: a.stateDir}
		sid := *session
		if sid == "" {
			sid = store.Latest()
		}
		f, err := store.SessionFile(sid)
		if err != nil {
			return fmt.Errorf("%w; pass --query TEXT", err) // names the file
		}
		if sid == "" || f.Last == nil {
			return errors.New("no routed prompt to correct in this session; pass --query TEXT")
		}
		rec.Session, rec.Decision, rec.Routed, rec.Confidence = sid, f.Last.ID, f.Last.Skill, f.Last.Confidence
		rec.Query, rec.QueryHash = f.Last.Query, f.Last.QueryHash
		terms = f.Last.Terms
		if len(terms) == 0 && f.Last.Query != "" { // a session file from before the memory
			terms = memory.Vectorize(r.Index, r.Index.Tokenizer().Tokenize(f.Last.Query))
		}
		if !settings.LogPrompts {
			rec.Query = "" // written before log_prompts: false was set
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := (&feedback.Log{Dir: a.stateDir}).Append(ctx, rec); err != nil {
		return err
	}
	if err := remember(ctx, a.stateDir, r, rec, terms); err != nil {
		// Recorded all the same: `skillroute learn` rebuilds the memory.
		fmt.Fprintf(stderr, "warning: %v\n", err)
	}
	prompt := promptOf(rec)
	if !rec.IsCorrection() {
		fmt.Fprintf(stdout, "recorded: %s goes to %s, as it should (confirmed). `skillroute correct --undo` takes this back.\n", prompt, skillOrNone(rec.Routed))
		return nil
	}
	// Say what the next route of the prompt will do, with the memory as
	// it now is: a closing turn ("thanks") is never routed, and a
	// correction that disagrees with earlier ones may not tip it yet.
	now := "From now on it does"
	if m, err := memory.LoadDir(a.stateDir); err == nil && rec.Query != "" {
		r.Memory = m
		switch d := r.Route(rec.Query, router.Session{}); {
		case d.Closing:
			now = "It closes an exchange (thanks, done), which is never routed"
		case d.Skill != rec.Corrected:
			now = fmt.Sprintf("It still goes to %s for now: the prompt memory weighs this correction against what it knew", skillOrNone(d.Skill))
		}
	}
	fmt.Fprintf(stdout, "recorded: %s should go to %s (it went to %s). %s; `skillroute correct --undo` takes this back.\n",
		prompt, skillOrNone(rec.Corrected), skillOrNone(rec.Routed), now)
	return nil
}

// promptOf names a record's prompt for the user: its text, quoted, or its
// hash when only hashes are kept (log_prompts: false).
func promptOf(r feedback.Record) string {
	if r.Query == "" {
		return "the prompt " + r.QueryHash
	}
	return fmt.Sprintf("%q", r.Query)
}

// noSkill is what `correct` takes for "no skill should have been
// recommended".
const noSkill = "none"

// skillOrNone names a skill, or "no skill" for "".
func skillOrNone(skill string) string {
	if skill == "" {
		return "no skill"
	}
	return skill
}

// parseInterspersed parses flags that may follow the positional arguments
// ("correct SKILL --query TEXT"). After a bare "--" every argument is
// positional, as for flag.Parse: "remember -- pass -race" remembers words
// that look like flags.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := parse(fs, args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			pos = append(pos, rest...) // Parse stopped at "--", which it consumes
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// nearest returns up to n names closest to s by edit distance.
func nearest(s string, names []string, n int) []string {
	type scored struct {
		name string
		d    int
	}
	var list []scored
	for _, name := range names {
		list = append(list, scored{name, editDistance(s, name)})
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].d < list[j].d })
	var out []string
	for i := 0; i < len(list) && i < n; i++ {
		out = append(out, list[i].name)
	}
	return out
}

// editDistance is the Levenshtein distance over runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func (a *app) runLearn(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("learn", "learn [--dry-run] [--json] | learn --rollback [N]", stderr)
	var data dataFlags
	data.register(fs, true)
	dryRun := fs.Bool("dry-run", false, "learn and evaluate, but adopt nothing")
	asJSON := fs.Bool("json", false, "print {\"records\",\"train\",\"test\",\"before\",\"after\",\"adopted\",\"reason\"}")
	rollback := fs.Bool("rollback", false, "restore the N-th newest snapshot of the weights (default 1)")
	if err := parseInterspersed(fs, args); err != nil { // "learn 2 --rollback" too
		return err
	}
	allowed := 0
	if *rollback {
		allowed = 1 // N
	}
	if err := atMostArgs(fs, allowed, stderr); err != nil {
		return err
	}
	dir := a.stateDir
	if *rollback {
		n := 1
		if fs.NArg() > 0 {
			v, err := strconv.Atoi(fs.Arg(0))
			if err != nil || v < 1 {
				return fmt.Errorf("--rollback takes a snapshot number from 1 (the newest), not %q", fs.Arg(0))
			}
			n = v
		}
		w, err := learn.Rollback(dir, n)
		if err != nil {
			return err
		}
		if w.Learned.IsZero() { // the snapshot the first adoption takes of nothing learned
			fmt.Fprintf(stdout, "restored snapshot %d: no learned weights (as before the first learn)\n", n)
			return nil
		}
		fmt.Fprintf(stdout, "restored snapshot %d: weights learned %s from %d records\n", n, w.Learned.Format(time.RFC3339), w.Records)
		return nil
	}
	records, warnings, err := (&feedback.Log{Dir: dir}).Read()
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	if err != nil {
		return err
	}
	opt := a.hookConfig(&data, stderr)
	opt.StateDir = "" // the trial applies weights itself
	r, err := loader.Open(opt)
	if err != nil {
		return err
	}
	route := func(w *learn.Weights) func(string) string {
		routed := *r
		if w != nil {
			routed.Weights = w
		}
		return func(q string) string { return routed.Route(q, router.Session{}).Skill }
	}
	now := time.Now()
	out, err := learn.Update(dir, records, r.Index, now, route, *dryRun)
	if err != nil {
		return err
	}
	if !*dryRun {
		// The prompt memory is remade from the log too: a catalog that
		// changed reweighs its vectors, and records remembered by no
		// command (a hook that gave up) join it.
		ctx, cancel := context.WithTimeout(context.Background(), editWait)
		defer cancel()
		err := memory.Update(ctx, dir, now, func(s *memory.Set, _ bool) error {
			// The log is read again under the memory's locks: a verdict
			// a hook recorded since the read above (during the trial) is
			// in the journal now, and its record in the log, which the
			// hook appends first. Rebuilt from the older read, the memory
			// dropped it until the next learn
			// (TestLearnKeepsVerdictRecordedMeanwhile).
			latest, _, err := (&feedback.Log{Dir: dir}).Read() // its warnings were printed above
			if err != nil {
				return err
			}
			*s = *memory.Build(latest, r.Index, s, now)
			return nil
		})
		if err != nil {
			return err
		}
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(out)
	}
	verdict := "adopted the new weights"
	switch {
	case *dryRun && out.Adopted:
		verdict = "would adopt the new weights (dry run)"
	case !out.Adopted:
		verdict = "kept the current weights"
	}
	fmt.Fprintf(stdout, "%d records (%d to learn, %d held out): held-out accuracy %.1f%% before, %.1f%% after; %s: %s.\n",
		out.Records, out.Train, out.Test, 100*out.Before, 100*out.After, verdict, out.Reason)
	return nil
}

func (a *app) runCalibrate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("calibrate", "calibrate --preset minimize-cost|balanced|maximize-accuracy [--min-samples N] [--tolerance T] [--fallback FILE] [-o FILE]", stderr)
	var data dataFlags
	data.register(fs, false)
	preset := fs.String("preset", calibrate.PresetBalanced, "minimize-cost, balanced or maximize-accuracy")
	minSamples := fs.Int("min-samples", calibrate.DefaultMinSamples, "samples a (category, skill) cell needs to count")
	tolerance := fs.Float64("tolerance", calibrate.DefaultTolerance, "minimize-cost: accuracy a cheaper skill may give up, a share (0.02: 2 points)")
	fallbackFile := fs.String("fallback", "", "JSON {category: skill} used where samples are too few")
	out := fs.String("o", "", "write the table here (default: the state folder, where the router reads it)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := atMostArgs(fs, 0, stderr); err != nil {
		return err
	}
	// calibrate.Build takes what is out of range for its default: here it
	// is an error, as `--tolerance 2` (meant as 2 points) would allow 200.
	if !(*tolerance >= 0 && *tolerance <= 1) {
		fmt.Fprintf(stderr, "--tolerance %g: a share of accuracy from 0 to 1 (0.02 is 2 points)\n", *tolerance)
		return errUsage
	}
	if *minSamples < 1 {
		fmt.Fprintf(stderr, "--min-samples %d: at least 1\n", *minSamples)
		return errUsage
	}
	dir := a.stateDir
	records, warnings, err := (&feedback.Log{Dir: dir}).Read()
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	if err != nil {
		return err
	}
	ix, err := loader.OpenIndex(a.hookConfig(&data, stderr))
	if err != nil {
		return err
	}
	var fallback map[string]string
	if *fallbackFile != "" {
		if fallback, err = readFallback(*fallbackFile, ix); err != nil {
			return err
		}
	}
	t, err := calibrate.Build(calibrate.SamplesFromRecords(records), *preset, *minSamples, *tolerance, fallback, time.Now())
	if err != nil {
		return err
	}
	t.Catalog = ix.SourceHash
	for _, r := range records {
		if t.From.IsZero() || r.TS.Before(t.From) {
			t.From = r.TS
		}
		if r.TS.After(t.To) {
			t.To = r.TS
		}
	}
	path := *out
	if path == "" {
		path = filepath.Join(dir, loader.CalibrationFile)
	}
	if err := t.Save(path); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s table from %d samples (min %d per cell) -> %s\n", t.Preset, t.Samples, t.MinSamples, path)
	cats := make([]string, 0, len(t.Categories))
	for c := range t.Categories {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	for _, c := range cats {
		e := t.Categories[c]
		arm := e.Arm
		if arm == "" {
			arm = "(BM25 decision)"
			if e.Level == calibrate.LevelCalibrated {
				arm = "(no injection)"
			}
		}
		fmt.Fprintf(stdout, "  %-10s %-11s %s\n", c, e.Level, arm)
	}
	return nil
}

// readFallback reads calibrate's --fallback table, {category: skill}
// ("" for no skill), with each skill in the catalog's spelling. An entry
// the router could never apply (a category the classifier does not give,
// a skill the catalog lacks) is an error naming the file and the entry,
// as is a file that is not JSON, with its line.
func readFallback(path string, ix *index.Index) (map[string]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := hook.SyntaxError(raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var fallback map[string]string
	if err := json.Unmarshal(raw, &fallback); err != nil {
		return nil, fmt.Errorf("%s: want {\"category\": \"skill\"}: %v", path, err)
	}
	cats := category.Categories()
	for _, cat := range slices.Sorted(maps.Keys(fallback)) {
		if !slices.Contains(cats, cat) {
			return nil, fmt.Errorf("%s: category %q is none of %s", path, cat, strings.Join(cats, ", "))
		}
		skill := fallback[cat]
		if skill == "" {
			continue
		}
		id := ix.Resolve(skill)
		if id < 0 {
			return nil, fmt.Errorf("%s: %q: unknown skill %q; nearest: %s", path, cat, skill, strings.Join(nearest(skill, ix.SkillNames(), 3), ", "))
		}
		fallback[cat] = ix.Skills.Name(id)
	}
	return fallback, nil
}
