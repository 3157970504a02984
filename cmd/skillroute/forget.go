package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/store"
)

// Taking corrections back. The feedback log is the record of what users
// said; the prompt memory and the learned weights are made from it. So
// `correct --undo` and `forget --corrections` remove the records from the
// log (rewriting its files under its lock), the same events from the
// memory (by record identity, which needs no prompt text), and relearn the
// weights without them when the weights were learned from a log that held
// them (the weights replaced are snapshotted, as by `learn`).

// editWait bounds how long taking back waits for the hook's appends and
// writes, which take milliseconds.
const editWait = 10 * time.Second

// remember adds a just-recorded feedback record to the prompt memory of
// the state folder dir, with terms, the vector of its prompt. A memory
// file that is missing or unreadable is first rebuilt from the feedback
// log, which already holds rec.
func remember(ctx context.Context, dir string, r *router.Router, rec feedback.Record, terms memory.Vector) error {
	return memory.Update(ctx, dir, time.Now(), func(s *memory.Set, fresh bool) error {
		if fresh {
			if records, _, err := (&feedback.Log{Dir: dir}).Read(); err == nil {
				*s = *memory.Build(records, r.Index, s, time.Now())
			}
		}
		s.Add(terms, memory.EventOf(rec))
		return nil
	})
}

// takeBack removes the records drop selects from the feedback log of the
// state folder, their events from the prompt memory, and relearns the
// weights without them if they were learned from a log that held them.
// It returns the removed records and says what it did on stdout.
func (a *app) takeBack(drop func(feedback.Record) bool, data *dataFlags, stdout, stderr io.Writer) ([]feedback.Record, error) {
	ctx, cancel := context.WithTimeout(context.Background(), editWait)
	defer cancel()
	dir := a.stateDir
	log := &feedback.Log{Dir: dir}
	removed, err := log.Remove(ctx, drop)
	if err != nil || len(removed) == 0 {
		return removed, err
	}
	ids := map[uint64]bool{}
	for _, r := range removed {
		ids[memory.EventID(r)] = true
	}
	var ix *index.Index
	openIndex := func() (*index.Index, error) {
		if ix == nil {
			var err error
			if ix, err = loader.OpenIndex(a.hookConfig(data, stderr)); err != nil {
				return nil, err
			}
		}
		return ix, nil
	}
	now := time.Now()
	err = memory.Update(ctx, dir, now, func(s *memory.Set, fresh bool) error {
		if fresh && memory.Exists(dir) {
			// Unreadable: rebuilt from what the log keeps now.
			ix, err := openIndex()
			if err != nil {
				return err
			}
			records, _, err := log.Read()
			if err != nil {
				return err
			}
			*s = *memory.Build(records, ix, s, now)
		}
		s.Remove(func(ev memory.Event) bool { return ids[ev.ID] })
		return nil
	})
	if err != nil {
		return removed, err
	}
	w, err := learn.LoadWeights(filepath.Join(dir, learn.WeightsFile))
	if err != nil {
		return removed, nil // nothing learned (or nothing readable): nothing to relearn
	}
	if !slices.ContainsFunc(removed, func(r feedback.Record) bool { return !r.TS.After(w.Learned) }) {
		return removed, nil // learned before any of them was recorded
	}
	records, _, err := log.Read()
	if err != nil {
		return removed, err
	}
	if ix, err = openIndex(); err != nil {
		return removed, err
	}
	if err := learn.Replace(dir, learn.Learn(records, ix, now)); err != nil {
		return removed, err
	}
	fmt.Fprintf(stdout, "relearned the weights without them (the previous ones are kept: `skillroute learn --rollback`).\n")
	return removed, nil
}

// undoCorrection takes back the newest explicit record of the feedback
// log: the last correction the user made.
func (a *app) undoCorrection(data *dataFlags, stdout, stderr io.Writer) error {
	records, warnings, err := (&feedback.Log{Dir: a.stateDir}).Read()
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %v\n", w)
	}
	if err != nil {
		return err
	}
	last := -1
	for i, r := range records {
		if r.Kind == feedback.KindExplicit && (last < 0 || !r.TS.Before(records[last].TS)) {
			last = i
		}
	}
	if last < 0 {
		return errors.New("no correction to undo")
	}
	id := memory.EventID(records[last])
	removed, err := a.takeBack(func(r feedback.Record) bool { return memory.EventID(r) == id }, data, stdout, stderr)
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		return errors.New("no correction to undo (the log changed meanwhile)")
	}
	r := removed[0]
	fmt.Fprintf(stdout, "undone: %s is no longer corrected to %s.\n", promptOf(r), skillOrNone(r.Corrected))
	return nil
}

