// Package hook is skillroute as Claude Code meets it: one process per hook
// event, reading the event's JSON on stdin and printing, at most, one JSON
// object that adds a line of context to the prompt.
//
// It handles four events. UserPromptSubmit routes the prompt with the
// session's signals (recent skills, project type, workflow) and, when a
// skill is recommended, prints it as additionalContext. PostToolUse of the
// Skill tool and UserPromptExpansion (a typed /skill) record which skill
// was actually used, which feeds the session context and the workflow
// statistics. SessionStart resets or resumes the session's state.
//
// With the action layer (actions.go) the hook injects what it decides
// instead of the skill line alone: the skill, remembered facts, a tool
// hint, a question to ask first, or nothing; it logs every decision as a
// trajectory, and attaches to it the turn's tool calls (PostToolUse and
// PostToolUseFailure of the Skill tool and of MCP tools, typed commands).
//
// The hook must never get in the user's way: whatever happens (malformed
// input, an unknown event, a broken or locked state file, a slow disk) it
// exits 0, prints nothing it is not sure of, and gives up Deadline after
// it has the event. Exit code 2 would erase the user's prompt; any other
// failure code shows an error notice. Reasons for silence go to hook.log
// in the state folder.
package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/internal/jsonenc"
	"github.com/skillroute/skillroute/prefs"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// Deadline bounds one hook call. Claude Code waits for UserPromptSubmit
// hooks before the model starts: 200 ms is unnoticeable, and far inside the
// 5 s timeout the installer registers.
const Deadline = 200 * time.Millisecond

// EventWait bounds the wait for Claude Code's event on stdin, which
// Deadline does not count: far above the 400 ms a busy Claude Code was
// seen to take (Runtime.Run), and inside the installer's 5 s timeout with
// Deadline's time to spare, so that a hook whose event never comes exits
// 0 on its own rather than be killed.
const EventWait = 3 * time.Second

// MaxContext caps the injected text. Injected context stays in the
// transcript and accumulates turn after turn, so it is kept to a line.
const MaxContext = 600

// Event is the part of a hook event's JSON the router reads. Unknown
// fields are ignored; missing ones are empty.
type Event struct {
	SessionID     string          `json:"session_id"`
	PromptID      string          `json:"prompt_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	Prompt        string          `json:"prompt"`
	Source        string          `json:"source"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	ExpansionType string          `json:"expansion_type"`
	CommandName   string          `json:"command_name"`
	CommandArgs   string          `json:"command_args"`
	ToolUseID     string          `json:"tool_use_id"` // for hook.log alone
}

// Bounds on the strings an event brings. Claude Code sends short ids and
// names, but the hook takes whatever arrives on stdin (up to MaxEvent),
// and everything it keeps is rewritten or read on every prompt: three
// events with a megabyte-long skill name once grew workflow.json to 5 MB
// and slowed every session's hook past 100 ms. Each string is bounded
// before it reaches the state (Event.bound; TestHugeEventStrings).
const (
	// MaxID bounds a session or prompt id. Claude Code sends UUIDs (36
	// characters); a longer id is replaced by "h-" and its hash, so that
	// two different ids never become one.
	MaxID = 128
	// MaxName bounds a skill, command, tool, event or source name: a
	// Claude Code skill name has at most 64 characters, a plugin's name
	// before it as many again. A longer name is cut; as a skill or command
	// name it is then no skill of the catalog, and ignored.
	MaxName = 256
	// MaxPath bounds the working folder: PATH_MAX is 4,096 bytes on Linux.
	// A longer one is not a folder the hook can look in, and is dropped.
	MaxPath = 4096
)

// bound applies the bounds above, and cuts the prompt and a command's
// arguments to the tokenize.MaxInput characters routing reads.
func (ev *Event) bound() {
	for _, id := range []*string{&ev.SessionID, &ev.PromptID, &ev.ToolUseID} {
		if len(*id) > MaxID {
			*id = "h-" + hash(*id)
		}
	}
	if len(ev.Cwd) > MaxPath {
		ev.Cwd = ""
	}
	for _, name := range []*string{&ev.HookEventName, &ev.Source, &ev.ToolName, &ev.ExpansionType, &ev.CommandName} {
		*name = cut(*name, MaxName)
	}
	ev.Prompt = tokenize.Cap(ev.Prompt)
	ev.CommandArgs = tokenize.Cap(ev.CommandArgs)
}

