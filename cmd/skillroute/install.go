package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/skills"
)

// settingsScope returns the settings file and skills folder to edit.
func (a *app) settingsScope(project bool) (settings, skillDir string, err error) {
	if project {
		dir := a.places.ProjectDir
		if dir == "" {
			if dir, err = os.Getwd(); err != nil {
				return "", "", err
			}
		}
		return filepath.Join(dir, ".claude", "settings.json"), filepath.Join(dir, ".claude", "skills"), nil
	}
	home := a.places.Home
	if home == "" {
		return "", "", fmt.Errorf("no home folder; use --project")
	}
	return filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".claude", "skills"), nil
}

func (a *app) runInstall(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("install", "install [--project] [--dry-run] [--no-skills]", stderr)
	project := fs.Bool("project", false, "edit the project's .claude/settings.json instead of ~/.claude/settings.json")
	dryRun := fs.Bool("dry-run", false, "say what would change, write nothing")
	noSkills := fs.Bool("no-skills", false, "do not install the built-in skills (the hook then recommends only skills you have)")
	binary := fs.String("binary", "", "path of the skillroute binary the hook runs (default: this one)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := atMostArgs(fs, 0, stderr); err != nil { // "install dry-run" wrote the settings
		return err
	}
	settings, skillDir, err := a.settingsScope(*project)
	if err != nil {
		return err
	}
	bin := *binary
	if bin == "" {
		if bin = a.binary; bin == "" {
			return fmt.Errorf("cannot tell where this binary is; pass --binary PATH")
		}
		if resolved, err := filepath.EvalSymlinks(bin); err == nil {
			bin = resolved
		}
		if strings.Contains(bin, "go-build") {
			return fmt.Errorf("this binary is a temporary `go run` build; run `go install ./cmd/skillroute` and then `skillroute install`")
		}
	}
	changes, err := hook.Install(settings, bin, *dryRun)
	if err != nil {
		return err
	}
	printChanges(stdout, settings, changes, *dryRun)
	if plugin := pluginEnabledIn(a.places.SettingsFiles()); len(plugin) > 0 {
		fmt.Fprintf(stderr, "warning: the skillroute plugin is also enabled (%s): every prompt would run both and get two lines; disable the plugin or run `skillroute uninstall`\n",
			strings.Join(plugin, ", "))
	}
	if *noSkills {
		return nil
	}
	if *dryRun {
		fmt.Fprintf(stdout, "the built-in skills would be installed into %s\n", skillDir)
		return nil
	}
	results, err := skills.Install(skillDir, false)
	written, skipped := 0, 0
	for _, r := range results {
		switch {
		case r.Action == "written" || r.Action == "overwritten":
			written++
		case strings.HasPrefix(r.Action, "skipped"):
			skipped++
			fmt.Fprintf(stdout, "  kept your own %s\n", r.Path)
		case r.Action == "failed":
			fmt.Fprintf(stdout, "  could not write %s\n", r.Path)
		}
	}
	if len(results) == 0 {
		return err
	}
	fmt.Fprintf(stdout, "skills in %s: %d written, %d kept as you had them\n", skillDir, written, skipped)
	if *project && a.places.ProjectDir == "" {
		// Claude Code sets it for the hook; say where the skills are now.
		a.places.ProjectDir = filepath.Dir(filepath.Dir(skillDir))
	}
	if cerr := a.precompile(stdout, stderr); cerr != nil {
		// Installed all the same: the hook compiles on its first prompt.
		fmt.Fprintf(stderr, "warning: index not compiled yet: %v\n", cerr)
	}
	// A skill that could not be written fails the command, after the
	// others are installed and compiled: the hook works meanwhile.
	return err
}

// precompile builds the index of the skills Claude Code loads and the rules
// cache, so that the first prompt after an install does not pay for them.
func (a *app) precompile(stdout, stderr io.Writer) error {
	cfg := a.config(&dataFlags{catalog: loader.Installed}, stderr)
	cfg.MustCache = true
	r, err := loader.Open(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "index of %d skills and the rules compiled into %s\n", r.Index.Skills.Len(), a.cacheDir())
	return nil
}

func (a *app) runUninstall(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("uninstall", "uninstall [--project] [--dry-run]", stderr)
	project := fs.Bool("project", false, "edit the project's .claude/settings.json")
	dryRun := fs.Bool("dry-run", false, "say what would change, write nothing")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := atMostArgs(fs, 0, stderr); err != nil {
		return err
	}
	settings, _, err := a.settingsScope(*project)
	if err != nil {
		return err
	}
	changes, err := hook.Uninstall(settings, *dryRun)
	if err != nil {
		return err
	}
	if len(changes) == 0 {
		fmt.Fprintf(stdout, "no skillroute hooks in %s\n", settings)
		return nil
	}
	printChanges(stdout, settings, changes, *dryRun)
	if *dryRun {
		fmt.Fprintf(stdout, "installed skills would be left in place\n")
	} else {
		fmt.Fprintf(stdout, "installed skills were left in place; remove them from the skills folder if you wish\n")
	}
	return nil
}

// printChanges lists what install or uninstall did to the hooks of a
// settings file, or in a dry run would do.
func printChanges(w io.Writer, settings string, changes []hook.Change, dryRun bool) {
	if dryRun {
		fmt.Fprintf(w, "dry run: nothing is written. Hooks in %s:\n", settings)
	} else {
		fmt.Fprintf(w, "hooks in %s:\n", settings)
	}
	for _, c := range changes {
		fmt.Fprintf(w, "  %-20s %s\n", c.Event, changeWords(c.Action, dryRun))
	}
}

// changeWords words a change for the user: as done, or, in a dry run, as what
// would be done.
func changeWords(done string, dryRun bool) string {
	if !dryRun {
		return done
	}
	switch done {
	case "added", "updated", "removed":
		return "would be " + done
	}
	return done // "already present"
}
