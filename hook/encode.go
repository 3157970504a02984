package hook

import "github.com/skillroute/skillroute/internal/jsonenc"

// The session file and the decision line are encoded by hand, byte for
// byte as json.Marshal encodes them (TestSessionAsMarshal,
// TestDecisionAsMarshal): a hook process writes each once, and
// encoding/json's reflection over their types on first use was 1.4 % of
// its CPU samples (perf record, 200 prompt events at 50 skills).

// marshalSession encodes a session's file as json.Marshal(f) does.
func marshalSession(f *SessionFile) ([]byte, error) {
	e := jsonenc.Buf{}
	e.Raw(`{"id":`)
	e.String(f.ID)
	e.Raw(`,"recent":`)
	e.Strings(f.Recent)
	e.Raw(`,"updated":`)
	e.Time(f.Updated)
	if len(f.Project) > 0 {
		e.Raw(`,"project":`)
		e.Strings(f.Project)
	}
	if f.ProjectDir != "" {
		e.Raw(`,"project_dir":`)
		e.String(f.ProjectDir)
	}
	e.Raw(`,"project_at":`) // omitempty leaves a struct in
	e.Time(f.ProjectAt)
	if l := f.Last; l != nil {
		e.Raw(`,"last":{"id":`)
		e.String(l.ID)
		e.Raw(`,"query":`)
		e.String(l.Query)
		if l.QueryHash != "" {
			e.Raw(`,"query_hash":`)
			e.String(l.QueryHash)
		}
		e.Raw(`,"skill":`)
		e.String(l.Skill)
		e.Raw(`,"confidence":`)
		e.Float64(l.Confidence)
		e.Raw(`,"time":`)
		e.Time(l.Time)
		if l.Cost != 0 {
			e.Raw(`,"cost":`)
			e.Int(int64(l.Cost))
		}
		if l.Answered {
			e.Raw(`,"answered":true`)
		}
		if len(l.Terms) > 0 {
			e.Raw(`,"terms":`)
			e.List(len(l.Terms), func(i int) {
				e.Raw(`{"h":`)
				e.Uint(l.Terms[i].Hash)
				e.Raw(`,"w":`)
				e.Float32(l.Terms[i].Weight)
				e.Raw(`}`)
			})
		}
		if len(l.Words) > 0 {
			e.Raw(`,"words":`)
			e.List(len(l.Words), func(i int) { e.Uint(l.Words[i]) })
		}
		e.Raw(`}`)
	}
	e.Raw(`}`)
	return e.Bytes()
}

// marshalDecision encodes a decisions.jsonl line as json.Marshal(d) does.
func marshalDecision(d Decision) ([]byte, error) {
	e := jsonenc.Buf{}
	e.Raw(`{"id":`)
	e.String(d.ID)
	e.Raw(`,"session":`)
	e.String(d.Session)
	e.Raw(`,"prompt_hash":`)
	e.String(d.PromptHash)
	e.Raw(`,"skill":`)
	e.String(d.Skill)
	e.Raw(`,"confidence":`)
	e.Float64(d.Confidence)
	e.Raw(`,"time":`)
	e.Time(d.Time)
	e.Raw(`}`)
	return e.Bytes()
}
