package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/gofrs/flock"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/store"
)

// backgroundMemory caps a background compile's heap (a soft limit: the
// collector works harder near it). At 10,000 skills a compile peaked at
// 1.0 GiB before it was streamed; the cap keeps a runaway catalog from
// taking the user's machine down with it.
const backgroundMemory = 1536 << 20

// compileStatus is what a background compile records of itself in the
// cache folder (compile.json), for doctor and hook.log.
type compileStatus struct {
	PID      int       `json:"pid"`
	State    string    `json:"state"` // compiling, compiled, current, failed
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitzero"`
	Skills   int       `json:"skills,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// statusFile is where compileStatus is kept.
const statusFile = "compile.json"

func (a *app) runCompile(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("compile", "compile [--catalog P] [--synonyms P] [-o FILE] [--background] [--full]", stderr)
	var data dataFlags
	data.register(fs, false)
	out := fs.String("o", "", "write the index here (default: the cache in the state folder, where route and hook look, with the rules compiled beside it)")
	background := fs.Bool("background", false, "the hook's background compile: one at a time, its heap capped, its progress in the cache folder")
	full := fs.Bool("full", false, "read and hash every skill file, trusting none unchanged by its size and time, and compile even when the cached index is current")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg := a.config(&data, stderr)
	cfg.ReadAll = *full
	cfg.MustCache = true
	if *out != "" {
		cfg.CacheDir = ""
	}
	if *background && cfg.CacheDir != "" {
		if err := os.MkdirAll(cfg.CacheDir, 0o700); err != nil {
			return err
		}
		lk := flock.New(filepath.Join(cfg.CacheDir, hook.CompileLock))
		ok, err := lk.TryLock()
		if err != nil || !ok {
			return err // another compile holds it: it does this work
		}
		defer lk.Unlock()
		debug.SetMemoryLimit(backgroundMemory)
		lowerPriority()
		status := compileStatus{PID: os.Getpid(), State: "compiling", Started: time.Now()}
		a.writeStatus(cfg.CacheDir, status)
		ix, compiled, err := a.compile(cfg, *out)
		status.Finished = time.Now()
		switch {
		case err != nil:
			status.State, status.Error = "failed", err.Error()
		case compiled:
			status.State, status.Skills = "compiled", ix.Skills.Len()
		default:
			status.State, status.Skills = "current", ix.Skills.Len()
		}
		a.writeStatus(cfg.CacheDir, status)
		if err == nil {
			a.warmActions(stderr) // the hook's memories and tools, compiled off its clock too
		}
		return err
	}
	ix, compiled, err := a.compile(cfg, *out)
	if err != nil {
		return err
	}
	where := *out
	if where == "" {
		where = cfg.CacheDir
		a.warmActions(stderr)
	}
	verb := "compiled"
	if !compiled {
		verb = "up to date:"
	}
	fmt.Fprintf(stdout, "%s %d skills, %d terms, %d postings, %d segmentation words, %d glossary words -> %s (source %s)\n",
		verb, ix.Skills.Len(), ix.Terms.Len(), len(ix.PostSkill), ix.Dict.Len(), ix.Glossary.Len(), where, ix.SourceHash[:12])
	return nil
}

// compile compiles the index unless the cached one is current (every
// skill file checked against the stamp in its head) and cfg asks for no
// full check (ReadAll), writes it to out when given, and the rules cache
// beside a cached index: the hook loads both, and with only the index
// cached the rules would be parsed on the prompt's clock again.
func (a *app) compile(cfg loader.Config, out string) (ix *index.Index, compiled bool, err error) {
	// Whether the cached index is current is read off its file's head:
	// a catalog that changed is compiled without loading the old index
	// (at 100,000 skills that put a recompile's peak memory above a cold
	// compile's), and from the stamps taken here.
	st, err := loader.TakeStamps(cfg)
	if err != nil {
		return nil, false, err
	}
	if !cfg.ReadAll && loader.Current(cfg, st) {
		ix, _ = loader.OpenIndex(cfg) // compiles it again if the file is damaged
	}
	if ix == nil {
		if ix, err = loader.CompileStamped(cfg, st); err != nil {
			return nil, false, err
		}
		compiled = true
	}
	if out != "" {
		return ix, compiled, ix.Save(out)
	}
	if cfg.CacheDir != "" {
		builtin := cfg
		builtin.Rules = ""
		_, err = loader.LoadRules(builtin, ix)
	}
	return ix, compiled, err
}

// statusCodec frames compile.json; a status is worth no fsync.
var statusCodec = store.Codec{Kind: "compile-status", Version: 1, NoSync: true}

func (a *app) writeStatus(cacheDir string, s compileStatus) {
	_ = statusCodec.Write(filepath.Join(cacheDir, statusFile), s)
}

// readStatus reads the last background compile's status, if any.
func readStatus(cacheDir string) (compileStatus, bool) {
	var s compileStatus
	return s, statusCodec.Read(filepath.Join(cacheDir, statusFile), &s) == nil
}
