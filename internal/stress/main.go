// Command stress attacks a real skillroute binary the way issue 12 did,
// in a sandbox home of its own, and checks that nothing gets in and no
// record is lost:
//
//   - concurrency: 16 parallel hook processes × 100 mixed events each
//     (prompts, Skill tool uses, typed commands, session starts, malformed
//     input), with `correct` and `learn` running beside them, and both
//     logs made to rotate during the run. Every decision and every verdict
//     must be recorded, or its absence said in hook.log (a hook that ran
//     out of its 200 ms); none torn.
//   - kill -9: every writer (hooks, correct, learn, install, uninstall)
//     killed at a random point, round after round; after each round every
//     state file and settings.json must be valid and complete, and the
//     next hook must route and record.
//   - a hostile catalog: skill files that are a symlink to /dev/zero, a
//     FIFO, a 100 MB body, billion-laughs YAML, "../" names and link
//     loops, and project markers that are a FIFO and a device. The hook
//     must answer within 250 ms and the compile stay under 200 MiB.
//   - 2,000 random corruptions of each cache file (index, rules), all
//     detected.
//
// It prints a table of what was sent, recorded and lost, and exits 1 if
// any bound is broken. From the repository root:
//
//	go run ./internal/stress          # the long form: 500 kill rounds, about two minutes
//	go run ./internal/stress -short   # CI's form: 25 kill rounds, about half a minute
//
// The machine's load matters: on a loaded machine a hook may run out of
// its 200 ms and stay silent (logged, never lost); the table counts them.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// options are the command line's.
type options struct {
	short       bool
	workers     int
	events      int
	rounds      int
	corruptions int
	bin         string
	keep        bool
}

func main() {
	var o options
	flag.BoolVar(&o.short, "short", false, "CI's short form: fewer kill rounds")
	flag.IntVar(&o.workers, "workers", 16, "parallel hook processes")
	flag.IntVar(&o.events, "events", 100, "events each hook worker sends")
	flag.IntVar(&o.rounds, "rounds", 0, "kill -9 rounds (default 500, 25 with -short)")
	flag.IntVar(&o.corruptions, "corruptions", 2000, "random corruptions of each cache file")
	flag.StringVar(&o.bin, "bin", "", "the skillroute binary to attack (default: build ./cmd/skillroute)")
	flag.BoolVar(&o.keep, "keep", false, "keep the sandbox folder for inspection")
	flag.Parse()
	if o.rounds == 0 {
		o.rounds = 500
		if o.short {
			o.rounds = 25
		}
	}
	os.Exit(run(o))
}

// report collects the table's rows and the bounds that broke.
type report struct {
	rows     [][]string
	failures []string
}

func (r *report) row(cells ...string) { r.rows = append(r.rows, cells) }

func (r *report) fail(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func run(o options) int {
	start := time.Now()
	root, err := os.MkdirTemp("", "skillroute-stress-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "stress:", err)
		return 1
	}
	if o.keep {
		fmt.Printf("sandbox: %s\n", root)
	} else {
		defer os.RemoveAll(root)
	}
	bin := o.bin
	if bin == "" {
		if bin, err = build(root); err != nil {
			fmt.Fprintln(os.Stderr, "stress: build:", err)
			return 1
		}
	}
	var rep report
	sb, err := newSandbox(root, "main", bin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stress: sandbox:", err)
		return 1
	}
	defer sb.waitBackground()
	rep.row("part", "sent", "recorded", "silent, logged", "lost", "torn", "note")
	concurrency(sb, o, &rep)
	killRounds(root, bin, o, &rep)
	hostile(root, bin, &rep)
	corruptions(sb, o, &rep)

	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	for _, r := range rep.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\n%d workers × %d events, %d kill rounds, %d corruptions per cache; %v; load average %s\n",
		o.workers, o.events, o.rounds, o.corruptions, time.Since(start).Round(time.Second), strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " "))
	if len(rep.failures) > 0 {
		for _, f := range rep.failures {
			fmt.Println("FAIL", f)
		}
		return 1
	}
	fmt.Println("0 lost, 0 torn, every bound held")
	return 0
}

// build compiles skillroute into dir.
func build(dir string) (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run from inside the skillroute module")
	}
	bin := filepath.Join(dir, "skillroute")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/skillroute")
	cmd.Dir = filepath.Dir(mod)
	cmd.Stderr = os.Stderr
	return bin, cmd.Run()
}
