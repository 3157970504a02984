package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofrs/flock"
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
	// Deadline bounds the call from when the event is read (Deadline
	// when zero).
	Deadline time.Duration
	// EventWait bounds the wait for the event (EventWait when zero).
	EventWait time.Duration
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
//
// The deadline runs from when the event is read, not from the start of
// the process: Claude Code writes the event as it starts the hook, but
// when its own work holds it up, the event comes late. In one CI run its
// synchronous write of ~/.claude.json held it for 400 ms, and a clock
// started with the process spent the whole deadline waiting for the
// event; the prompt went unrouted. That wait is Claude Code's, and the
// user waits for it either way.
func (rt *Runtime) Run(stdin io.Reader, stdout io.Writer) {
	deadline, wait := rt.Deadline, rt.EventWait
	if deadline == 0 {
		deadline = Deadline
	}
	if wait == 0 {
		wait = EventWait
	}
	start := time.Now()
	// A prompt's line is handed over as soon as it is made, before the
	// handler writes the state: a write held up past the deadline (a lock
	// that another hook of the session or a command holds) costs the
	// write, not the line (TestRuntimePrintsRouteWhenStateLocked).
	early := make(chan []byte, 1)

	// read is closed once the event is read, or its read failed or
	// panicked: then the deadline starts.
	read := make(chan struct{})
	var readOnce sync.Once
	signal := func() { readOnce.Do(func() { close(read) }) }
	done := make(chan Result, 1)
	var input atomic.Pointer[[]byte] // the event, once read: for the log line
	go func() {
		defer signal() // last, once done has the result
		growStack(-1)
		defer func() {
			if p := recover(); p != nil {
				if rt.Reset != nil {
					rt.Reset()
				}
				done <- Result{Reason: fmt.Sprintf("panic: %v (cache cleared)\n%s", p, debug.Stack())}
			}
		}()
		data, err := io.ReadAll(io.LimitReader(stdin, MaxEvent))
		if err != nil {
			done <- Result{Reason: "read stdin: " + err.Error()}
			return
		}
		input.Store(&data)
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		signal()
		done <- rt.Handler.handleInput(ctx, data, func(out []byte) { early <- out })
	}()
	var res Result
	var waited time.Duration
	select {
	case <-read:
		waited = time.Since(start)
		res = rt.await(done, early, deadline)
	case <-time.After(wait):
		res = Result{Reason: fmt.Sprintf("no event on stdin within %v", wait)}
	}
	if waited >= slowEvent {
		res.Reason = strings.TrimPrefix(res.Reason+fmt.Sprintf("; "+lateEventMark+"%.1f ms", float64(waited.Microseconds())/1000), "; ")
	}
	if res.Output != nil {
		stdout.Write(append(res.Output, '\n'))
	}
	if res.Reason != "" {
		logCtx, cancelLog := context.WithTimeout(context.Background(), 20*time.Millisecond)
		var about logged
		if res.about != nil {
			about = *res.about
		} else if data := input.Load(); data != nil {
			about = aboutEvent(*data) // past the deadline: the handler may not have parsed it yet
		}
		rt.Handler.Store.Log(logCtx, time.Now(), "hook", fmt.Sprintf("%s (%.1f ms)", res.Reason, float64(time.Since(start).Microseconds())/1000),
			"hook_event", about.HookEventName, "session", about.SessionID, "prompt_id", about.PromptID, "tool_use_id", about.ToolUseID)
		cancelLog()
	}
}

// await waits up to the deadline for the handler's result, once the
// event is read. Past it, the line is printed if it was made (the state
// write was what held the handler up); if not, and the index was not
// compiled, the compile goes to the background.
func (rt *Runtime) await(done <-chan Result, early <-chan []byte, deadline time.Duration) Result {
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case res := <-done:
		if rt.Warnings != nil && rt.Warnings.Len() > 0 { // written by the handler, which is done
			res.Reason = strings.TrimSpace(rt.Warnings.String() + "\n" + res.Reason)
		}
		return res
	case <-timer.C:
	}
	res := Result{Reason: fmt.Sprintf(deadlineMark+"%v passed", deadline)}
	select {
	case res.Output = <-early:
		res.Reason += " while the state was written: the line was printed, the state may lack this prompt"
	default:
	}
	if res.Output == nil && rt.Compiled != nil && rt.Compile != nil && !rt.Compiled() {
		if err := rt.Compile(); err != nil {
			res.Reason += "; background compile: " + err.Error()
		} else {
			res.Reason += "; compiling the index in the background"
		}
	}
	return res
}