// cut cuts s to at most n bytes, never inside a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Decision is one routed prompt, as recorded in decisions.jsonl.
type Decision struct {
	ID         string    `json:"id"`
	Session    string    `json:"session"`
	PromptHash string    `json:"prompt_hash"`
	Skill      string    `json:"skill"`
	Confidence float64   `json:"confidence"`
	Time       time.Time `json:"time"`
	Query      string    `json:"-"` // kept in the session file only, for corrections
	Cost       int       `json:"-"` // tokens injected
}

// Handler handles hook events against one state folder.
type Handler struct {
	Store *Store
	// Open returns the router; called only for prompts, so the other
	// events never load the index.
	Open func() (*router.Router, error)
	// Actions, when set, opens the action layer for a working folder
	// (its memories, tools and policy): the hook then injects what the
	// layer decides and logs its decisions (actions.go). Nil: the skill
	// line alone.
	Actions func(cwd string) (*action.Layer, error)
	Now     func() time.Time
	// Home is the user's home folder: project detection stops before it
	// (sctx.DetectProject). Empty sets no limit.
	Home string
	// Changed returns those of the named skills whose files changed or
	// went since the router's index was compiled (loader.Changed). The
	// hook asks it of the skill it is about to name: one stat per prompt
	// instead of one per skill. May be nil.
	Changed func(r *router.Router, names ...string) []string
	// Recompile starts a compile in the background that checks every
	// skill file and compiles only if one changed; called at SessionStart
	// and when Changed finds a change. May be nil.
	Recompile func() error
}

// Result is what a handled event produced.
type Result struct {
	Output   []byte           // what to print on stdout; nil for silence
	Decision *router.Decision // for a routed prompt
	Reason   string           // why the hook stayed silent, for the log

	// about is what hook.log says of the event, once parsed: Runtime.Run
	// parsed the event a second time for it (aboutEvent) before.
	about *logged
}

// Handle processes one event's JSON. It never fails: problems become a
// silent Result with a Reason.
func (h *Handler) Handle(ctx context.Context, input []byte) Result {
	return h.handleInput(ctx, input, nil)
}

// handleInput is Handle; ready, when not nil, is given a prompt's output
// as soon as it is made, before the state is written (Runtime.Run prints
// it if the writes outlast the deadline).
func (h *Handler) handleInput(ctx context.Context, input []byte, ready func([]byte)) Result {
	var ev Event
	if len(bytes.TrimSpace(input)) == 0 { // not a copy of a pasted megabyte
		return Result{Reason: "empty input"}
	}
	if !decodeEvent(input, &ev) {
		if err := json.Unmarshal(input, &ev); err != nil {
			return Result{Reason: "malformed event: " + err.Error()}
		}
	}
	ev.bound()
	res := h.handle(ctx, ev, ready)
	res.about = &logged{HookEventName: ev.HookEventName, SessionID: ev.SessionID, PromptID: ev.PromptID, ToolUseID: ev.ToolUseID}
	return res
}

// handle handles a parsed event, bounded.
func (h *Handler) handle(ctx context.Context, ev Event, ready func([]byte)) Result {
	switch ev.HookEventName {
	case "UserPromptSubmit":
		return h.prompt(ctx, ev, ready)
	case "PostToolUse", "PostToolUseFailure":
		var p peek
		h.toolEvent(ctx, ev, &p)
		if ev.ToolName != "Skill" || ev.HookEventName == "PostToolUseFailure" {
			return Result{Reason: ev.HookEventName + " of " + ev.ToolName}
		}
		return h.toolUse(ctx, ev, &p)
	case "UserPromptExpansion":
		var p peek
		if ev.ExpansionType == "" || ev.ExpansionType == "slash_command" {
			h.toolEvent(ctx, ev, &p) // a typed command is one of the turn's tool calls
		}
		return h.expansion(ctx, ev, &p)
	case "SessionStart":
		return h.start(ctx, ev)
	case "":
		return Result{Reason: "event without hook_event_name"}
	}
	return Result{Reason: "unhandled event " + ev.HookEventName}
}

