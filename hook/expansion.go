package hook

import (
	"context"
	"fmt"
	"strings"

	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/router"
)

// Claude Code fires UserPromptExpansion for every typed slash command: a
// skill ("/performance-expert"), a plain command of the user's
// ("/standup", a .claude/commands file) and skillroute's own
// ("/skillroute:wrong") alike, all with command_source "userSettings" or
// "plugin" (seen with Claude Code 2.1.328; e2e/ runs it), and for MCP
// prompts. Only a skill of the hook's catalog is a skill use. Any other
// command is a new request of the user's: it closes the wait for a
// verdict on the last routed prompt, so that a skill the model picks for
// that command is not taken as one.
//
// A typed skill is the user's verdict on the routed prompt only when it is
// about the same request: typed bare right after it ("/debugger-expert"),
// or with arguments that share the routed prompt's terms. "/tester-expert
// add tests for the parser" after a routed question about slow pages is a
// new task, and learning from it as a correction would teach the router
// the wrong thing.

// SameRequestOverlap is the share of terms, of the shorter of the two
// texts, that a typed skill's arguments must share with the routed prompt
// to count as the same request. Half: a restatement ("首屏加载慢" after
// "React 页面加载慢，首屏要 4 秒") shares most of its words, a new task next
// to none (TestTypedSkillVerdict).
const SameRequestOverlap = 0.5

// expansion handles a typed slash command.
func (h *Handler) expansion(ctx context.Context, ev Event, p *peek) Result {
	name := strings.TrimSpace(ev.CommandName)
	notUse := func(why string) Result { return h.notUse(ctx, ev, why, p) }
	if ev.ExpansionType != "" && ev.ExpansionType != "slash_command" {
		return notUse("expansion " + ev.ExpansionType + " " + name)
	}
	if name == "" {
		return notUse("expansion without a command name")
	}
	r, err := h.Open()
	if err != nil {
		return Result{Reason: "router: " + err.Error()}
	}
	id := r.Index.Resolve(name)
	if id < 0 {
		return notUse(fmt.Sprintf("/%s is not a skill of the catalog: no use recorded", cut(name, 64)))
	}
	args := commandArgs(ev)
	return h.used(ctx, ev, r.Index.Skills.Name(id), func(last *LastDecision) bool { return sameRequest(r, last, args) })
}

// commandArgs returns what the user typed after the command's name:
// command_args, or, from a version that sends only the prompt, the prompt
// without its "/name".
func commandArgs(ev Event) string {
	if ev.CommandArgs != "" {
		return strings.TrimSpace(ev.CommandArgs)
	}
	p := strings.TrimSpace(ev.Prompt)
	if !strings.HasPrefix(p, "/") {
		return ""
	}
	if i := strings.IndexAny(p, " \t\n"); i >= 0 {
		return strings.TrimSpace(p[i:])
	}
	return ""
}

// sameRequest reports whether a typed skill's arguments are about the
// routed prompt: none at all, or terms (as the router cuts them: stems,
// Chinese words) shared with it past SameRequestOverlap. With only
// hashes kept (log_prompts: false) the prompt's text is not there: the
// hashes of its words are (LastDecision.Words), and the arguments' words
// are hashed alike.
func sameRequest(r *router.Router, last *LastDecision, args string) bool {
	if args == "" {
		return true
	}
	tok := r.Index.Tokenizer()
	words := tok.Words(args)
	if last.Query == "" && len(last.Words) > 0 {
		return overlaps(setOf(wordHashes(words)), setOf(last.Words))
	}
	return overlaps(setOf(words), setOf(tok.Words(last.Query)))
}

// wordHashes returns the hashes a session keeps of a prompt's words when
// it keeps no text (the prompt memory's term hash).
func wordHashes(words []string) []uint64 {
	out := make([]uint64, len(words))
	for i, w := range words {
		out[i] = memory.Hash(w)
	}
	return out
}

// overlaps reports whether two term sets share SameRequestOverlap of the
// smaller; an empty one (words the router does not read: "ok", "?")
// shares nothing.
func overlaps[T comparable](a, b map[T]bool) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	shared := 0
	for t := range a {
		if b[t] {
			shared++
		}
	}
	return float64(shared) >= SameRequestOverlap*float64(min(len(a), len(b)))
}

func setOf[T comparable](items []T) map[T]bool {
	set := make(map[T]bool, len(items))
	for _, e := range items {
		set[e] = true
	}
	return set
}
