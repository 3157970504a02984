package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/skillroute/skillroute/store"
)

// Registration is one hook entry the installer adds to settings.json.
type Registration struct {
	Event   string
	Matcher string // "" for events without matchers
}

// Registrations are the events the router listens to. The timeout (s) is
// far above the hook's own 200 ms deadline and far below Claude Code's
// default 30 s for prompts, so a stuck disk can never hold a prompt long.
var Registrations = []Registration{
	{Event: "UserPromptSubmit"},
	{Event: "PostToolUse", Matcher: "Skill"},
	{Event: "UserPromptExpansion"},
	{Event: "SessionStart"},
}

// HookTimeout is the timeout, in seconds, written for each hook entry.
const HookTimeout = 5

// Command returns the shell command that runs the hook for a binary path.
func Command(binary string) string {
	return shellQuote(binary) + " hook"
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// StatusMessage is the spinner text of the router's hook entries, and how
// the installer knows them again, whatever the binary is called.
const StatusMessage = "skillroute: routing"

// isOurs recognises a handler this installer wrote, whatever binary path
// it named then: by its status message, or a command ending in
// "skillroute hook" (an entry written by hand).
func isOurs(h map[string]any) bool {
	if msg, _ := h["statusMessage"].(string); msg == StatusMessage {
		return true
	}
	cmd, _ := h["command"].(string)
	cmd = strings.TrimSpace(strings.ReplaceAll(cmd, "'", ""))
	return strings.HasSuffix(cmd, "skillroute hook")
}

// Installed lists the events of a settings file whose hooks run the router,
// and the command of the last one found.
func Installed(path string) (events []string, command string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, ""
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if json.Unmarshal(data, &settings) != nil {
		return nil, ""
	}
	for event, groups := range settings.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if isOurs(h) {
					events = append(events, event)
					command, _ = h["command"].(string)
				}
			}
		}
	}
	sort.Strings(events)
	return events, command
}

// Change says what Install or Uninstall did to one event.
type Change struct {
	Event  string
	Action string // "added", "updated", "already present", "removed"
}

// Install merges the router's hook entries into the settings file at path,
// keeping every other key and hook, writing a backup of the old file first,
// and doing nothing when the entries are already there (idempotent). With
// dryRun nothing is written.
func Install(path, binary string, dryRun bool) ([]Change, error) {
	return edit(path, dryRun, func(hooks map[string]any) []Change {
		var changes []Change
		for _, reg := range Registrations {
			want := map[string]any{"type": "command", "command": Command(binary), "timeout": HookTimeout, "statusMessage": StatusMessage}
			action := "added"
			groups, _ := hooks[reg.Event].([]any)
			kept := dropHandlers(groups, func(group, h map[string]any) bool {
				if !isOurs(h) {
					return false
				}
				if action == "added" && equalJSON(h, want) && matcherOf(group) == reg.Matcher {
					action = "already present" // keep the first exact entry
					return false
				}
				if action == "added" {
					action = "updated"
				}
				return true // a stale or duplicate entry of ours
			})
			if action != "already present" {
				group := map[string]any{"hooks": []any{want}}
				if reg.Matcher != "" {
					group["matcher"] = reg.Matcher
				}
				kept = append(kept, group)
			}
			hooks[reg.Event] = kept
			changes = append(changes, Change{reg.Event, action})
		}
		return changes
	})
}

// Uninstall removes exactly the router's entries from the settings file.
func Uninstall(path string, dryRun bool) ([]Change, error) {
	return edit(path, dryRun, func(hooks map[string]any) []Change {
		var changes []Change
		for event, v := range hooks {
			groups, ok := v.([]any)
			if !ok {
				continue
			}
			removed := false
			kept := dropHandlers(groups, func(_, h map[string]any) bool {
				if isOurs(h) {
					removed = true
				}
				return isOurs(h)
			})
			if !removed {
				continue
			}
			changes = append(changes, Change{event, "removed"})
			if len(kept) == 0 {
				delete(hooks, event)
			} else {
				hooks[event] = kept
			}
		}
		sort.Slice(changes, func(i, j int) bool { return changes[i].Event < changes[j].Event })
		return changes
	})
}