// slowEvent is how late an event must come for hook.log to say so: the
// event is written as the process starts, within a millisecond or two.
const slowEvent = 50 * time.Millisecond

// stackReserve is the stack the handler's goroutine takes at once.
const stackReserve = 64 << 10

// recovered runs f and returns its value, or, if f panics, onPanic's
// of the panic: the side work of a prompt (the action layer's reading,
// the logs) never costs its line.
//
// It runs on the handler's goroutine. A goroutine of its own for each
// (the action layer read while the router loaded, the logs written while
// the session was) cost a hook process page faults and processor time
// more than the overlap saved: each processor that allocates takes fresh
// spans of its own: `perf stat -e page-faults` of a prompt event at 50
// skills, 40 by turns, median: 511 with both goroutines, 504.5 with the
// logs here, 489.5 with both here (BENCHMARKS.md, session 11).
func recovered[T any](f func() T, onPanic func(p any) T) (v T) {
	defer func() {
		if p := recover(); p != nil {
			v = onPanic(p)
		}
	}()
	return f()
}

// growStack grows the calling goroutine's stack in one step, while it is
// shallow: the handler's expression compiles and JSON reflection otherwise
// grow it step by step from 2 KB, each step copying a deeper stack
// (runtime.newstack was 4.3 % of a hook process; perf record of 200
// prompt events). With the collector off it is never shrunk back.
//
// Called with i < 0 it reserves its frame and writes none of it: the
// function's prologue alone makes the runtime move the goroutine to a
// stack the frame fits in, which copies only the used part, and the
// kernel maps the new stack's pages as deeper calls reach them. Written
// (zeroed, as Go declares the array) the reserve cost a hook process 16
// page faults whatever depth the handler reached (perf record -e
// page-faults -d of 20 prompt events at 50 skills: 320 faults in
// growStack); TestGrowStackTouchesNoPage holds it.
//
//go:noinline
func growStack(i int) byte {
	if i < 0 {
		return 0
	}
	var pad [stackReserve]byte
	pad[i] = 1
	return pad[stackReserve-1-i]
}

// logged is what a hook.log line says of the event it is about, so that
// a silent prompt can be found again: which event, which session, which
// prompt or tool call. Never the prompt's text.
type logged struct {
	HookEventName string `json:"hook_event_name"`
	SessionID     string `json:"session_id"`
	PromptID      string `json:"prompt_id"`
	ToolUseID     string `json:"tool_use_id"`
}

// maxLoggedEvent bounds the event aboutEvent parses again: a larger one
// (a pasted file) would cost the log line more than it is worth.
const maxLoggedEvent = 1 << 20

// aboutEvent reads the logged fields of an event, bounded as the hook
// bounds them (Event.bound).
func aboutEvent(data []byte) logged {
	var l logged
	if len(data) > maxLoggedEvent || json.Unmarshal(data, &l) != nil {
		return logged{}
	}
	ev := Event{SessionID: l.SessionID, PromptID: l.PromptID, HookEventName: l.HookEventName, ToolUseID: l.ToolUseID}
	ev.bound()
	l.SessionID, l.PromptID, l.HookEventName, l.ToolUseID = ev.SessionID, ev.PromptID, ev.HookEventName, ev.ToolUseID
	return l
}

// CompileLock is the lock file, in the cache folder, that a background
// compile holds while it runs: a second one finds it taken and does not
// start, and a killed one leaves no lock behind (the kernel drops it).
const CompileLock = "compile.lock"

// CompileInBackground starts `BINARY compile --catalog installed
// --background` as a detached process that outlives this
// one, unless one is running already. The child checks every skill file,
// compiles only if one changed, and records its progress in the cache
// folder (see the compile command and doctor).
func CompileInBackground(binary, cacheDir string) error {
	if binary == "" {
		return errors.New("no binary to run")
	}
	if strings.HasSuffix(binary, ".test") {
		return errors.New("not from a test binary") // it would run the tests
	}
	if err := os.MkdirAll(cacheDir, 0o700); err != nil {
		return err
	}
	lk := flock.New(filepath.Join(cacheDir, CompileLock))
	ok, err := lk.TryLock()
	if err != nil {
		return err
	}
	if !ok {
		return nil // one is running
	}
	lk.Unlock() // the child takes it; two racing children: one gives way
	cmd := exec.Command(binary, "compile", "--catalog", "installed", "--background")
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil { // not waited for: it runs on after the hook exits
		return err
	}
	return cmd.Process.Release()
}
