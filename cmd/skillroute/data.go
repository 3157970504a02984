package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/prefs"
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
	// cwd is the working folder: project memories apply inside their
	// project, and `remember --scope project` stores one for it.
	cwd string
	// listingBudget is $SLASH_COMMAND_TOOL_CHAR_BUDGET, Claude Code's
	// override of its skill-listing budget, for doctor.
	listingBudget string
	// lookGo finds the go command, which the plugin builds its router
	// with (exec.LookPath, on $PATH), for doctor.
	lookGo func() (string, error)
	// settings are the user's settings for skillroute (prefs), read from
	// settingsDir (the state folder) once, by userSettings.
	settings    *prefs.Settings
	settingsErr error
	settingsDir string
}

// userSettings returns the user's settings for skillroute, read once from
// settings.yaml in the state folder (again if a command moved the folder,
// as correct --state does). A file that cannot be read keeps prompts out
// of every file (prefs.Load) and its error is returned with the settings,
// for the caller to report.
func (a *app) userSettings() (prefs.Settings, error) {
	if a.settings == nil || a.settingsDir != a.stateDir {
		s, err := prefs.Load(a.stateDir)
		a.settings, a.settingsErr, a.settingsDir = &s, err, a.stateDir
	}
	return *a.settings, a.settingsErr
}

// appFromEnv resolves the app from the process environment.
func appFromEnv() *app {
	home, _ := os.UserHomeDir()
	bin, _ := os.Executable()
	cwd, _ := os.Getwd()
	return &app{
		cwd:           cwd,
		stateDir:      store.DefaultDir(os.Getenv, home),
		places:        skills.Places{Home: home, ProjectDir: os.Getenv("CLAUDE_PROJECT_DIR"), PluginRoot: os.Getenv("CLAUDE_PLUGIN_ROOT")},
		binary:        bin,
		session:       os.Getenv("CLAUDE_CODE_SESSION_ID"),
		stdin:         os.Stdin,
		listingBudget: os.Getenv("SLASH_COMMAND_TOOL_CHAR_BUDGET"),
		lookGo:        func() (string, error) { return exec.LookPath("go") },
	}
}

// withState returns the app with its state in dir, as a --state flag
// asks, or a itself when dir is empty. A plugin command's shell gets no
// CLAUDE_PLUGIN_DATA (only the command's text has it substituted), so its
// commands name the folder. The folder must exist: a misspelt one
// would be made and recorded into, where nothing reads.
func (a *app) withState(dir string) (*app, error) {
	if dir == "" {
		return a, nil
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("--state %s: no such state folder (the folder skillroute keeps its state in; default: $CLAUDE_PLUGIN_DATA, else $SKILLROUTE_HOME, else ~/.claude/skillroute)", dir)
	}
	named := *a
	named.stateDir = dir
	return &named, nil
}

// cacheDir is where compiled indexes and rules are kept.
func (a *app) cacheDir() string { return filepath.Join(a.stateDir, "cache") }

// dataFlags are the flags that choose the router's data.
type dataFlags struct {
	catalog, rules, synonyms, glossary string
	derive                             bool
}

func (d *dataFlags) register(fs *flag.FlagSet, withRules bool) {
	fs.StringVar(&d.catalog, "catalog", "", "skills folder (DIR/NAME/SKILL.md), bookworm skills-index.json, \"builtin\", or \"installed\" (what Claude Code loads; default: the built-in skills merged with yours)")
	fs.StringVar(&d.synonyms, "synonyms", "", "synonym file, our YAML or bookworm synonyms.json (default: built-in)")
	fs.StringVar(&d.glossary, "glossary", "", "bilingual glossary, in the format of rules/glossary.yaml, or \"none\" (default: built-in)")
	if withRules {
		fs.StringVar(&d.rules, "rules", "", "disambiguation rules, our YAML or bookworm JSON (default: built-in)")
	}
}

// config is the loader's configuration for the data flags.
func (a *app) config(d *dataFlags, stderr io.Writer) loader.Config {
	return loader.Config{
		Catalog: d.catalog, Rules: d.rules, Synonyms: d.synonyms, Glossary: d.glossary, DeriveKeywords: d.derive,
		Places: a.places, Binary: a.binary, CacheDir: a.cacheDir(), StateDir: a.stateDir, Warn: stderr,
		CheckFiles: true, // a skill file edited in place is seen at once (the hook turns it off)
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
