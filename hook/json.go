package hook

import (
	"encoding/json"

	"github.com/skillroute/skillroute/internal/jsonlite"
	"github.com/skillroute/skillroute/learn/memory"
)

// The JSON a prompt's hook reads and writes (the event, the session file,
// the decision line) is encoded and decoded by hand (package jsonlite),
// as encoding/json would: its reflection over each type, done afresh in
// every hook process, was 4 % of one (perf record of 200 prompt events).
// TestJSONAsEncodingJSON holds every field to encoding/json's bytes and
// values.

// UnmarshalJSON reads an event as json.Unmarshal would read it into the
// struct's fields (tool_input and tool_response kept raw).
func (ev *Event) UnmarshalJSON(data []byte) error {
	d := jsonlite.NewDecoder(data)
	err := d.Object(func(key []byte) error {
		switch {
		case jsonlite.Match(key, "session_id"):
			return d.String(&ev.SessionID)
		case jsonlite.Match(key, "prompt_id"):
			return d.String(&ev.PromptID)
		case jsonlite.Match(key, "cwd"):
			return d.String(&ev.Cwd)
		case jsonlite.Match(key, "hook_event_name"):
			return d.String(&ev.HookEventName)
		case jsonlite.Match(key, "prompt"):
			return d.String(&ev.Prompt)
		case jsonlite.Match(key, "source"):
			return d.String(&ev.Source)
		case jsonlite.Match(key, "tool_name"):
			return d.String(&ev.ToolName)
		case jsonlite.Match(key, "tool_input"):
			return raw(d, &ev.ToolInput)
		case jsonlite.Match(key, "tool_response"):
			return raw(d, &ev.ToolResponse)
		case jsonlite.Match(key, "expansion_type"):
			return d.String(&ev.ExpansionType)
		case jsonlite.Match(key, "command_name"):
			return d.String(&ev.CommandName)
		case jsonlite.Match(key, "command_args"):
			return d.String(&ev.CommandArgs)
		case jsonlite.Match(key, "tool_use_id"):
			return d.String(&ev.ToolUseID)
		}
		return d.Skip()
	})
	if err != nil {
		return err
	}
	return d.End()
}

// raw reads a value into a json.RawMessage, a copy of its bytes.
func raw(d *jsonlite.Decoder, m *json.RawMessage) error {
	b, err := d.Raw()
	*m = append((*m)[:0], b...)
	return err
}

// MarshalJSON writes a decision line as json.Marshal would.
func (d Decision) MarshalJSON() ([]byte, error) {
	o := jsonlite.Begin(make([]byte, 0, 256))
	o.String("id", d.ID)
	o.String("session", d.Session)
	o.String("prompt_hash", d.PromptHash)
	o.String("skill", d.Skill)
	o.Float("confidence", d.Confidence)
	o.Time("time", d.Time)
	return o.End()
}

// MarshalJSON writes a session file's data as json.Marshal would: the
// session's fields, then the last decision.
func (f SessionFile) MarshalJSON() ([]byte, error) {
	o := jsonlite.Begin(make([]byte, 0, 1024))
	s := &f.Session
	o.String("id", s.ID)
	o.Strings("recent", s.Recent)
	o.Time("updated", s.Updated)
	o.StringsOmit("project", s.Project)
	o.StringOmit("project_dir", s.ProjectDir)
	o.Time("project_at", s.ProjectAt) // omitempty keeps a struct
	if l := f.Last; l != nil {
		o.Key("last")
		o.SetBuffer(l.appendJSON(o.Buffer()))
	}
	return o.End()
}

func (l *LastDecision) appendJSON(b []byte) ([]byte, error) {
	o := jsonlite.Begin(b)
	o.String("id", l.ID)
	o.String("query", l.Query)
	o.StringOmit("query_hash", l.QueryHash)
	o.String("skill", l.Skill)
	o.Float("confidence", l.Confidence)
	o.Time("time", l.Time)
	o.IntOmit("cost", int64(l.Cost))
	o.BoolOmit("answered", l.Answered)
	if len(l.Terms) > 0 {
		o.Key("terms")
		b := append(o.Buffer(), '[')
		var err error
		for i, t := range l.Terms {
			if i > 0 {
				b = append(b, ',')
			}
			term := jsonlite.Begin(b)
			term.Uint("h", t.Hash)
			term.Float32("w", t.Weight)
			if b, err = term.End(); err != nil {
				break
			}
		}
		o.SetBuffer(append(b, ']'), err)
	}
	return o.End()
}

// UnmarshalJSON reads a session file's data as json.Unmarshal would
// read it into the struct: the fields it holds are set, the others kept.
func (f *SessionFile) UnmarshalJSON(data []byte) error {
	d := jsonlite.NewDecoder(data)
	s := &f.Session
	err := d.Object(func(key []byte) error {
		switch {
		case jsonlite.Match(key, "id"):
			return d.String(&s.ID)
		case jsonlite.Match(key, "recent"):
			return d.Strings(&s.Recent)
		case jsonlite.Match(key, "updated"):
			return d.Time(&s.Updated)
		case jsonlite.Match(key, "project"):
			return d.Strings(&s.Project)
		case jsonlite.Match(key, "project_dir"):
			return d.String(&s.ProjectDir)
		case jsonlite.Match(key, "project_at"):
			return d.Time(&s.ProjectAt)
		case jsonlite.Match(key, "last"):
			if null, err := d.Null(); null || err != nil {
				f.Last = nil
				return err
			}
			if f.Last == nil {
				f.Last = &LastDecision{}
			}
			return f.Last.decode(d)
		}
		return d.Skip()
	})
	if err != nil {
		return err
	}
	return d.End()
}

func (l *LastDecision) decode(d *jsonlite.Decoder) error {
	return d.Object(func(key []byte) error {
		switch {
		case jsonlite.Match(key, "id"):
			return d.String(&l.ID)
		case jsonlite.Match(key, "query"):
			return d.String(&l.Query)
		case jsonlite.Match(key, "query_hash"):
			return d.String(&l.QueryHash)
		case jsonlite.Match(key, "skill"):
			return d.String(&l.Skill)
		case jsonlite.Match(key, "confidence"):
			return d.Float(&l.Confidence, 64)
		case jsonlite.Match(key, "time"):
			return d.Time(&l.Time)
		case jsonlite.Match(key, "cost"):
			n := int64(l.Cost)
			err := d.Int(&n)
			l.Cost = int(n)
			return err
		case jsonlite.Match(key, "answered"):
			return d.Bool(&l.Answered)
		case jsonlite.Match(key, "terms"):
			if null, err := d.Null(); null || err != nil {
				l.Terms = nil
				return err
			}
			terms := memory.Vector{}
			err := d.Array(func() error {
				var t memory.Term
				err := d.Object(func(key []byte) error {
					switch {
					case jsonlite.Match(key, "h"):
						return d.Uint(&t.Hash)
					case jsonlite.Match(key, "w"):
						w := float64(t.Weight)
						err := d.Float(&w, 32)
						t.Weight = float32(w)
						return err
					}
					return d.Skip()
				})
				terms = append(terms, t)
				return err
			})
			if err == nil {
				l.Terms = terms
			}
			return err
		}
		return d.Skip()
	})
}
