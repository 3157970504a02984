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
// The hook must never get in the user's way: whatever happens (malformed
// input, an unknown event, a broken or locked state file, a slow disk) it
// exits 0, prints nothing it is not sure of, and gives up at Deadline. Exit
// code 2 would erase the user's prompt; any other failure code shows an
// error notice. Reasons for silence go to hook.log in the state folder.
package hook

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skillroute/skillroute/router"
)

// Deadline bounds one hook call. Claude Code waits for UserPromptSubmit
// hooks before the model starts: 200 ms is unnoticeable, and far inside the
// 5 s timeout the installer registers.
const Deadline = 200 * time.Millisecond

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
	ExpansionType string          `json:"expansion_type"`
	CommandName   string          `json:"command_name"`
	CommandArgs   string          `json:"command_args"`
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
	Now  func() time.Time
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
}

// Handle processes one event's JSON. It never fails: problems become a
// silent Result with a Reason.
func (h *Handler) Handle(ctx context.Context, input []byte) Result {
	var ev Event
	if len(strings.TrimSpace(string(input))) == 0 {
		return Result{Reason: "empty input"}
	}
	if err := json.Unmarshal(input, &ev); err != nil {
		return Result{Reason: "malformed event: " + err.Error()}
	}
	switch ev.HookEventName {
	case "UserPromptSubmit":
		return h.prompt(ctx, ev)
	case "PostToolUse":
		if ev.ToolName != "Skill" {
			return Result{Reason: "PostToolUse of " + ev.ToolName}
		}
		return h.used(ctx, ev, skillOf(ev.ToolInput), nil)
	case "UserPromptExpansion":
		return h.expansion(ctx, ev)
	case "SessionStart":
		return h.start(ctx, ev)
	case "":
		return Result{Reason: "event without hook_event_name"}
	}
	return Result{Reason: "unhandled event " + ev.HookEventName}
}

// skillOf reads the skill name of a Skill tool call: "skill", or
// "skill_name" as some versions send.
func skillOf(raw json.RawMessage) string {
	var in struct {
		Skill     string `json:"skill"`
		SkillName string `json:"skill_name"`
	}
	_ = json.Unmarshal(raw, &in)
	if in.Skill != "" {
		return in.Skill
	}
	return in.SkillName
}

func (h *Handler) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}

// prompt routes a prompt in its session. The session file is read and
// written once, under its lock, around the route: what the router sees and
// what the next prompt finds are the same state.
func (h *Handler) prompt(ctx context.Context, ev Event) Result {
	text := strings.TrimSpace(ev.Prompt)
	if text == "" {
		return Result{Reason: "empty prompt"}
	}
	if strings.HasPrefix(text, "/") {
		return Result{Reason: "slash command"}
	}
	now := h.now()
	r, err := h.Open()
	if err != nil {
		return Result{Reason: "router: " + err.Error()}
	}
	rec := Decision{ID: decisionID(ev, now), Session: ev.SessionID, PromptHash: hash(text), Time: now.UTC(), Query: text}
	res := Result{}
	routeIn := func(f *SessionFile) {
		d := r.Route(text, h.session(f, ev.Cwd, now))
		res.Decision = &d
		rec.Skill, rec.Confidence = d.Skill, d.Confidence
		switch {
		case d.Closing:
			res.Reason = "closing turn: no skill needed"
		case d.Skill == "":
			res.Reason = fmt.Sprintf("abstained (confidence %.2f)", d.Confidence)
		case h.gone(r, d.Skill):
			res.Reason = fmt.Sprintf("%s was removed since the index was compiled; recompiling", d.Skill)
		default:
			injected := describe(d)
			res.Output = contextOutput(injected)
			rec.Cost = (len(injected) + 3) / 4 // tokens, at about four bytes each
		}
		f.Updated = rec.Time
		f.Last = &LastDecision{ID: rec.ID, Query: d.Query, Skill: rec.Skill, Confidence: rec.Confidence, Time: rec.Time, Cost: rec.Cost}
	}
	if err := h.Store.update(ctx, ev.SessionID, routeIn); err != nil && res.Decision == nil {
		// The session is locked past the deadline or cannot be written:
		// route on what it holds now, and keep nothing.
		f, _ := h.Store.SessionFile(ev.SessionID)
		routeIn(f)
	}
	_ = h.Store.RecordDecision(ctx, rec)
	return res
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
	_, err := os.Stat(r.Index.Skills[id].Source)
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
	s := b.String()
	if len(s) > MaxContext {
		cut := MaxContext
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut-- // never split a character
		}
		s = s[:cut]
	}
	return s
}

func contextOutput(text string) []byte {
	out := map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "UserPromptSubmit", "additionalContext": text}}
	data, _ := json.Marshal(out)
	return data
}

// used records that the session used a skill; about, when set, says
// whether the use is about the routed prompt (see RecordUse).
func (h *Handler) used(ctx context.Context, ev Event, skill string, about func(query string) bool) Result {
	skill = strings.TrimSpace(skill)
	if skill == "" {
		return Result{Reason: "no skill name"}
	}
	same := func(a, b string) bool { return a == b || bare(a) == bare(b) }
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

// bare strips a "plugin:" prefix: the hook recommends "skillroute:x" and
// Claude Code may report "x", or the other way round.
func bare(name string) string {
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}

func decisionID(ev Event, now time.Time) string {
	if ev.PromptID != "" {
		return ev.PromptID
	}
	return hash(fmt.Sprintf("%s\x00%s\x00%d", ev.SessionID, ev.Prompt, now.UnixNano()))
}
