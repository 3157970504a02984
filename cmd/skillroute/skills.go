package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/skills"
)

const skillsUsage = "skills list [--catalog P] | skills install [--dir DIR] [--force] [NAME...]"

func (a *app) runSkills(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "Usage: skillroute %s\n", skillsUsage)
		return errUsage
	}
	switch args[0] {
	case "list":
		return a.skillsList(args[1:], stdout, stderr)
	case "install":
		return a.skillsInstall(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintf(stderr, "Usage: skillroute %s\n", skillsUsage)
		return nil
	}
	fmt.Fprintf(stderr, "Usage: skillroute %s\n", skillsUsage)
	return errUsage
}

func (a *app) skillsList(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("skills list", "skills list [--catalog P]", stderr)
	var data dataFlags
	data.register(fs, false)
	if err := parse(fs, args); err != nil {
		return err
	}
	ix, err := loader.OpenIndex(a.config(&data, stderr))
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKEYWORDS\tSOURCE")
	for i := range ix.Skills.Len() {
		s := ix.Skills.Info(i)
		kw := fmt.Sprint(s.Keywords)
		if s.Derived {
			kw += " (derived)"
		}
		name := s.Name
		if len(s.Paths) > 0 {
			// Named only for a prompt naming a matching file (router).
			name += " (paths: " + strings.Join(s.Paths, ", ") + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, kw, s.Source)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d skills\n", ix.Skills.Len())
	return nil
}

func (a *app) skillsInstall(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("skills install", "skills install [--dir DIR] [--force] [NAME...]\n\nWrites the built-in skills named, or all of them, as DIR/NAME/SKILL.md.", stderr)
	home := a.places.Home
	dir := fs.String("dir", filepath.Join(home, ".claude", "skills"), "write DIR/NAME/SKILL.md here")
	force := fs.Bool("force", false, "overwrite skill files that differ from the built-in ones")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	results, err := skills.Install(*dir, *force, fs.Args()...)
	counts := map[string]int{}
	for _, r := range results {
		counts[r.Action]++
		if r.Action != "unchanged" {
			fmt.Fprintf(stdout, "%-32s %s\n", r.Action, r.Path)
		}
	}
	fmt.Fprintf(stdout, "%d written, %d overwritten, %d unchanged, %d skipped, %d failed in %s\n",
		counts["written"], counts["overwritten"], counts["unchanged"], counts["skipped (differs; use --force)"], counts["failed"], *dir)
	if len(results) == 0 {
		return err // an unknown name: nothing written
	}
	if cerr := a.precompile(stdout, stderr); cerr != nil {
		fmt.Fprintf(stderr, "warning: index not compiled yet: %v\n", cerr)
	}
	return err // a skill not written, named; the others are installed
}
