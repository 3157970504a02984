package main

import (
	"fmt"
	"io"
	"os"

	"github.com/skillroute/skillroute/bookworm"
	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

func (a *app) runRules(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "lint" {
		fmt.Fprintf(stderr, "Usage: skillroute rules lint [--catalog P] [--synonyms P] FILE\n")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return nil
		}
		return errUsage
	}
	fs := newFlags("rules lint", "rules lint [--catalog P] [--synonyms P] FILE", stderr)
	var data dataFlags
	data.register(fs, false)
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errUsage
	}
	file := fs.Arg(0)
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	opt := a.config(&data, stderr)
	ix, err := loader.OpenIndex(opt)
	if err != nil {
		return err
	}
	parse := disambig.Parse
	if bookworm.Is(file, raw) {
		parse = bookworm.Rules
	}
	set, problems, err := parse(file, raw, func(s string) bool { return ix.Resolve(s) >= 0 })
	if err != nil {
		return fmt.Errorf("invalid rules:\n%v", err)
	}
	failures := len(problems)
	for _, p := range problems {
		fmt.Fprintln(stdout, p.Error())
	}
	r := router.New(ix, set)
	examples := 0
	for _, rule := range set.Rules {
		examples += len(rule.Examples)
	}
	for _, f := range r.CheckExamples() {
		fmt.Fprintln(stdout, f.Error())
		failures++
	}
	if failures > 0 {
		return fmt.Errorf("%s: %d problems in %d rules (%d examples)", file, failures, len(set.Rules), examples)
	}
	fmt.Fprintf(stdout, "%s: %d rules, %d examples: ok\n", file, len(set.Rules), examples)
	return nil
}
