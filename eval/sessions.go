package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/router"
)

// RouteSessions replays multi-turn sessions through the router's own
// pipeline with an in-memory session, as the hook keeps it: the project
// type detected from the session's marker files (written to a temporary
// folder), the previous turn's decision, and after each turn its expected
// skill counted as used (in the session window and the workflow
// statistics), as if the user had followed the right route. Without context every turn is routed on its own, for
// comparison.
func RouteSessions(r *router.Router, sessions []Session, withContext bool) ([]Outcome, error) {
	var out []Outcome
	for _, s := range sessions {
		if !withContext {
			for _, t := range s.Turns {
				start := time.Now()
				d := r.Route(t.Query, router.Session{})
				o := outcome(t, d, time.Since(start))
				o.Group = s.ID
				out = append(out, o)
			}
			continue
		}
		outs, err := replay(r, s)
		if err != nil {
			return nil, fmt.Errorf("line %d: session %s: %w", s.Line, s.ID, err)
		}
		out = append(out, outs...)
	}
	return out, nil
}

func replay(r *router.Router, s Session) ([]Outcome, error) {
	types, err := projectTypes(s.ProjectFiles)
	if err != nil {
		return nil, err
	}
	var state sctx.Session
	wf := &sctx.Workflow{}
	var out []Outcome
	var last router.Decision
	for _, t := range s.Turns {
		start := time.Now()
		d := r.Route(t.Query, router.Session{Recent: state.Recent, Project: types, Workflow: wf,
			LastSkill: last.Skill, LastConfidence: last.Confidence})
		last = d
		o := outcome(t, d, time.Since(start))
		o.Group = s.ID
		out = append(out, o)
		if t.Expected != None {
			wf.Observe(state.Recent, t.Expected)
			state.Use(t.Expected, start)
		}
	}
	return out, nil
}

// projectTypes detects the project types of a folder holding the marker
// files (a name ending in "/" is a folder).
func projectTypes(files []string) ([]string, error) {
	project, err := os.MkdirTemp("", "skillroute-project-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(project)
	// A repository root, as projects are: detection walks up to it and no
	// further, so nothing in the temp folder's parents counts.
	if err := os.Mkdir(filepath.Join(project, ".git"), 0o755); err != nil {
		return nil, err
	}
	for _, f := range files {
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
	types := sctx.DetectProject(project, "")
	if types == nil {
		types = []string{}
	}
	return types, nil
}
