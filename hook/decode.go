package hook

import (
	"github.com/skillroute/skillroute/internal/jsondec"
	"github.com/skillroute/skillroute/learn/memory"
)

// The event and the session file are decoded without reflection when
// they are of the plain form (package jsondec), as json.Unmarshal would
// decode them (FuzzEventAsUnmarshal, FuzzSessionAsUnmarshal); anything
// else is left to encoding/json. Its reflection over their types was 2.5 %
// of a hook process's CPU samples at 50 skills (perf record, 200 prompt
// events), once the records it writes were encoded by hand.

// decodeEvent decodes an event as json.Unmarshal(data, ev) would, or
// reports false, having left ev as it was.
func decodeEvent(data []byte, ev *Event) bool {
	var e Event
	d := jsondec.New(data)
	o := d.Object("session_id", "prompt_id", "cwd", "hook_event_name", "prompt", "source", "tool_name",
		"tool_input", "tool_response", "expansion_type", "command_name", "command_args", "tool_use_id")
	for k, ok := o.Next(); ok; k, ok = o.Next() {
		switch k {
		case 0:
			e.SessionID = d.String()
		case 1:
			e.PromptID = d.String()
		case 2:
			e.Cwd = d.String()
		case 3:
			e.HookEventName = d.String()
		case 4:
			e.Prompt = d.String()
		case 5:
			e.Source = d.String()
		case 6:
			e.ToolName = d.String()
		case 7:
			e.ToolInput = d.Raw()
		case 8:
			e.ToolResponse = d.Raw()
		case 9:
			e.ExpansionType = d.String()
		case 10:
			e.CommandName = d.String()
		case 11:
			e.CommandArgs = d.String()
		case 12:
			e.ToolUseID = d.String()
		}
	}
	if !d.Done() {
		return false
	}
	*ev = e
	return true
}

// DecodeJSON decodes a session file's data as json.Unmarshal would into
// f, or reports false, having left f as it was (store.FastDecoder). Only
// a session without lists or a last decision yet is decoded so (a new
// one, as decodeSession makes): json.Unmarshal decodes into what is there.
func (f *SessionFile) DecodeJSON(data []byte) bool {
	if f.Recent != nil || f.Project != nil || f.Last != nil {
		return false
	}
	g := *f
	d := jsondec.New(data)
	o := d.Object("id", "recent", "updated", "project", "project_dir", "project_at", "last")
	for k, ok := o.Next(); ok; k, ok = o.Next() {
		switch k {
		case 0:
			g.ID = d.String()
		case 1:
			g.Recent = d.Strings()
		case 2:
			g.Updated = d.Time()
		case 3:
			g.Project = d.Strings()
		case 4:
			g.ProjectDir = d.String()
		case 5:
			g.ProjectAt = d.Time()
		case 6:
			if !d.Null() {
				g.Last = decodeLast(d)
			}
		}
	}
	if !d.Done() {
		return false
	}
	*f = g
	return true
}

// decodeLast reads a session's last decision.
func decodeLast(d *jsondec.Decoder) *LastDecision {
	var l LastDecision
	o := d.Object("id", "query", "query_hash", "skill", "confidence", "time", "cost", "answered", "terms", "words")
	for k, ok := o.Next(); ok; k, ok = o.Next() {
		switch k {
		case 0:
			l.ID = d.String()
		case 1:
			l.Query = d.String()
		case 2:
			l.QueryHash = d.String()
		case 3:
			l.Skill = d.String()
		case 4:
			l.Confidence = d.Float64()
		case 5:
			l.Time = d.Time()
		case 6:
			l.Cost = int(d.Int())
		case 7:
			l.Answered = d.Bool()
		case 8:
			if d.Null() {
				break
			}
			l.Terms = memory.Vector{}
			d.List(func() {
				var t memory.Term
				o := d.Object("h", "w")
				for k, ok := o.Next(); ok; k, ok = o.Next() {
					if k == 0 {
						t.Hash = d.Uint()
					} else {
						t.Weight = d.Float32()
					}
				}
				l.Terms = append(l.Terms, t)
			})
		case 9:
			if d.Null() {
				break
			}
			l.Words = []uint64{}
			d.List(func() { l.Words = append(l.Words, d.Uint()) })
		}
	}
	return &l
}
