package router

import (
	sctx "github.com/skillroute/skillroute/context"
)

// Session is what the router knows of the conversation a prompt comes
// in: a snapshot its caller builds (the hook from its state folder, eval
// in memory), so that routing reads no file. The zero Session is a prompt
// on its own.
type Session struct {
	// Recent are the skills the session used, oldest first, by whatever
	// name Claude Code reported ("skillroute:x" or "x").
	Recent []string
	// Project are the project types of the working folder
	// (sctx.DetectProject); nil when unknown.
	Project []string
	// Workflow is the skill sequences seen across sessions; nil for none.
	Workflow *sctx.Workflow
}

// Signals are the session's evidence besides the prompt, as scores in
// [0, 1] per skill (by catalog name), built from a Session by the signals
// stage.
type Signals struct {
	Context  map[string]float64 // the recent skills and what they enhance
	Project  map[string]float64 // skills the project's type favours
	Workflow map[string]float64 // the next skill predicted from past sequences
}

// gatherSignals builds every session signal, in one place, from the
// snapshot. A continuation, or a prompt too weak to route on its own
// ("帮我优化一下"), carries on with the skill in use: its context is that
// skill at full strength, not the spread over what the recent skills
// enhance, which says where a session may go next.
func gatherSignals(r *Router, st *route) {
	s := st.session
	if len(st.recent) > 0 {
		if st.continues || st.weak {
			st.signals.Context = sctx.ContinuationScores(st.recent)
		} else {
			st.signals.Context = sctx.ContextScores(st.recent, r.enhances)
		}
	}
	if s.Workflow != nil && len(s.Recent) > 0 {
		st.signals.Workflow = s.Workflow.Predict(st.recent)
	}
	if len(s.Project) > 0 && r.Projects != nil {
		st.signals.Project = sctx.ProjectScores(s.Project, r.Projects)
	}
}
