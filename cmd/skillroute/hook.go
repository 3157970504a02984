package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/store"
)

// hookDeadline is hook.Deadline; tests under the race detector raise it.
var hookDeadline = hook.Deadline

// maxEvent bounds what is read from stdin. The router reads only the first
// 4,000 characters of a prompt, but the event must be whole to parse: 16
// MiB takes any prompt a person pastes; a larger event is not routed.
const maxEvent = 16 << 20

// runHook handles one Claude Code hook event. Whatever happens it returns
// nil (exit 0): a hook must never block or break the user's prompt.
func runHook(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintf(stderr, "Usage: skillroute hook < EVENT.json\n\nReads one Claude Code hook event (UserPromptSubmit, PostToolUse of Skill,\nUserPromptExpansion, SessionStart) on stdin; prints additionalContext JSON\nwhen a skill is recommended, else nothing. Always exits 0.\n")
		return nil
	}
	// One event, a few megabytes at most, then exit: collecting garbage
	// would only cost time (measured: about 0.5 ms of a 6 ms call).
	debug.SetGCPercent(-1)
	return hookMain(os.Stdin, stdout, router.Options{Catalog: router.Installed})
}

func hookMain(stdin io.Reader, stdout io.Writer, opt router.Options) error {
	dir := stateDir()
	opt.CacheDir = cacheDirIn(dir)
	opt.LearnDir = dir
	store := &hook.Store{Dir: dir}
	var warnings strings.Builder // a damaged weights file, say: for hook.log
	opt.Warn = &warnings
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), hookDeadline)
	defer cancel()

	done := make(chan hook.Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				// A damaged cache is the likeliest cause: drop it so the
				// next prompt rebuilds it, and keep the stack for a report.
				os.RemoveAll(opt.CacheDir)
				done <- hook.Result{Reason: fmt.Sprintf("panic: %v (cache cleared)\n%s", p, debug.Stack())}
			}
		}()
		input, err := io.ReadAll(io.LimitReader(stdin, maxEvent))
		if err != nil {
			done <- hook.Result{Reason: "read stdin: " + err.Error()}
			return
		}
		h := &hook.Handler{Store: store, Open: func() (*router.Router, error) { return router.Open(opt) }}
		done <- h.Handle(ctx, input)
	}()
	var res hook.Result
	select {
	case res = <-done:
		if warnings.Len() > 0 { // written by the handler, which is done
			res.Reason = strings.TrimSpace(warnings.String() + "\n" + res.Reason)
		}
	case <-ctx.Done():
		res = hook.Result{Reason: fmt.Sprintf("deadline of %v passed", hookDeadline)}
		// If the index was being compiled (a new or changed catalog),
		// finish that in the background, so that the next prompt finds it
		// cached rather than start over every time.
		if !router.Cached(opt) {
			if err := compileInBackground(dir); err != nil {
				res.Reason += "; background compile: " + err.Error()
			} else {
				res.Reason += "; compiling the index in the background"
			}
		}
	}
	if res.Output != nil && ctx.Err() == nil {
		stdout.Write(append(res.Output, '\n'))
	}
	if res.Reason != "" {
		logCtx, cancelLog := context.WithTimeout(context.Background(), 20*time.Millisecond)
		store.Log(logCtx, time.Now(), "hook", fmt.Sprintf("%s (%.1f ms)", res.Reason, float64(time.Since(start).Microseconds())/1000))
		cancelLog()
	}
	return nil
}

// compileInBackground starts `skillroute compile --catalog installed` as a
// detached process that outlives this one. A marker file (store.Claim)
// keeps it to one at a time; one a minute old is a dead compile's.
func compileInBackground(stateDir string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if strings.HasSuffix(exe, ".test") {
		return errors.New("not from a test binary") // it would run the tests
	}
	lock := filepath.Join(stateDir, "cache", ".compiling")
	if mine, err := store.Claim(lock, time.Minute); err != nil || !mine {
		return err // nil when one is running
	}
	cmd := exec.Command(exe, "compile", "--catalog", router.Installed, "--done", lock)
	cmd.SysProcAttr = detached()
	return cmd.Start() // not waited for: it runs on after the hook exits
}