// skillOf reads the skill name of a Skill tool call: "skill", or
// "skill_name" as some versions send; cut to MaxName.
func skillOf(raw json.RawMessage) string {
	var in struct {
		Skill     string `json:"skill"`
		SkillName string `json:"skill_name"`
	}
	_ = json.Unmarshal(raw, &in)
	if in.Skill != "" {
		return cut(in.Skill, MaxName)
	}
	return cut(in.SkillName, MaxName)
}

// toolUse handles a call of the Skill tool. Only a skill of the catalog
// is recorded: the session window, the workflow statistics and the
// learner know nothing else, and a name from the event is no proof that
// a skill of that name exists. Another skill (one of Claude Code's own)
// closes the wait for a verdict, as a typed command does.
func (h *Handler) toolUse(ctx context.Context, ev Event, p *peek) Result {
	skill := strings.TrimSpace(skillOf(ev.ToolInput))
	if skill == "" {
		return Result{Reason: "no skill name"}
	}
	r, err := h.Open()
	if err != nil {
		return Result{Reason: "router: " + err.Error()}
	}
	id := r.Index.Resolve(skill)
	if id < 0 {
		return h.notUse(ctx, ev, fmt.Sprintf("%q is not a skill of the catalog: no use recorded", cut(skill, 64)), p)
	}
	return h.used(ctx, ev, r.Index.Skills.Name(id), nil)
}

// notUse closes the session's wait for a verdict on its routed prompt:
// the user or the model has moved on to something else.
func (h *Handler) notUse(ctx context.Context, ev Event, why string, p *peek) Result {
	f, err := p.session(h.Store, ev.SessionID)
	if err := h.Store.closeRoute(ctx, ev.SessionID, f, err); err != nil {
		why += "; close route: " + err.Error()
	}
	return Result{Reason: why}
}

// peek is one unlocked read of the event's session file, shared by the
// steps of one event that only look at it (toolEvent, and whether a route
// waits to be closed): a PostToolUse of a skill outside the catalog read
// the file three times. What is changed is read again under the lock.
type peek struct {
	f   *SessionFile // nil until read: SessionFile always returns a file
	err error
}

func (p *peek) session(s *Store, id string) (*SessionFile, error) {
	if p.f == nil {
		p.f, p.err = s.SessionFile(id)
	}
	return p.f, p.err
}

// now is the handler's clock (Now, else the system's in UTC). A time in
// the local zone, written into the session file (a project's detection,
// a skill's use) or the prompt memory's journal, had every later process
// load the zone's file to read it back (time.Parse looks a numeric offset
// up in the local zone): with TZ=Europe/Berlin, one zoneinfo file opened
// and parsed by each prompt event's process (strace). The instants are
// the same; nothing the hook does reads the local hour or day.
func (h *Handler) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now().UTC()
}

