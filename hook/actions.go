package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/router"
)

// The action layer (package action) decides, after the router, what to
// put in front of the model at all: the routed skill, remembered facts, a
// declared tool, a one-line suggestion to ask the user first, a composite
// of these, or nothing. With Handler.Actions set the hook injects what it
// decides and logs each decision as a trajectory in the state folder, to
// which the tool calls of the turn are attached (toolEvent); without it
// the hook injects the skill line alone, as the router decided.

// inject decides what to inject for a routed prompt: the text ("" for
// nothing), why nothing when nothing, and the trajectory to log (nil
// without the action layer).
func (h *Handler) inject(ev Event, prompt string, d router.Decision, id string, now time.Time, pre prepared) (text, reason string, traj *action.Trajectory) {
	if h.Actions == nil {
		switch {
		case d.Closing:
			return "", "closing turn: no skill needed", nil
		case d.Skill == "":
			return "", fmt.Sprintf("abstained (confidence %.2f)", d.Confidence), nil
		}
		return describe(d), "", nil
	}
	layer, err := pre.layer, pre.err
	if err != nil {
		// A broken memories or tools file must not cost the skill line.
		text, reason, _ = (&Handler{}).inject(ev, prompt, d, id, now, prepared{})
		return text, strings.TrimSuffix("action layer: "+err.Error()+"; "+reason, "; "), nil
	}
	var names []string
	for _, t := range layer.Tools() {
		names = append(names, t.Name)
	}
	failures := action.FailureKeys(pre.failures, names)
	in, dec := layer.Decide(prompt, d, action.Context{ID: id, Cwd: ev.Cwd, Now: now, Failures: failures})
	text = Injection(d, in, dec)
	logged := in
	if h.Store.HashPrompts {
		// log_prompts: false keeps no prompt text here either: not the
		// prompt, nor the words of it a candidate matched.
		logged.Prompt = ""
		logged.Candidates = slices.Clone(in.Candidates)
		for i := range logged.Candidates {
			logged.Candidates[i].Evidence = nil
		}
	}
	traj = &action.Trajectory{ID: id, Session: ev.SessionID, Time: now, Router: layer.RouterName(),
		RouterVersion: layer.RouterVersion(), TableVersion: layer.Policy.TableVersion(), Input: logged, Decision: dec,
		Tokens: action.TextTokens(text)}
	if text == "" {
		reason = "action " + dec.Action
		if d.Closing {
			reason += " (closing turn)"
		} else if d.Skill == "" {
			reason += fmt.Sprintf(" (router abstained, confidence %.2f)", d.Confidence)
		}
	}
	return text, reason, traj
}

// prepared is what the action layer needs of a prompt besides its route:
// the layer (its memories, tools and policy) and the session's recent
// failures.
type prepared struct {
	layer    *action.Layer
	err      error
	failures []action.ToolEvent
}

// prepare reads what the action layer needs, before the router loads:
// none of it depends on the route. A panic in it becomes the layer's
// error: the skill line stands.
func (h *Handler) prepare(ev Event, now time.Time) prepared {
	return recovered(func() (pre prepared) {
		if pre.layer, pre.err = h.Actions(ev.Cwd); pre.err != nil {
			return pre
		}
		pre.failures = action.RecentFailures(h.Store.Dir, ev.SessionID, now)
		return pre
	}, func(p any) prepared { return prepared{err: fmt.Errorf("panic: %v", p)} })
}

// Injection is the text the hook injects for an action decision: the
// router's skill line for a skill step, the layer's lines for the rest,
// cut to MaxContext.
func Injection(d router.Decision, in action.Input, dec action.Decision) string {
	skillLine := ""
	if d.Skill != "" && len(d.Candidates) > 0 {
		skillLine = describe(d)
	}
	return cut(action.Emit(dec, in, skillLine), MaxContext)
}

// toolEvent attaches a tool call (PostToolUse, PostToolUseFailure, or a
// typed /command) to the session's latest decision, for replay and the
// policy's outcomes. Nothing without the action layer.
func (h *Handler) toolEvent(ctx context.Context, ev Event, p *peek) {
	if h.Actions == nil {
		return
	}
	f, _ := p.session(h.Store, ev.SessionID)
	if f == nil || f.Last == nil {
		return // no decision in this session to attach it to
	}
	e := action.ToolEvent{Decision: f.Last.ID, Session: ev.SessionID, Time: h.now(), Tool: ev.ToolName, OK: true}
	switch ev.HookEventName {
	case "PostToolUseFailure":
		e.OK = false
	case "UserPromptExpansion":
		e.Tool = "/" + ev.CommandName
	default:
		e.OK = succeeded(ev.ToolResponse)
	}
	if ev.ToolName == "Skill" {
		e.Ref = skillOf(ev.ToolInput)
	}
	_ = action.LogToolEvent(ctx, h.Store.Dir, e)
}

// succeeded reads a tool response's own verdict: "success": false,
// "is_error": true or an MCP tool result's "isError": true mark a
// failure; anything else (most tools say nothing) is a success, as
// Claude Code sends failures as PostToolUseFailure.
func succeeded(raw json.RawMessage) bool {
	var r struct {
		Success    *bool `json:"success"`
		IsError    bool  `json:"is_error"`
		MCPIsError bool  `json:"isError"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return true
	}
	return !r.IsError && !r.MCPIsError && (r.Success == nil || *r.Success)
}
