package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/router"
)

func runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", "eval [--catalog P] [--rules P] [--synonyms P] [--derive-keywords] [--json] [-v] FILE.jsonl", stderr)
	var data dataFlags
	data.register(fs, true)
	fs.BoolVar(&data.derive, "derive-keywords", false, "ignore written keyword tiers and derive them from each skill's text")
	asJSON := fs.Bool("json", false, "end with the summary as one JSON line")
	verbose := fs.Bool("v", false, "list every miss")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	file, err := eval.Read(fs.Arg(0))
	if err != nil {
		return err
	}
	r, err := router.Open(data.options(stderr))
	if err != nil {
		return err
	}
	if len(file.Cases) == 0 {
		return fmt.Errorf("%s: no prompts to evaluate", fs.Arg(0))
	}
	rep := eval.Summarize(eval.RouteCases(r, file.Cases))
	rep.Write(stdout, fmt.Sprintf("%s: %d prompts", fs.Arg(0), len(file.Cases)), *verbose)
	if *asJSON {
		return json.NewEncoder(stdout).Encode(rep.Summary)
	}
	return nil
}
