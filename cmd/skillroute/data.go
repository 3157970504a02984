package main

import (
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
)

// app is what the command takes from its environment, resolved once by
// main and passed to every subcommand, so that nothing below reads an
// environment variable (tests build one of their own).
type app struct {
	// stateDir is where skillroute keeps its files: $CLAUDE_PLUGIN_DATA
	// when running as a plugin, else $SKILLROUTE_HOME, else
	// ~/.claude/skillroute.
	stateDir string
	// places are where Claude Code keeps skills: the home folder,
	// $CLAUDE_PROJECT_DIR and $CLAUDE_PLUGIN_ROOT.
	places skills.Places
	// binary is the running executable, part of the cache stamp and what
	// a background compile runs.
	binary string
	// session is $CLAUDE_CODE_SESSION_ID, set in a plugin command's shell.
	session string
	// stdin is what `hook` reads its event from.
	stdin io.Reader
	// listingBudget is $SLASH_COMMAND_TOOL_CHAR_BUDGET, Claude Code's
	// override of its skill-listing budget, for doctor.
	listingBudget string
	// lookGo finds the go command, which the plugin builds its router
	// with (exec.LookPath, on $PATH), for doctor.
	lookGo func() (string, error)
}

// appFromEnv resolves the app from the process environment.
func appFromEnv() *app {
	home, _ := os.UserHomeDir()
	bin, _ := os.Executable()
	return &app{
		stateDir:      store.DefaultDir(os.Getenv, home),
		places:        skills.Places{Home: home, ProjectDir: os.Getenv("CLAUDE_PROJECT_DIR"), PluginRoot: os.Getenv("CLAUDE_PLUGIN_ROOT")},
		binary:        bin,
		session:       os.Getenv("CLAUDE_CODE_SESSION_ID"),
		stdin:         os.Stdin,
		listingBudget: os.Getenv("SLASH_COMMAND_TOOL_CHAR_BUDGET"),
		lookGo:        func() (string, error) { return exec.LookPath("go") },
	}
}

// cacheDir is where compiled indexes and rules are kept.
func (a *app) cacheDir() string { return filepath.Join(a.stateDir, "cache") }

// dataFlags are the flags that choose the router's data.
type dataFlags struct {
	catalog, rules, synonyms string
	derive                   bool
}

func (d *dataFlags) register(fs *flag.FlagSet, withRules bool) {
	fs.StringVar(&d.catalog, "catalog", "", "skills folder (DIR/NAME/SKILL.md), bookworm skills-index.json, \"builtin\", or \"installed\" (what Claude Code loads; default: the built-in skills merged with yours)")
	fs.StringVar(&d.synonyms, "synonyms", "", "synonym file, our YAML or bookworm synonyms.json (default: built-in)")
	if withRules {
		fs.StringVar(&d.rules, "rules", "", "disambiguation rules, our YAML or bookworm JSON (default: built-in)")
	}
}

// config is the loader's configuration for the data flags.
func (a *app) config(d *dataFlags, stderr io.Writer) loader.Config {
	return loader.Config{
		Catalog: d.catalog, Rules: d.rules, Synonyms: d.synonyms, DeriveKeywords: d.derive,
		Places: a.places, Binary: a.binary, CacheDir: a.cacheDir(), StateDir: a.stateDir, Warn: stderr,
	}
}

// hookConfig is the configuration for the commands that must see the
// catalog the hook sees (correct, learn, calibrate): what they record and
// learn is keyed by skill names, and the hook routes the skills Claude
// Code loads. When nothing is installed, the default catalog stands in.
func (a *app) hookConfig(d *dataFlags, stderr io.Writer) loader.Config {
	cfg := a.config(d, stderr)
	if d.catalog == "" {
		cfg.Catalog = loader.Installed
		if _, err := loader.OpenIndex(cfg); err != nil {
			cfg.Catalog = ""
		}
	}
	return cfg
}
