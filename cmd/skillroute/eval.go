package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/loader"
)

func (a *app) runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", "eval [--catalog P] [--rules P] [--synonyms P] [--derive-keywords] [--split K] [--json] [-v] FILE.jsonl", stderr)
	var data dataFlags
	data.register(fs, true)
	fs.BoolVar(&data.derive, "derive-keywords", false, "ignore written keyword tiers and derive them from each skill's text")
	asJSON := fs.Bool("json", false, "end with the summary as one JSON line")
	verbose := fs.Bool("v", false, "list every miss")
	split := fs.Int("split", 0, "also report each of K parts of a hash split of the prompts (sessions kept whole): 2 for held-out halves")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || *split < 0 || *split == 1 {
		fs.Usage()
		return errUsage
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
	if len(file.Cases) == 0 && len(file.Sessions) == 0 {
		return fmt.Errorf("%s: no prompts to evaluate", fs.Arg(0))
	}
	var last eval.Summary
	if len(file.Cases) > 0 {
		rep := summarize(eval.RouteCases(r, file.Cases))
		rep.Write(stdout, fmt.Sprintf("%s: %d prompts", fs.Arg(0), len(file.Cases)), *verbose)
		last = rep.Summary
	}
	if len(file.Sessions) > 0 {
		turns := 0
		for _, s := range file.Sessions {
			turns += len(s.Turns)
		}
		plain, err := eval.RouteSessions(r, file.Sessions, false)
		if err != nil {
			return err
		}
		without := eval.Summarize(plain)
		without.Write(stdout, fmt.Sprintf("%s: %d sessions, %d turns, each turn routed alone (no context)", fs.Arg(0), len(file.Sessions), turns), false)
		fused, err := eval.RouteSessions(r, file.Sessions, true)
		if err != nil {
			return err
		}
		with := summarize(fused)
		with.Write(stdout, fmt.Sprintf("%s: the same turns replayed through the hook, with session context", fs.Arg(0)), *verbose)
		fmt.Fprintf(stdout, "context adds %+.1f points of top-1\n", 100*(with.Summary.Top1-without.Summary.Top1))
		last = with.Summary
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(last)
	}
	return nil
}
