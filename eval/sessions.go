package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/router"
)

// RouteSessions replays multi-turn sessions through the hook's own code
// path: each session gets a temporary project folder holding its marker
// files and a fresh state folder; each turn is a UserPromptSubmit event,
// and the turn's expected skill then counts as used (a PostToolUse event of
// the Skill tool), as if the user had followed the right route. Without
// context every turn is routed on its own, for comparison.
func RouteSessions(r *router.Router, sessions []Session, withContext bool) ([]Outcome, error) {
	var out []Outcome
	for _, s := range sessions {
		if !withContext {
			for _, t := range s.Turns {
				start := time.Now()
				d := r.Route(t.Query)
				out = append(out, outcome(t, d, time.Since(start)))
			}
			continue
		}
		outs, err := replay(r, s)
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", s.ID, err)
		}
		out = append(out, outs...)
	}
	return out, nil
}

func replay(r *router.Router, s Session) ([]Outcome, error) {
	project, err := os.MkdirTemp("", "skillroute-project-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(project)
	stateDir, err := os.MkdirTemp("", "skillroute-state-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stateDir)
	// A repository root, as projects are: detection walks up to it and no
	// further, so nothing in the temp folder's parents counts.
	if err := os.Mkdir(filepath.Join(project, ".git"), 0o755); err != nil {
		return nil, err
	}
	for _, f := range s.ProjectFiles {
		path := filepath.Join(project, filepath.FromSlash(f))
		if !strings.HasPrefix(path, project+string(filepath.Separator)) {
			return nil, fmt.Errorf("project file %q leaves the project folder", f)
		}
		if strings.HasSuffix(f, "/") {
			err = os.MkdirAll(path, 0o755)
		} else if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			err = os.WriteFile(path, nil, 0o644)
		}
		if err != nil {
			return nil, err
		}
	}
	h := &hook.Handler{Store: &hook.Store{Dir: stateDir}, Open: func() (*router.Router, error) { return r, nil }}
	ctx := context.Background()
	send := func(ev map[string]any) hook.Result {
		ev["session_id"] = s.ID
		ev["cwd"] = project
		data, _ := json.Marshal(ev)
		return h.Handle(ctx, data)
	}
	var out []Outcome
	for _, t := range s.Turns {
		start := time.Now()
		res := send(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": t.Query})
		lat := time.Since(start)
		var d router.Decision
		if res.Decision != nil {
			d = *res.Decision
		}
		out = append(out, outcome(t, d, lat))
		if t.Expected != None {
			send(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Skill",
				"tool_input": map[string]string{"skill": t.Expected}})
		}
	}
	return out, nil
}
