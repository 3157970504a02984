package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/skillroute/skillroute/skills"
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
// Tool calls are heard for the Skill tool (which skill the session used)
// and for MCP tools, the tools a user declares to the action layer (their
// outcomes attach to the turn's logged decision); not for every Read and
// Edit.
var Registrations = []Registration{
	{Event: "UserPromptSubmit"},
	{Event: "PostToolUse", Matcher: ToolMatcher},
	{Event: "PostToolUseFailure", Matcher: ToolMatcher},
	{Event: "UserPromptExpansion"},
	{Event: "SessionStart"},
}

// ToolMatcher selects the tool calls the hook hears: the Skill tool and
// MCP tools ("mcp__server__tool").
const ToolMatcher = "Skill|mcp__.*"

// HookTimeout is the timeout, in seconds, written for each hook entry.
const HookTimeout = 5

// HookEnv opens the command: the hook runs on one Go processor. With
// two, the hook's goroutines and the runtime's each take fresh pages of
// memory: a process touched 434 pages against 508 (`perf stat -e
// page-faults` of 50 prompt events at 50 skills), and
// BenchmarkHookProcess against BenchmarkHookProcessAllProcessors, three
// runs by turns on two idle cores, gave 16.70–16.85 against 17.72–18.50
// ms a process, 18.4–18.7 against 20.1–21.2 ms of CPU. The binary cannot
// set it for itself: by main the second processor exists
// (runtime.GOMAXPROCS(1) there faulted 522). The shell that runs the
// command sets it at no cost of its own.
const HookEnv = "GOMAXPROCS=1 "

// Command returns the shell command that runs the hook for a binary path.
func Command(binary string) string {
	return HookEnv + shellQuote(binary) + " hook"
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// StatusMessage is the spinner text of the router's hook entries: with
// the command, the mark by which the installer knows its own entries.
const StatusMessage = "skillroute: routing"

// CommandBinary returns the binary of a command Command wrote
// ("GOMAXPROCS=1 BINARY hook", the path shell-quoted when it needs
// quoting, or without HookEnv as earlier versions wrote it), and false for
// any other command. `echo 'not skillroute hook'` is not one.
func CommandBinary(cmd string) (string, bool) {
	cmd = strings.TrimPrefix(cmd, HookEnv) // earlier installs wrote none
	quoted, ok := strings.CutSuffix(cmd, " hook")
	if !ok || quoted == "" {
		return "", false
	}
	binary := quoted
	if strings.HasPrefix(quoted, "'") {
		if len(quoted) < 2 || !strings.HasSuffix(quoted, "'") {
			return "", false
		}
		binary = strings.ReplaceAll(quoted[1:len(quoted)-1], `'\''`, "'")
	}
	if shellQuote(binary) != quoted {
		return "", false
	}
	return binary, true
}

// isOurs recognises a handler this installer wrote, whatever binary path
// it named then: its status message is StatusMessage and its command is
// one Command writes. A user's own hook that merely mentions skillroute
// is not ours, and neither is an entry whose fields are written twice
// (which of the two counts would be a guess).
func isOurs(h gjson.Result) bool {
	msg, ok := member(h, "statusMessage")
	if !ok || msg.Type != gjson.String || msg.Str != StatusMessage {
		return false
	}
	cmd, ok := member(h, "command")
	if !ok || cmd.Type != gjson.String {
		return false
	}
	_, ours := CommandBinary(cmd.Str)
	return ours
}

// member returns the value of an object's key. It is false when the key
// is missing, and also when the key is written twice or with escape
// sequences ("hook\u0073"): JSON readers differ on which of two keys
// counts (Claude Code takes the last, the path editor the first), so such
// a key is never edited.
func member(obj gjson.Result, key string) (gjson.Result, bool) {
	var found gjson.Result
	n, plain := 0, true
	if !obj.IsObject() {
		return found, false
	}
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.Str == key {
			n++
			found = v
			plain = plain && k.Raw == `"`+key+`"`
		}
		return true
	})
	return found, n == 1 && plain
}

// ReadSettings reads a settings file as skills.ReadSettings does: a
// regular file of at most skills.MaxSettingsBytes, so that neither doctor
// nor install hangs on a FIFO or reads a device.
func ReadSettings(path string) ([]byte, error) { return skills.ReadSettings(path) }

