package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
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
	a.hookRuntime(0).Run(a.stdin, stdout)
	return nil
}

// hookRuntime wires the hook to the installed catalog, the state folder
// and background compiles by this binary. deadline 0 is hook.Deadline.
//
// Past its deadline the runtime must not look at the catalog (at 100,000
// skills that alone took 0.7 s): the loader says when it starts a
// compile, and only then does the runtime hand the compile to the
// background. When the catalog's folders changed, the loader routes with
// the last index meanwhile and the compile starts at once.
func (a *app) hookRuntime(deadline time.Duration) *hook.Runtime {
	cfg := a.config(&dataFlags{catalog: loader.Installed}, nil)
	cfg.CheckFiles = false // one stat per named skill, and all at session start (loader.Changed, Fresh)
	var warnings strings.Builder
	cfg.Warn = &warnings
	settings, err := a.userSettings()
	if err != nil {
		fmt.Fprintf(&warnings, "settings: %v\n", err)
	}
	background := func() error { return hook.CompileInBackground(a.binary, cfg.CacheDir) }
	var compiling atomic.Bool
	cfg.OnCompile = func() { compiling.Store(true) }
	cfg.OnStale = func() {
		if err := background(); err != nil {
			fmt.Fprintf(&warnings, "background compile: %v\n", err)
		} else {
			warnings.WriteString("skill folders or settings changed: routing with the last index while it compiles in the background\n")
		}
	}
	return &hook.Runtime{
		Handler: &hook.Handler{
			Store:     &hook.Store{Dir: a.stateDir, HashPrompts: !settings.LogPrompts},
			Open:      func() (*router.Router, error) { return loader.Open(cfg) },
			Actions:   func(string) (*action.Layer, error) { return a.actionLayer(actionFlags{}) },
			Home:      a.places.Home,
			Changed:   func(r *router.Router, names ...string) []string { return loader.Changed(r.Index, names...) },
			Recompile: background,
		},
		Deadline: deadline,
		Warnings: &warnings,
		// The action layer's memories and tools are compiled on the
		// prompt's clock when their cache is missing: the background
		// compile warms them too (runCompile).
		Compiled: func() bool { return !compiling.Load() && a.actionCached() },
		Compile:  background,
		Reset:    func() { os.RemoveAll(cfg.CacheDir) },
	}
}
