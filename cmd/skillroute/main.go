// Command skillroute routes Claude Code prompts to skills.
//
// Usage:
//
//	skillroute route [--json] [--explain] [--catalog P] [--rules P] [--synonyms P] [--memories F] [--tools F] [--router R] TEXT...
//	skillroute compile [--catalog P] [--synonyms P] [-o FILE] [--full]
//	skillroute eval [--catalog P] [--rules P] [--synonyms P] [--derive-keywords] [--memories F] [--tools F] [--router R] [--json] [-v] FILE.jsonl
//	skillroute rules lint [--catalog P] [--synonyms P] FILE
//	skillroute skills list [--catalog P]
//	skillroute skills install [--dir DIR] [--force] [NAME...]
//	skillroute hook < EVENT.json
//	skillroute install [--project] [--dry-run] [--no-skills]
//	skillroute uninstall [--project] [--dry-run]
//	skillroute correct SKILL|none [--query TEXT] [--session ID] [--state DIR] | skillroute correct --undo
//	skillroute forget --corrections [SKILL] | skillroute forget --all
//	skillroute learn [--dry-run] [--json] | skillroute learn --rollback [N]
//	skillroute calibrate --preset P [--min-samples N] [--tolerance T]
//	skillroute doctor
//	skillroute remember [--scope user|project] TEXT...
//	skillroute memories [list] | skillroute memories forget ID
//	skillroute replay [--router rule|feature] [--policy] [--since T] [--json]
//	skillroute policy [--enable|--disable] [--explore RATE] [--json]
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
	"runtime"
	"runtime/debug"

	"github.com/skillroute/skillroute/internal/termsafe"
)

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(a *app, args []string, stdout, stderr io.Writer) error
}

var commands []command

func init() {
	commands = []command{
		{"route", "route a prompt and print the decision", (*app).runRoute},
		{"compile", "compile a catalog into an index file", (*app).runCompile},
		{"eval", "measure routing accuracy on labelled prompts", (*app).runEval},
		{"rules", "check a rules file: skillroute rules lint FILE", (*app).runRules},
		{"skills", "list the catalog, or install the built-in skills", (*app).runSkills},
		{"hook", "handle one Claude Code hook event (stdin JSON)", (*app).runHook},
		{"install", "register the hook in Claude Code's settings and install the skills", (*app).runInstall},
		{"uninstall", "remove the hook entries from Claude Code's settings", (*app).runUninstall},
		{"correct", "record that the last routed prompt should have gone to SKILL (--undo takes it back)", (*app).runCorrect},
		{"forget", "forget corrections (--corrections [SKILL]) or everything stored (--all)", (*app).runForget},
		{"learn", "learn weights from the feedback log, adopting them only if held-out accuracy holds", (*app).runLearn},
		{"calibrate", "build the calibration table from logged outcomes", (*app).runCalibrate},
		{"doctor", "check the installation, the state folder and routing", (*app).runDoctor},
		{"remember", "remember a fact for prompts it fits: skillroute remember TEXT", (*app).runRemember},
		{"memories", "list remembered facts, or forget one: skillroute memories forget ID", (*app).runMemories},
		{"replay", "re-run an action router over the logged decisions and compare", (*app).runReplay},
		{"policy", "learn success rates from logged outcomes; enable or disable them", (*app).runPolicy},
		{"bench", "generate synthetic catalogs for benchmarks: skillroute bench gen", (*app).runBench},
	}
}

// errUsage marks an error already explained by a usage message.
var errUsage = errors.New("usage")

func main() {
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		// One event, a few megabytes at most, then exit: collecting
		// garbage would only cost time (measured: about 0.5 ms of a 6 ms
		// call). Here, not in runHook: a process that runs the hook and
		// then more (the tests) must keep its collector, or it grows
		// without bound (the command tests reached 4 GiB, 24 GiB under
		// -race).
		debug.SetGCPercent(-1)
		// The binary links package testing (kljensen/snowball imports
		// it), which keeps the runtime's allocation profile on: a sample
		// every 512 KB or so, each an unwind of the stack and, the first,
		// the profile's hash table mapped. Nothing reads a hook's profile.
		runtime.MemProfileRate = 0
	}
	os.Exit(run(appFromEnv(), os.Args[1:], os.Stdout, os.Stderr))
}

// run runs one command line and returns the exit code.
func run(a *app, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] != "hook" {
		// Skill names, descriptions, paths and file errors are printed as
		// read: escape what would drive the terminal (termsafe). The hook
		// prints JSON for Claude Code alone, byte for byte.
		out, errOut := termsafe.NewWriter(stdout), termsafe.NewWriter(stderr)
		defer out.Flush()
		defer errOut.Flush()
		stdout, stderr = out, errOut
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(a, args[1:], stdout, stderr)
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

// atMostArgs refuses positional arguments past the first n: a command
// that changes the state folder must not take a mistyped flag ("learn
// rollback", "calibrate minimize-cost") for nothing and do its default.
func atMostArgs(fs *flag.FlagSet, n int, stderr io.Writer) error {
	if fs.NArg() <= n {
		return nil
	}
	fmt.Fprintf(stderr, "unexpected argument %q\n", fs.Arg(n))
	fs.Usage()
	return errUsage
}