func (a *app) runForget(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("forget", "forget --corrections [SKILL] [--state DIR] | forget --all [--state DIR]", stderr)
	var data dataFlags
	data.register(fs, false)
	corrections := fs.Bool("corrections", false, "forget the corrections (of SKILL only, as the skill corrected to or from): from the feedback log, the prompt memory and the learned weights")
	all := fs.Bool("all", false, "delete everything skillroute keeps in the state folder: sessions, logs, feedback, weights and their snapshots, calibration, prompt memory, caches")
	stateFlag := fs.String("state", "", "the state folder (default: $CLAUDE_PLUGIN_DATA, else $SKILLROUTE_HOME, else ~/.claude/skillroute)")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	a, err := a.withState(*stateFlag)
	if err != nil {
		return err
	}
	switch {
	case *all && !*corrections && fs.NArg() == 0:
		return forgetAll(a.stateDir, stdout)
	case *corrections && !*all && fs.NArg() <= 1:
		skill := fs.Arg(0)
		if skill != "" {
			// The catalog's spelling when it has the skill; a skill since
			// removed is forgotten by the name it was recorded under.
			if ix, err := loader.OpenIndex(a.hookConfig(&data, stderr)); err == nil {
				if id := ix.Resolve(skill); id >= 0 {
					skill = ix.Skills.Name(id)
				}
			}
		}
		// A correction is what the user said (every `correct`, one naming
		// the skill the prompt already went to too) or what a session
		// showed against the route; confirmations the hook inferred stay.
		removed, err := a.takeBack(func(r feedback.Record) bool {
			return (r.IsCorrection() || r.Kind == feedback.KindExplicit) && (skill == "" || r.Corrected == skill || r.Routed == skill)
		}, &data, stdout, stderr)
		if err != nil {
			return err
		}
		of := ""
		if skill != "" {
			of = " involving " + skill
		}
		if len(removed) == 0 {
			fmt.Fprintf(stdout, "no corrections%s to forget.\n", of)
			return nil
		}
		fmt.Fprintf(stdout, "forgot %d correction%s%s: the feedback log and the prompt memory no longer hold %s.\n",
			len(removed), plural(len(removed)), of, map[bool]string{true: "it", false: "them"}[len(removed) == 1])
		return nil
	}
	fs.Usage()
	return errUsage
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// stateFolders are the folders skillroute makes in the state folder:
// session files, compiled caches, weight snapshots.
var stateFolders = []string{"sessions", "cache", "snapshots"}

// stateFiles are the files skillroute keeps in the state folder, with
// the logs' rotated files (NAME-N.EXT, and NAME.EXT.1 of older versions)
// found by stateFile.
var stateFiles = []string{
	"decisions.jsonl", "feedback.jsonl", "hook.log", "trajectories.jsonl", // logs
	"workflow.json", learn.WeightsFile, loader.CalibrationFile, memory.File, memory.JournalFile,
	"memories.jsonl", "policy.json", // the action layer's remembered facts and learned policy
}

// stateFile reports whether a name in the state folder is one of
// skillroute's own: a folder or file above, a rotated log, or the lock,
// checksum sidecar (.NAME.verified) or leftover temp file (.NAME.*.tmp)
// of one.
func stateFile(name string) bool {
	n := name
	if strings.HasPrefix(n, ".") {
		n = n[1:]
		switch {
		case strings.HasSuffix(n, ".verified"):
			n = strings.TrimSuffix(n, ".verified")
		case strings.HasSuffix(n, ".tmp"):
			i := strings.LastIndexByte(strings.TrimSuffix(n, ".tmp"), '.')
			if i < 0 {
				return false
			}
			n = n[:i]
		default:
			return false
		}
	}
	n = strings.TrimSuffix(n, ".lock")
	if slices.Contains(stateFolders, n) || slices.Contains(stateFiles, n) {
		return true
	}
	for _, f := range stateFiles {
		ext := filepath.Ext(f)
		stem := strings.TrimSuffix(f, ext)
		if n == f+".1" || strings.HasPrefix(n, stem+"-") && strings.HasSuffix(n, ext) {
			return true
		}
	}
	return false
}

// forgetAll deletes everything skillroute keeps in the state folder dir,
// and says what it removed and what it left: files it does not know (not
// its own, or the plugin's build of the binary, which is not data about
// the user) are left where they are.
func forgetAll(dir string, stdout io.Writer) error {
	err := store.CheckDir(dir)
	var entries []os.DirEntry
	if err == nil {
		entries, err = os.ReadDir(dir)
	}
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stdout, "nothing to remove: %s does not exist.\n", dir)
		return nil
	}
	if err != nil {
		return err
	}
	var removed, kept []string
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !stateFile(name) {
			kept = append(kept, name)
			continue
		}
		// RemoveAll removes a symlink, never what it points to.
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			errs = append(errs, err)
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		removed = append(removed, name)
	}
	if len(removed) == 0 {
		fmt.Fprintf(stdout, "nothing to remove in %s.\n", dir)
	} else {
		fmt.Fprintf(stdout, "removed from %s: %s\n", dir, strings.Join(removed, ", "))
	}
	if len(kept) > 0 {
		fmt.Fprintf(stdout, "left (not skillroute's data: the plugin's build, or files it does not know): %s\n", strings.Join(kept, ", "))
	} else if len(errs) == 0 {
		if err := os.Remove(dir); err == nil {
			fmt.Fprintf(stdout, "removed the empty folder %s.\n", dir)
		}
	}
	return errors.Join(errs...)
}