// prompt routes a prompt in its session.
//
// The session's file is read (unlocked, before the router loads, on the
// handler's own goroutine: a small file, whose read cost less than a
// goroutine of its own waited for a processor) and routed on; what the route changes (the last
// decision, a project detected again) is then written in one
// read-modify-write under the session's lock, onto the file as it is by
// then, so that a hook of the same session that wrote in the meantime (a
// skill use) loses nothing (TestConcurrentPromptsKeepSkillUses,
// TestConcurrentHooksOnOneSession).
// The lock is not held while routing: a hook of the same session waits
// for a write, not for a route. The two logs are appended before it.
func (h *Handler) prompt(ctx context.Context, ev Event, ready func([]byte)) Result {
	text := strings.TrimSpace(ev.Prompt)
	if text == "" {
		return Result{Reason: "empty prompt"}
	}
	if slashCommand(text) {
		return Result{Reason: "slash command"}
	}
	now := h.now()
	var pre prepared
	if h.Actions != nil {
		pre = h.prepare(ev, now)
	}
	f, snap, err := h.Store.sessionBytes(ev.SessionID)
	if err != nil {
		snap = nil // a corrupt file is a new session (sessionBytes), replaced below
	}
	detected := f.ProjectAt
	r, err := h.Open()
	if err != nil {
		return Result{Reason: "router: " + err.Error()}
	}
	rec := Decision{ID: decisionID(ev, now), Session: ev.SessionID, PromptHash: hash(text), Time: now.UTC(), Query: text}
	res := Result{}
	d := r.Route(text, h.session(f, ev.Cwd, now))
	res.Decision = &d
	rec.Skill, rec.Confidence = d.Skill, d.Confidence
	var injected string
	var traj *action.Trajectory
	if d.Skill != "" && !d.Closing && h.gone(r, d.Skill) {
		res.Reason = fmt.Sprintf("%s was removed since the index was compiled; recompiling", d.Skill)
	} else {
		injected, res.Reason, traj = h.inject(ev, text, d, rec.ID, now, pre)
	}
	if injected != "" {
		res.Output = contextOutput(injected)
		rec.Cost = action.TextTokens(injected)
		if ready != nil {
			ready(res.Output)
		}
	}
	logged := recovered(func() error {
		err := h.Store.RecordDecision(ctx, rec)
		if traj != nil {
			err = errors.Join(err, action.LogDecision(ctx, h.Store.Dir, *traj))
		}
		return err
	}, func(p any) error { return fmt.Errorf("panic: %v", p) })
	// A closing turn is never routed: a skill used after it is no verdict
	// on it (TestClosingTurnTakesNoVerdict).
	last := &LastDecision{ID: rec.ID, Query: h.Store.keep(d.Query), QueryHash: rec.PromptHash, Skill: rec.Skill, Confidence: rec.Confidence, Time: rec.Time, Cost: rec.Cost, Terms: d.Terms,
		Answered: d.Closing}
	if h.Store.HashPrompts {
		last.Words = wordHashes(r.Index.Tokenizer().Words(d.Query))
	}
	// A session locked past the deadline, or one that cannot be written,
	// keeps nothing of this prompt (hook.log says so); the route stands.
	err = h.Store.updateRead(ctx, ev.SessionID, f, snap, func(cur *SessionFile) error {
		if !f.ProjectAt.Equal(detected) {
			cur.Project, cur.ProjectDir, cur.ProjectAt = f.Project, f.ProjectDir, f.ProjectAt
		}
		if cur.Last != nil && cur.Last.Time.After(rec.Time) {
			// A later prompt of the session, routed by a process that
			// finished first, is the one a verdict or correction is
			// about: this older route does not take its place
			// (TestOlderRouteKeepsNewerLast).
			return nil
		}
		cur.Updated, cur.Last = rec.Time, last
		return nil
	})
	if err != nil {
		res.Reason = strings.TrimPrefix(res.Reason+"; session not updated: "+err.Error(), "; ")
	}
	if err := logged; err != nil {
		// Never silent: a decision the log did not take (its lock held
		// past the deadline, a full disk) is said in hook.log.
		res.Reason = strings.TrimPrefix(res.Reason+"; decision not logged: "+err.Error(), "; ")
	}
	return res
}

// slashCommand reports whether a prompt is a typed slash command
// ("/deploy staging", "/skillroute:wrong"), which Claude Code expands
// itself: a slash and a command's name, then nothing or a space. A prompt
// that opens with a path ("/usr/bin/foo is slow", "/tmp/x: no space")
// is a request like any other.
func slashCommand(text string) bool {
	name, _, _ := strings.Cut(text, " ")
	return len(name) > 1 && name[0] == '/' && !strings.Contains(name[1:], "/")
}

// gone checks the file of the skill about to be named. A changed file
// starts a compile in the background (the route stands: the skill is
// still there); a removed one, too, and the skill is not named.
func (h *Handler) gone(r *router.Router, skill string) bool {
	if h.Changed == nil || len(h.Changed(r, skill)) == 0 {
		return false
	}
	if h.Recompile != nil {
		_ = h.Recompile()
	}
	id := r.Index.Resolve(skill)
	if id < 0 {
		return true
	}
	_, err := os.Stat(r.Index.Skills.Source(id))
	return err != nil
}