// dropHandlers removes from each matcher group the handlers drop selects,
// and the groups left empty by it; everything else is kept as it was.
func dropHandlers(groups []any, drop func(group, handler map[string]any) bool) []any {
	var kept []any
	for _, g := range groups {
		group, ok := g.(map[string]any)
		if !ok {
			kept = append(kept, g)
			continue
		}
		handlers, _ := group["hooks"].([]any)
		var rest []any
		for _, h := range handlers {
			if hm, ok := h.(map[string]any); ok && drop(group, hm) {
				continue
			}
			rest = append(rest, h)
		}
		if len(rest) == 0 && len(handlers) > 0 {
			continue
		}
		group["hooks"] = rest
		kept = append(kept, group)
	}
	return kept
}

func matcherOf(group map[string]any) string {
	m, _ := group["matcher"].(string)
	return m
}

func equalJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// MaxBackups is how many backups of a settings file edit keeps beside it:
// enough to undo the last few installs, few enough not to litter the
// user's folder (every install and uninstall used to add one for good).
const MaxBackups = 5

// BackupTag names backups of a settings file: PATH.skillroute-backup-N.
const BackupTag = "skillroute-backup"

// editTries is how often edit starts over when another program changed
// the settings file while it was being edited.
const editTries = 5

// beforeWrite, when set (by tests), runs between computing an edit and
// checking that the file has not changed meanwhile.
var beforeWrite func(path string)

// edit loads a settings file (missing is empty), applies change to its
// "hooks" object and writes it back with a backup, unless nothing changed.
// The file is written through package store: a symlink is written through
// to its target, the file keeps its mode, and a read-only file is refused
// with a clear error (before any backup is made). If the file changes
// while the edit is computed (Claude Code or another tool saving it), the
// edit starts over on the new content, so that their change is kept.
func edit(path string, dryRun bool, change func(map[string]any) []Change) ([]Change, error) {
	for try := 1; ; try++ {
		old, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			old, err = nil, nil
		}
		if err != nil {
			return nil, err
		}
		changes, data, err := applyEdit(path, old, change)
		if err != nil || dryRun || data == nil {
			return changes, err
		}
		if err := store.Writable(path); err != nil {
			return nil, err
		}
		if beforeWrite != nil {
			beforeWrite(path)
		}
		if now, err := os.ReadFile(path); (err == nil || old != nil) && !bytes.Equal(now, old) {
			if try < editTries {
				continue // changed meanwhile: edit what is there now
			}
			return nil, fmt.Errorf("%s keeps changing while being edited; left untouched, try again", path)
		}
		if old != nil {
			if _, err := store.Backup(path, BackupTag, old, MaxBackups); err != nil {
				return nil, fmt.Errorf("backup: %w", err)
			}
		}
		return changes, store.Write(path, data, store.Settings)
	}
}

// applyEdit applies change to the settings old (nil: no file) and returns
// the changes and the new content, or nil content when nothing is to be
// written.
func applyEdit(path string, old []byte, change func(map[string]any) []Change) ([]Change, []byte, error) {
	settings := map[string]any{}
	if len(strings.TrimSpace(string(old))) > 0 {
		if err := json.Unmarshal(old, &settings); err != nil {
			return nil, nil, fmt.Errorf("%s: not valid JSON, left untouched: %v", path, err)
		}
		if settings == nil { // the file holds null
			settings = map[string]any{}
		}
	}
	hooks, ok := settings["hooks"].(map[string]any)
	if !ok {
		if settings["hooks"] != nil {
			return nil, nil, fmt.Errorf("%s: \"hooks\" is not an object, left untouched", path)
		}
		hooks = map[string]any{}
	}
	for event, v := range hooks {
		if _, ok := v.([]any); !ok {
			return nil, nil, fmt.Errorf("%s: hooks.%s is not a list, left untouched", path, event)
		}
	}
	changes := change(hooks)
	if len(hooks) == 0 {
		delete(settings, "hooks")
	} else {
		settings["hooks"] = hooks
	}
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	data = append(data, '\n')
	if string(data) == string(old) || (old == nil && len(settings) == 0) {
		return changes, nil, nil
	}
	return changes, data, nil
}