// Installed lists the events of a settings file whose hooks run the router,
// and the command of the last one found.
func Installed(path string) (events []string, command string) {
	data, err := ReadSettings(path)
	if err != nil || !json.Valid(data) {
		return nil, ""
	}
	hooks, _ := member(gjson.ParseBytes(data), "hooks")
	hooks.ForEach(func(event, groups gjson.Result) bool {
		for _, l := range ours(groups) {
			events = append(events, event.Str)
			command = l.command
		}
		return true
	})
	sort.Strings(events)
	events = slices.Compact(events)
	return events, command
}

// Change says what Install or Uninstall did to one event.
type Change struct {
	Event  string
	Action string // "added", "updated", "already present", "removed"
}

// handler is a hook entry as the installer writes it, fields in the
// order Claude Code's documentation gives them.
type handler struct {
	Type          string `json:"type"`
	Command       string `json:"command"`
	Timeout       int    `json:"timeout"`
	StatusMessage string `json:"statusMessage"`
}

// group is a matcher group holding one handler.
type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

// marshal encodes v as JSON without escaping <, > and & (a command may
// hold them; Claude Code reads either, a person reads this better).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // of the types above: cannot fail
	return bytes.TrimSpace(b.Bytes())
}

// Install merges the router's hook entries into the settings file at path,
// keeping every other key and hook, writing a backup of the old file first,
// and doing nothing when the entries are already there (idempotent). With
// dryRun nothing is written.
func Install(path, binary string, dryRun bool) ([]Change, error) {
	return edit(path, dryRun, installer(binary))
}

// installer is Install's edit of a settings document.
func installer(binary string) func(*settingsDoc) ([]Change, error) {
	want := handler{Type: "command", Command: Command(binary), Timeout: HookTimeout, StatusMessage: StatusMessage}
	var wantValue any
	_ = json.Unmarshal(marshal(want), &wantValue)
	return func(d *settingsDoc) ([]Change, error) {
		var changes []Change
		for _, reg := range Registrations {
			groups, found, err := d.event(reg.Event)
			if err != nil {
				return nil, err
			}
			found = found && groups.IsArray()
			mine := ours(groups)
			action := "added"
			drop := mine
			if len(mine) > 0 {
				action = "updated"
				first := mine[0]
				var have any
				if json.Unmarshal([]byte(first.handler.Raw), &have) == nil && reflect.DeepEqual(have, wantValue) && first.matcher == reg.Matcher {
					action, drop = "already present", mine[1:] // keep the first exact entry
				}
			}
			if err := d.drop(reg.Event, drop, false); err != nil {
				return nil, err
			}
			if action != "already present" {
				if err := d.append(reg.Event, found, marshal(group{Matcher: reg.Matcher, Hooks: []handler{want}})); err != nil {
					return nil, err
				}
			}
			changes = append(changes, Change{reg.Event, action})
		}
		return changes, nil
	}
}

// Uninstall removes exactly the router's entries from the settings file:
// the handlers isOurs knows, then the matcher groups and event lists that
// held only those, and the "hooks" object if nothing else is left in it.
func Uninstall(path string, dryRun bool) ([]Change, error) {
	return edit(path, dryRun, uninstall)
}

// uninstall is Uninstall's edit of a settings document.
func uninstall(d *settingsDoc) ([]Change, error) {
	var events []string
	d.hooks().ForEach(func(event, groups gjson.Result) bool {
		if len(ours(groups)) > 0 && plainKey().MatchString(event.Str) && event.Raw == `"`+event.Str+`"` {
			events = append(events, event.Str)
		}
		return true
	})
	var changes []Change
	for _, event := range events {
		groups, _, err := d.event(event)
		if err != nil {
			return nil, err
		}
		if err := d.drop(event, ours(groups), true); err != nil {
			return nil, err
		}
		changes = append(changes, Change{event, "removed"})
	}
	if len(changes) > 0 && d.hooks().IsObject() && len(d.hooks().Map()) == 0 {
		if err := d.delete("hooks"); err != nil {
			return nil, err
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Event < changes[j].Event })
	return changes, nil
}

