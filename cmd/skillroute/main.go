// Command skillroute routes Claude Code prompts to skills.
//
// Usage:
//
//	skillroute route [--json] [--explain] [--catalog P] [--rules P] [--synonyms P] TEXT...
//	skillroute compile [--catalog P] [--synonyms P] [-o FILE]
//	skillroute eval [--catalog P] [--rules P] [--synonyms P] [--derive-keywords] [--json] [-v] FILE.jsonl
//	skillroute rules lint [--catalog P] [--synonyms P] FILE
//	skillroute skills list [--catalog P]
//	skillroute skills install [--dir DIR] [--force]
//	skillroute hook < EVENT.json
//	skillroute install [--project] [--dry-run] [--no-skills]
//	skillroute uninstall [--project] [--dry-run]
//	skillroute correct SKILL [--query TEXT] [--session ID]
//	skillroute learn [--dry-run] [--json] | skillroute learn --rollback [N]
//	skillroute calibrate --preset P [--min-samples N] [--tolerance T]
//	skillroute doctor
//	skillroute bench gen --skills N [--seed S] [--queries Q] -o DIR
//
// Run `skillroute COMMAND --help` for each command's flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands []command

func init() {
	commands = []command{
		{"route", "route a prompt and print the decision", runRoute},
		{"compile", "compile a catalog into an index file", runCompile},
		{"eval", "measure routing accuracy on labelled prompts", runEval},
		{"rules", "check a rules file: skillroute rules lint FILE", runRules},
		{"skills", "list the catalog, or install the built-in skills", runSkills},
		{"hook", "handle one Claude Code hook event (stdin JSON)", runHook},
		{"install", "register the hook in Claude Code's settings and install the skills", runInstall},
		{"uninstall", "remove the hook entries from Claude Code's settings", runUninstall},
		{"correct", "record that the last routed prompt should have gone to SKILL", runCorrect},
		{"learn", "learn weights from the feedback log, adopting them only if held-out accuracy holds", runLearn},
		{"calibrate", "build the calibration table from logged outcomes", runCalibrate},
		{"doctor", "check the installation, the state folder and routing", runDoctor},
		{"bench", "generate synthetic catalogs for benchmarks: skillroute bench gen", runBench},
	}
}

// errUsage marks an error already explained by a usage message.
var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(args[1:], stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				return 2
			default:
				fmt.Fprintf(stderr, "skillroute %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "skillroute: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "skillroute routes Claude Code prompts to the right skill.\n\nUsage: skillroute COMMAND [flags]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun 'skillroute COMMAND --help' for a command's flags.\n")
}

// newFlags returns a flag set whose usage names the command.
func newFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: skillroute %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags, mapping a bad flag to errUsage.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	return nil
}
