package main

import (
	"fmt"
	"io"

	"github.com/skillroute/skillroute/eval/synth"
)

const benchUsage = "bench gen --skills N [--seed S] [--queries Q] -o DIR"

// runBench holds the tools that measure skillroute at scale (see
// BENCHMARKS.md).
func (a *app) runBench(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "Usage: skillroute %s\n", benchUsage)
		return errUsage
	}
	switch args[0] {
	case "gen":
		return benchGen(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintf(stderr, "Usage: skillroute %s\n", benchUsage)
		return nil
	}
	fmt.Fprintf(stderr, "Usage: skillroute %s\n", benchUsage)
	return errUsage
}

func benchGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench gen", benchUsage, stderr)
	n := fs.Int("skills", 0, "how many skills to generate")
	seed := fs.Uint64("seed", 1, "random seed: the same seed writes the same catalog")
	queries := fs.Int("queries", synth.DefaultQueries, "how many labelled prompts to write to DIR/queries.jsonl")
	out := fs.String("o", "", "folder to write (must not exist or be empty)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *n < 1 || *out == "" || *queries < 1 || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	set, err := synth.Write(*out, synth.Options{Skills: *n, Seed: *seed, Queries: *queries})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d skills and %d labelled prompts to %s (seed %d)\n", len(set.Files), len(set.Queries), *out, *seed)
	fmt.Fprintf(stdout, "evaluate: skillroute eval --catalog %s %s/queries.jsonl\n", *out, *out)
	return nil
}