// plainKey is an event name the editor addresses by path: Claude Code's
// events are all such names, so a key of any other form holds nothing of
// ours and needs no escaping rules. Compiled on first use: every hook
// process starts the package, few install.
var plainKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`) })

// located is one of our handlers in an event's list: group index, handler
// index in the group, the handler and its group's matcher.
type located struct {
	group, index int
	handler      gjson.Result
	matcher      string
	command      string
}

// ours finds our handlers in an event's list of matcher groups. A group
// whose "hooks" is not a list (a string, null, missing) holds none of ours
// and is never touched.
func ours(groups gjson.Result) []located {
	var out []located
	if !groups.IsArray() {
		return nil
	}
	for gi, g := range groups.Array() {
		handlers, ok := member(g, "hooks")
		if !ok || !handlers.IsArray() {
			continue
		}
		matcher := ""
		if m, ok := member(g, "matcher"); ok {
			matcher = m.Str
		}
		for hi, h := range handlers.Array() {
			if isOurs(h) {
				cmd, _ := member(h, "command")
				out = append(out, located{group: gi, index: hi, handler: h, matcher: matcher, command: cmd.Str})
			}
		}
	}
	return out
}

// settingsDoc is a settings file being edited: its bytes, changed in place
// by path (github.com/tidwall/sjson, read with github.com/tidwall/gjson),
// so that everything the edit does not touch keeps its bytes: key order,
// string escapes, number literals. Decoding into maps and encoding back,
// as this installer once did, sorts keys, escapes <>&, rounds numbers past
// float64 and rewrites a group's "hooks": [] to null; a splice by path
// does none of that, and sjson is the well-used library that does it.
// Only white space is then made uniform (result), and FuzzSettingsEdit
// checks that install and uninstall change nothing else.
type settingsDoc struct {
	path   string
	data   []byte
	edited bool
}

// parseSettings checks a settings file for editing: valid JSON (an empty
// file or null reads as {}), an object, a "hooks" key that is an object
// or null, written once, with event keys written once each.
func parseSettings(path string, old []byte) (*settingsDoc, error) {
	d := &settingsDoc{path: path, data: old}
	// JSON's white space only: bytes.TrimSpace also trims \f and \v, and
	// read "\fnull", which no JSON reader accepts, as an empty file to
	// write over (FuzzSettingsEdit).
	if t := bytes.Trim(old, " \t\r\n"); len(t) == 0 || string(t) == "null" {
		d.data = []byte("{}")
	}
	if err := SyntaxError(d.data); err != nil {
		return nil, fmt.Errorf("%s: %w, left untouched", path, err)
	}
	top := gjson.ParseBytes(d.data)
	if !top.IsObject() {
		return nil, fmt.Errorf("%s: not a JSON object, left untouched", path)
	}
	if err := unique(top, path, ""); err != nil {
		return nil, err
	}
	hooks, ok := member(top, "hooks")
	if hooks.Exists() && !ok {
		return nil, fmt.Errorf("%s: the key \"hooks\" is written with escape sequences, left untouched", path)
	}
	if hooks.Exists() && !hooks.IsObject() && hooks.Type != gjson.Null {
		return nil, fmt.Errorf("%s: \"hooks\" is not an object, left untouched", path)
	}
	if err := unique(hooks, path, "hooks."); err != nil {
		return nil, err
	}
	return d, nil
}

// SyntaxError returns nil when data is valid JSON, else an error saying
// where it stops being JSON: "not valid JSON at line L, column C: ...",
// so that a settings file of hundreds of lines can be mended.
func SyntaxError(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	var v any
	err := json.Unmarshal(data, &v)
	return fmt.Errorf("not valid JSON%s: %v", where(data, err), err)
}

// where says where in data a JSON syntax error lies, as " at line L,
// column C" (C counted in characters), or "" for another error. The
// error's offset is past the offending byte, or at the end of a text cut
// short.
func where(data []byte, err error) string {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) || syntax.Offset < 1 || syntax.Offset > int64(len(data)) {
		return ""
	}
	pos := int(syntax.Offset) - 1
	if syntax.Error() == "unexpected end of JSON input" {
		pos = len(data)
	}
	before := data[:pos]
	line := bytes.Count(before, []byte("\n")) + 1
	col := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf(" at line %d, column %d", line, col)
}

// unique fails when an object has a key twice, or written with escape
// sequences ("hook\u0073") so that it reads as another key.
func unique(obj gjson.Result, path, where string) error {
	seen := map[string]bool{}
	var err error
	obj.ForEach(func(k, _ gjson.Result) bool {
		if seen[k.Str] {
			err = fmt.Errorf("%s: the key %s%q is written twice, left untouched", path, where, k.Str)
			return false
		}
		seen[k.Str] = true
		return true
	})
	return err
}

// hooks returns the "hooks" object (not Exists when there is none).
func (d *settingsDoc) hooks() gjson.Result {
	if h, ok := member(gjson.ParseBytes(d.data), "hooks"); ok {
		return h
	}
	return gjson.Result{}
}

// event returns an event's list of matcher groups, and whether the key
// exists. A value that is neither a list nor null is an error: there is
// no way to add to it without destroying it.
func (d *settingsDoc) event(name string) (gjson.Result, bool, error) {
	hooks := d.hooks()
	v, ok := member(hooks, name)
	if !ok && v.Exists() {
		return v, false, fmt.Errorf("%s: hooks.%s is written with escape sequences, left untouched", d.path, name)
	}
	if ok && !v.IsArray() && v.Type != gjson.Null {
		return v, true, fmt.Errorf("%s: hooks.%s is not a list, left untouched", d.path, name)
	}
	return v, ok, nil
}

// drop deletes the located handlers of an event, then each group they
// leave empty; with dropEvent, the event's key too when its list is left
// empty. Deletion runs from the last index down, so that the indices of
// those still to delete stay valid.
func (d *settingsDoc) drop(event string, handlers []located, dropEvent bool) error {
	if len(handlers) == 0 {
		return nil
	}
	for i := len(handlers) - 1; i >= 0; i-- {
		l := handlers[i]
		if err := d.delete(fmt.Sprintf("hooks.%s.%d.hooks.%d", event, l.group, l.index)); err != nil {
			return err
		}
		last := i == 0 || handlers[i-1].group != l.group
		if !last {
			continue
		}
		groups, _, _ := d.event(event)
		if g := groups.Array()[l.group]; len(g.Get("hooks").Array()) == 0 {
			if err := d.delete(fmt.Sprintf("hooks.%s.%d", event, l.group)); err != nil {
				return err
			}
		}
	}
	if groups, _, _ := d.event(event); dropEvent && len(groups.Array()) == 0 {
		return d.delete("hooks." + event)
	}
	return nil
}

// append adds a matcher group to an event's list, creating the list (and
// the "hooks" object) when there is none or it is null.
func (d *settingsDoc) append(event string, listExists bool, raw []byte) error {
	if !d.hooks().IsObject() {
		if err := d.set("hooks", []byte("{}")); err != nil {
			return err
		}
	}
	if !listExists {
		return d.set("hooks."+event, append(append([]byte("["), raw...), ']'))
	}
	return d.set("hooks."+event+".-1", raw)
}

func (d *settingsDoc) set(path string, raw []byte) error {
	out, err := sjson.SetRawBytes(d.data, path, raw)
	if err != nil {
		return fmt.Errorf("%s: cannot set %s, left untouched: %w", d.path, path, err)
	}
	d.data, d.edited = out, true
	return nil
}

func (d *settingsDoc) delete(path string) error {
	out, err := sjson.DeleteBytes(d.data, path)
	if err != nil {
		return fmt.Errorf("%s: cannot delete %s, left untouched: %w", d.path, path, err)
	}
	d.data, d.edited = out, true
	return nil
}

// result is the edited file, indented as the old one was (its first
// indented line's indent; two spaces, as Claude Code writes, when it had
// none). Reindenting changes only the white space between tokens.
func (d *settingsDoc) result(old []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, bytes.TrimSpace(d.data), "", indentOf(old)); err != nil || !json.Valid(b.Bytes()) {
		return nil, fmt.Errorf("%s: the edit did not give valid JSON (a bug; please report it), left untouched", d.path)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// indentOf returns the indent unit of a JSON text: the white space that
// starts its first indented line, if all spaces or all tabs.
func indentOf(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) == len(line) || len(bytes.TrimSpace(trimmed)) == 0 {
			continue
		}
		ws := string(line[:len(line)-len(trimmed)])
		if strings.Trim(ws, " ") == "" || strings.Trim(ws, "\t") == "" {
			return ws
		}
		break
	}
	return "  "
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

// edit loads a settings file (missing is empty), applies change to it
// and writes it back with a backup, unless nothing changed. The file is
// written through package store: a symlink is written through to its
// target, the file keeps its mode, and a read-only file is refused with a
// clear error (before any backup is made). If the file changes while the
// edit is computed (Claude Code or another tool saving it), the edit
// starts over on the new content, so that their change is kept.
func edit(path string, dryRun bool, change func(*settingsDoc) ([]Change, error)) ([]Change, error) {
	for try := 1; ; try++ {
		old, err := ReadSettings(path)
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
		if now, err := ReadSettings(path); (err == nil || old != nil) && !bytes.Equal(now, old) {
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
func applyEdit(path string, old []byte, change func(*settingsDoc) ([]Change, error)) ([]Change, []byte, error) {
	d, err := parseSettings(path, old)
	if err != nil {
		return nil, nil, err
	}
	changes, err := change(d)
	if err != nil || !d.edited {
		return changes, nil, err
	}
	data, err := d.result(old)
	if err != nil || bytes.Equal(data, old) {
		return changes, nil, err
	}
	return changes, data, nil
}
