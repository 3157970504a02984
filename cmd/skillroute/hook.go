package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

// runHook handles one Claude Code hook event. Whatever happens it returns
// nil (exit 0): a hook must never block or break the user's prompt.
func (a *app) runHook(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprintf(stderr, "Usage: skillroute hook < EVENT.json\n\nReads one Claude Code hook event (UserPromptSubmit, PostToolUse of Skill,\nUserPromptExpansion, SessionStart; PostToolUse and PostToolUseFailure of\nMCP tools attach to the turn's logged decision) on stdin; prints\nadditionalContext JSON when the action layer injects something (a skill,\nremembered facts, a tool hint, a question to ask), else nothing. Always\nexits 0.\n")
		return nil
	}
	// One event, a few megabytes at most, then exit: collecting garbage
	// would only cost time (measured: about 0.5 ms of a 6 ms call).
	debug.SetGCPercent(-1)
	a.hookRuntime(0).Run(a.stdin, stdout)
	return nil
}

// hookRuntime wires the hook to the installed catalog, the state folder
// and a background compile by this binary. deadline 0 is hook.Deadline.
func (a *app) hookRuntime(deadline time.Duration) *hook.Runtime {
	cfg := a.config(&dataFlags{catalog: loader.Installed}, nil)
	var warnings strings.Builder
	cfg.Warn = &warnings
	return &hook.Runtime{
		Handler: &hook.Handler{
			Store:   &hook.Store{Dir: a.stateDir},
			Open:    func() (*router.Router, error) { return loader.Open(cfg) },
			Actions: func(string) (*action.Layer, error) { return a.actionLayer(actionFlags{}) },
		},
		Deadline: deadline,
		Warnings: &warnings,
		Compiled: func() bool { return loader.Cached(cfg) && a.actionCached() },
		Compile:  func() error { return hook.CompileInBackground(a.binary, cfg.CacheDir) },
		Reset:    func() { os.RemoveAll(cfg.CacheDir) },
	}
}
