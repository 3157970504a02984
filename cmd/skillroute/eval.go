package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/recall"
)

func (a *app) runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", "eval [--catalog P] [--rules P] [--synonyms P] [--derive-keywords] [--memories F] [--tools F] [--router rule|feature] [--split K] [--json] [-v] FILE.jsonl", stderr)
	var data dataFlags
	data.register(fs, true)
	fs.BoolVar(&data.derive, "derive-keywords", false, "ignore written keyword tiers and derive them from each skill's text")
	asJSON := fs.Bool("json", false, "end with the summary as one JSON line")
	verbose := fs.Bool("v", false, "list every miss (and the confusion matrix of actions)")
	split := fs.Int("split", 0, "also report each of K parts of a hash split of the prompts (sessions kept whole): 2 for held-out halves")
	memories := fs.String("memories", "", "memories the action labels refer to (JSON lines {id, text, scope, age_days}); default none")
	toolsFile := fs.String("tools", "", "declared tools the action labels refer to (tools.yaml); default none")
	routerName := fs.String("router", "feature", "action router for the action labels and the hook's line: rule or feature")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	if *split < 0 || *split == 1 {
		fmt.Fprintf(stderr, "--split %d: K is 2 or more (0: no split)\n", *split)
		return errUsage
	}
	ar, err := action.RouterNamed(*routerName)
	if err != nil {
		return err
	}
	summarize := func(outs []eval.Outcome) eval.Report {
		rep := eval.Summarize(outs)
		if *split > 1 {
			rep.Summary.Folds = eval.Split(outs, *split)
		}
		return rep
	}
	file, err := eval.Read(fs.Arg(0))
	if err != nil {
		return err
	}
	r, err := loader.Open(a.config(&data, stderr))
	if err != nil {
		return err
	}
	if err := file.ResolveLabels(func(label string) (string, bool) {
		if id := r.Index.Resolve(label); id >= 0 {
			return r.Index.Skills.Name(id), true
		}
		return "", false
	}); err != nil {
		return err
	}
	if len(file.Cases) == 0 && len(file.Sessions) == 0 {
		return fmt.Errorf("%s: no prompts to evaluate", fs.Arg(0))
	}
	// Each part is summarised, empty or not: K past the prompts says
	// nothing more, and a K of a billion ran out of memory.
	if n := len(file.Prompts()); *split > n {
		return fmt.Errorf("--split %d: more parts than the %d prompts of %s", *split, n, fs.Arg(0))
	}
	// The JSON summary: the skill figures, and the action figures when
	// the file labels actions.
	var last struct {
		eval.Summary
		ActionN      int      `json:"action_n,omitempty"`
		ActionAcc    *float64 `json:"action_acc,omitempty"`
		ActionRefAcc *float64 `json:"action_ref_acc,omitempty"`
		ActionRouter string   `json:"action_router,omitempty"`
	}
	var all []eval.Outcome // the single prompts, then the turns with context
	layer, err := fixtureLayer(*memories, *toolsFile)
	if err != nil {
		return err
	}
	if len(file.Cases) > 0 {
		outs := eval.RouteCases(r, file.Cases)
		eval.HookLines(outs, layer, ar, time.Now())
		all = append(all, outs...)
		rep := summarize(outs)
		rep.Write(stdout, fmt.Sprintf("%s: %d prompts", fs.Arg(0), len(file.Cases)), *verbose)
		last.Summary = rep.Summary
	}
	if eval.HasActions(file.Cases) {
		rep := eval.SummarizeActions(eval.Actions(all))
		rep.Write(stdout, fmt.Sprintf("%s: %d prompts with an action label, %s router (%d memories, %d tools)",
			fs.Arg(0), rep.N, ar.Name(), len(layer.Memories()), len(layer.Tools())), *verbose)
		acc, refAcc := rep.Accuracy(), rep.RefAccuracy()
		last.ActionN, last.ActionAcc, last.ActionRefAcc, last.ActionRouter = rep.N, &acc, &refAcc, ar.Name()
	}
	if len(file.Sessions) > 0 {
		turns := 0
		for _, s := range file.Sessions {
			turns += len(s.Turns)
		}
		plain, err := eval.RouteSessions(r, file.Sessions, false)
		if err != nil {
			return fmt.Errorf("%s: %w", fs.Arg(0), err)
		}
		without := eval.Summarize(plain)
		without.Write(stdout, fmt.Sprintf("%s: %d sessions, %d turns, each turn routed alone (no context)", fs.Arg(0), len(file.Sessions), turns), false)
		fused, err := eval.RouteSessions(r, file.Sessions, true)
		if err != nil {
			return fmt.Errorf("%s: %w", fs.Arg(0), err) // FILE: line N: session ...
		}
		with := summarize(fused)
		with.Write(stdout, fmt.Sprintf("%s: the same turns replayed through the hook, with session context", fs.Arg(0)), *verbose)
		fmt.Fprintf(stdout, "context adds %+.1f points of top-1\n", 100*(with.Summary.Top1-without.Summary.Top1))
		last.Summary = with.Summary
		if len(file.Cases) > 0 {
			// The summary is the whole file's, not its sessions' alone.
			all = append(all, fused...)
			last.Summary = summarize(all).Summary
			fmt.Fprintf(stdout, "%s: all %d prompts and turns: %s\n", fs.Arg(0), len(all), last.Summary.Line())
		}
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(last)
	}
	return nil
}

// fixtureLayer is the action layer over fixture files ("" for none).
func fixtureLayer(memories, tools string) (*action.Layer, error) {
	var mems []recall.Memory
	var ts []recall.Tool
	var err error
	if memories != "" {
		if mems, err = recall.ReadMemories(memories); err != nil {
			return nil, err
		}
		if mems == nil {
			return nil, fmt.Errorf("%s: no such file", memories)
		}
	}
	if tools != "" {
		if ts, err = recall.ReadTools(tools); err != nil {
			return nil, err
		}
	}
	return action.NewLayer(mems, ts)
}