// session is the router's snapshot of a session file: its recent skills,
// the workflow statistics when there are skills to predict from, and the
// project type of the working folder (detected again after
// sctx.ProjectTTL, the detection kept in the file).
func (h *Handler) session(f *SessionFile, cwd string, now time.Time) router.Session {
	s := router.Session{Recent: f.Recent}
	if f.Last != nil {
		s.LastSkill, s.LastConfidence = f.Last.Skill, f.Last.Confidence
	}
	if len(f.Recent) > 0 {
		if wf, err := h.Store.Workflow(); err == nil {
			s.Workflow = wf
		}
	}
	if cwd != "" {
		s.Project = f.ProjectFor(cwd, h.Home, now)
		if s.Project == nil {
			s.Project = []string{} // looked, found none
		}
	}
	return s
}

// describe writes the injected line: factual, short, naming the skill by
// the name Claude Code invokes it with.
func describe(d router.Decision) string {
	top := d.Candidates[0]
	var b strings.Builder
	fmt.Fprintf(&b, "skillroute: the skill %q matches this request (confidence %.2f", d.Skill, d.Confidence)
	if len(top.Evidence) > 0 {
		fmt.Fprintf(&b, "; %s", strings.Join(top.Evidence, ", "))
	}
	b.WriteString(").")
	if len(d.Candidates) > 1 && d.Level != router.High {
		fmt.Fprintf(&b, " Runner-up: %q (%.2f).", d.Candidates[1].Skill, d.Candidates[1].Confidence)
	}
	return cut(b.String(), MaxContext)
}

// contextOutput is the hook's answer: the text as additionalContext of a
// UserPromptSubmit, the keys in the order json.Marshal gave them from a
// map, and the text quoted as it quotes a string (jsonenc,
// TestContextOutputAsMarshal).
func contextOutput(text string) []byte {
	out := jsonenc.AppendString([]byte(`{"hookSpecificOutput":{"additionalContext":`), text)
	return append(out, `,"hookEventName":"UserPromptSubmit"}}`...)
}

// used records that the session used a skill; about, when set, says
// whether the use is about the routed prompt (see RecordUse).
func (h *Handler) used(ctx context.Context, ev Event, skill string, about func(last *LastDecision) bool) Result {
	skill = strings.TrimSpace(skill)
	if skill == "" {
		return Result{Reason: "no skill name"}
	}
	same := func(a, b string) bool { return a == b || skills.BareName(a) == skills.BareName(b) }
	if err := h.Store.RecordUse(ctx, ev.SessionID, skill, h.now(), same, about); err != nil {
		return Result{Reason: "record use: " + err.Error()}
	}
	return Result{Reason: "recorded use of " + skill}
}

// start resets the session on a fresh start or /clear, keeps it on resume
// or compaction, and sweeps sessions that have expired.
func (h *Handler) start(ctx context.Context, ev Event) Result {
	switch ev.Source {
	case "resume", "compact":
		return Result{Reason: "session resumed"}
	}
	if err := h.Store.ResetSession(ctx, ev.SessionID); err != nil {
		return Result{Reason: "reset: " + err.Error()}
	}
	h.Store.Expire(h.now())
	reason := "session reset (" + ev.Source + ")"
	if h.Recompile != nil {
		// A new session is when skills were most likely edited: check
		// them all, off the user's clock.
		if err := h.Recompile(); err != nil {
			reason += "; catalog check: " + err.Error()
		}
	}
	return Result{Reason: reason}
}

// hash is the hash of a prompt (or an id) as every file records it.
func hash(s string) string { return prefs.Hash(s) }

func decisionID(ev Event, now time.Time) string {
	if ev.PromptID != "" {
		return ev.PromptID
	}
	return hash(fmt.Sprintf("%s\x00%s\x00%d", ev.SessionID, ev.Prompt, now.UnixNano()))
}
