package hook

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
)

// MaxEvent bounds what is read from stdin. The router reads only the first
// 4,000 characters of a prompt, but the event must be whole to parse: 16
// MiB takes any prompt a person pastes; a larger event is not routed.
const MaxEvent = 16 << 20

// Runtime runs one hook call as Claude Code needs it: whatever the handler
// does (panics, hangs on a lock, compiles a changed catalog for longer than
// the user should wait) the call prints at most one line, logs why it was
// silent, and returns by the deadline.
type Runtime struct {
	Handler *Handler
	// Deadline bounds the call (Deadline when zero).
	Deadline time.Duration
	// Warnings collects what the router's loader warned about (a damaged
	// weights file, say), for hook.log. May be nil.
	Warnings *strings.Builder
	// Compiled reports whether the index is compiled and current. When the
	// deadline passes and it is not, the compile was the slow part:
	// Compile then finishes it in the background, so that the next prompt
	// finds it cached rather than start over every time. Either may be nil.
	Compiled func() bool
	Compile  func() error
	// Reset drops what a panic may have come from (the cached index and
	// rules), so that the next call rebuilds it. May be nil.
	Reset func()
}

// Run handles the event on stdin and prints the result on stdout.
func (rt *Runtime) Run(stdin io.Reader, stdout io.Writer) {
	deadline := rt.Deadline
	if deadline == 0 {
		deadline = Deadline
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()

	done := make(chan Result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				if rt.Reset != nil {
					rt.Reset()
				}
				done <- Result{Reason: fmt.Sprintf("panic: %v (cache cleared)\n%s", p, debug.Stack())}
			}
		}()
		input, err := io.ReadAll(io.LimitReader(stdin, MaxEvent))
		if err != nil {
			done <- Result{Reason: "read stdin: " + err.Error()}
			return
		}
		done <- rt.Handler.Handle(ctx, input)
	}()
	var res Result
	select {
	case res = <-done:
		if rt.Warnings != nil && rt.Warnings.Len() > 0 { // written by the handler, which is done
			res.Reason = strings.TrimSpace(rt.Warnings.String() + "\n" + res.Reason)
		}
	case <-ctx.Done():
		res = Result{Reason: fmt.Sprintf("deadline of %v passed", deadline)}
		if rt.Compiled != nil && rt.Compile != nil && !rt.Compiled() {
			if err := rt.Compile(); err != nil {
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
		rt.Handler.Store.Log(logCtx, time.Now(), "hook", fmt.Sprintf("%s (%.1f ms)", res.Reason, float64(time.Since(start).Microseconds())/1000))
		cancelLog()
	}
}

// CompileInBackground starts `BINARY compile --catalog installed` as a
// detached process that outlives this one. A lock file in the cache
// folder keeps it to one at a time.
func CompileInBackground(binary, cacheDir string) error {
	if binary == "" {
		return errors.New("no binary to run")
	}
	if strings.HasSuffix(binary, ".test") {
		return errors.New("not from a test binary") // it would run the tests
	}
	lock := filepath.Join(cacheDir, ".compiling")
	if info, err := os.Stat(lock); err == nil && time.Since(info.ModTime()) < time.Minute {
		return nil // one is running
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		return err
	}
	cmd := exec.Command(binary, "compile", "--catalog", "installed", "--done", lock)
	cmd.SysProcAttr = detached()
	return cmd.Start() // not waited for: it runs on after the hook exits
}
