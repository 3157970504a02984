package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/skillroute/skillroute/bookworm"
	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/tokenize"
)

const rulesSynopsis = "rules lint [--catalog P] [--synonyms P] [--eval FILE.jsonl]... [-v] FILE|builtin"

func (a *app) runRules(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "lint" {
		fmt.Fprintf(stderr, "Usage: skillroute %s\n", rulesSynopsis)
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return errUsage
	}
	fs := newFlags("rules lint", rulesSynopsis, stderr)
	var data dataFlags
	data.register(fs, false)
	var evals stringList
	fs.Var(&evals, "eval", "labelled prompts or sessions (JSON lines): route each with and without each rule and report what the rule fixes and breaks; repeatable")
	verbose := fs.Bool("v", false, "with --eval, list the prompts each rule fixes and breaks")
	if err := parseInterspersed(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	file := fs.Arg(0)
	name, raw := rules.DisambiguationName, rules.Disambiguation
	if file != loader.Builtin {
		var err error
		if raw, err = os.ReadFile(file); err != nil {
			return err
		}
		name = file
	}
	// The router the rules work in, as `eval` opens it (learned weights
	// and calibration included); its rules are replaced by the file's.
	r, err := loader.Open(a.config(&data, stderr))
	if err != nil {
		return err
	}
	ix := r.Index
	known := func(s string) bool { return ix.Resolve(s) >= 0 }
	if name == rules.DisambiguationName {
		known = func(string) bool { return true } // fitted to the catalog below, as the router does
	}
	parse := disambig.Parse
	if bookworm.Is(name, raw) {
		parse = bookworm.Rules
	}
	set, problems, err := parse(name, raw, known)
	if err != nil {
		return fmt.Errorf("invalid rules:\n%v", err)
	}
	for _, p := range problems {
		fmt.Fprintln(stdout, p.Error())
	}
	loaded := len(set.Rules)
	set.Restrict(func(s string) (string, bool) {
		if id := ix.Resolve(s); id >= 0 {
			return ix.Skills.Name(id), true
		}
		return "", false
	})
	r.Rules = set
	examples, failed := 0, 0
	for _, rule := range set.Rules {
		examples += len(rule.Examples)
	}
	for _, f := range router.New(ix, set).CheckExamples() {
		fmt.Fprintln(stdout, f.Error())
		failed++
	}
	var losses []string
	if len(evals) > 0 {
		var files []labelled
		for _, path := range evals {
			f, err := eval.Read(path)
			if err != nil {
				return err
			}
			// As eval reads them: a skill by either of its names, and a
			// label the catalog lacks an error, not a miss either way.
			if err := f.ResolveLabels(func(label string) (string, bool) {
				if id := ix.Resolve(label); id >= 0 {
					return ix.Skills.Name(id), true
				}
				return "", false
			}); err != nil {
				return err
			}
			files = append(files, labelled{path, f})
		}
		abl, err := ablate(r, files)
		if err != nil {
			return err
		}
		losses = abl.write(stdout, *verbose)
	}
	summary := fmt.Sprintf("%s: %s", name, disambig.Summary(set.Read, problems))
	if len(set.Rules) < loaded {
		// The built-in rules are fitted to whatever is installed.
		summary += fmt.Sprintf(", %d about skills of this catalog", len(set.Rules))
	}
	summary += fmt.Sprintf(", %d examples", examples)
	var faults []string
	if len(problems) > 0 {
		skipped, trimmed := disambig.Tally(problems)
		faults = append(faults, fmt.Sprintf("%d rules with problems (%d skipped, %d trimmed)", skipped+trimmed, skipped, trimmed))
	}
	if failed > 0 {
		faults = append(faults, fmt.Sprintf("%d examples routed elsewhere", failed))
	}
	if len(losses) > 0 {
		faults = append(faults, fmt.Sprintf("%d rules with a net loss (%s)", len(losses), strings.Join(losses, ", ")))
	}
	if len(faults) > 0 {
		return errors.New(summary + ": " + strings.Join(faults, "; "))
	}
	fmt.Fprintf(stdout, "%s: ok\n", summary)
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// labelled is one eval file.
type labelled struct {
	path string
	file *eval.File
}

// item is one labelled prompt: a single prompt, or a turn of a session.
type item struct {
	file    int
	session int // -1 for a single prompt
	turn    int // index in the session, or in the file's prompts
	query   string
	want    string
	right   bool // routed right with every rule
}

// ruleEffect is what one rule does on the labelled prompts: the prompts
// it fires on, those it fixes (wrong without it, right with it) and those
// it breaks (right without it, wrong with it).
type ruleEffect struct {
	id            string
	fired         int
	fixes, breaks []item
}

func (e ruleEffect) net() int { return len(e.fixes) - len(e.breaks) }

// ablation is the effect of every rule that fired.
type ablation struct {
	files   []labelled
	items   int
	effects []ruleEffect
	silent  int // rules that fired on no prompt
}

// correct reports whether a routed skill is the labelled one ("" is an
// abstention, right for a "none" prompt).
func correct(routed, want string) bool {
	return routed == want || (want == eval.None && routed == "")
}

// outcomes routes every labelled prompt of a file with r: single prompts
// alone, sessions replayed with their context as `eval` does.
func outcomes(r *router.Router, f *eval.File) ([]eval.Outcome, []eval.Outcome, error) {
	single := make([]eval.Outcome, len(f.Cases))
	for i, c := range f.Cases {
		d := r.Route(c.Query, router.Session{})
		single[i] = eval.Outcome{Case: c, Routed: d.Skill}
	}
	turns, err := eval.RouteSessions(r, f.Sessions, true)
	return single, turns, err
}

// ablate routes each labelled prompt with all the rules, then, for each
// rule, the prompts it fires on again without it. A rule can only change
// the prompts it fires on: a session's state follows its labels, not the
// routes, so the other turns route the same.
func ablate(r *router.Router, files []labelled) (*ablation, error) {
	set := r.Rules
	out := &ablation{files: files}
	var items []item
	firedOn := map[string][]int{} // rule id -> items it fires on
	for fi, lf := range files {
		single, turns, err := outcomes(r, lf.file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", lf.path, err)
		}
		for i, o := range single {
			items = append(items, item{file: fi, session: -1, turn: i, query: o.Query, want: o.Expected, right: correct(o.Routed, o.Expected)})
		}
		k := 0
		for si, s := range lf.file.Sessions {
			for ti := range s.Turns {
				o := turns[k]
				k++
				items = append(items, item{file: fi, session: si, turn: ti, query: o.Query, want: o.Expected, right: correct(o.Routed, o.Expected)})
			}
		}
	}
	out.items = len(items)
	for i, it := range items {
		for _, rule := range set.Fired(tokenize.NewText(it.query)) {
			firedOn[rule.ID] = append(firedOn[rule.ID], i)
		}
	}
	for _, rule := range set.Rules {
		on := firedOn[rule.ID]
		if len(on) == 0 {
			out.silent++
			continue
		}
		without := *r
		without.Rules = set.Without(rule.ID)
		eff := ruleEffect{id: rule.ID, fired: len(on)}
		replayed := map[[2]int][]eval.Outcome{} // (file, session) -> turns without the rule
		for _, i := range on {
			it := items[i]
			var routed string
			if it.session < 0 {
				routed = without.Route(it.query, router.Session{}).Skill
			} else {
				key := [2]int{it.file, it.session}
				if _, ok := replayed[key]; !ok {
					s := files[it.file].file.Sessions[it.session]
					turns, err := eval.RouteSessions(&without, []eval.Session{s}, true)
					if err != nil {
						return nil, fmt.Errorf("%s: %w", files[it.file].path, err)
					}
					replayed[key] = turns
				}
				routed = replayed[key][it.turn].Routed
			}
			switch right := correct(routed, it.want); {
			case it.right && !right:
				eff.fixes = append(eff.fixes, it)
			case !it.right && right:
				eff.breaks = append(eff.breaks, it)
			}
		}
		out.effects = append(out.effects, eff)
	}
	// Worst first, then by id.
	sort.SliceStable(out.effects, func(i, j int) bool {
		if a, b := out.effects[i].net(), out.effects[j].net(); a != b {
			return a < b
		}
		return out.effects[i].id < out.effects[j].id
	})
	return out, nil
}

// write prints the ablation table and returns the rules with a net loss.
func (a *ablation) write(w io.Writer, verbose bool) []string {
	paths := make([]string, len(a.files))
	for i, f := range a.files {
		paths[i] = f.path
	}
	fmt.Fprintf(w, "ablation over %d labelled prompts (%s): each rule removed in turn\n", a.items, strings.Join(paths, ", "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rule\tfired\tfixes\tbreaks\tnet\t")
	var losses []string
	for _, e := range a.effects {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%+d\t\n", e.id, e.fired, len(e.fixes), len(e.breaks), e.net())
		if e.net() < 0 {
			losses = append(losses, e.id)
		}
	}
	tw.Flush()
	fixes, breaks := 0, 0
	for _, e := range a.effects {
		fixes += len(e.fixes)
		breaks += len(e.breaks)
	}
	fmt.Fprintf(w, "%d rules fired, %d did not; in all %d fixes and %d breaks; %d rules with a net loss\n",
		len(a.effects), a.silent, fixes, breaks, len(losses))
	if verbose {
		for _, e := range a.effects {
			for _, l := range []struct {
				what  string
				items []item
			}{{"fixes", e.fixes}, {"breaks", e.breaks}} {
				for _, it := range l.items {
					fmt.Fprintf(w, "  %s %s %s: %q (want %s)\n", e.id, l.what, a.where(it), it.query, it.want)
				}
			}
		}
	}
	return slices.Clip(losses)
}

// where names a labelled prompt by file and line, and a session's turn
// by its number too.
func (a *ablation) where(it item) string {
	f := a.files[it.file]
	if it.session < 0 {
		return fmt.Sprintf("%s:%d", f.path, f.file.Cases[it.turn].Line)
	}
	s := f.file.Sessions[it.session]
	return fmt.Sprintf("%s:%d: session %s turn %d", f.path, s.Line, s.ID, it.turn+1)
}
