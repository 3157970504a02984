package action

import "github.com/skillroute/skillroute/internal/jsonenc"

// The trajectory's decision line is encoded by hand, byte for byte as
// json.Marshal encodes a Trajectory (TestTrajectoryLineAsMarshal): the
// hook writes one per prompt, and encoding/json's reflection over these
// nine struct types on first use was 4.4 % of a hook process's CPU
// samples (perf record, 200 prompt events at 50 skills).

// marshalTrajectory encodes a decision line as json.Marshal(t) does.
func marshalTrajectory(t Trajectory) ([]byte, error) {
	e := jsonenc.Buf{}
	e.Raw(`{"kind":`)
	e.String(t.Kind)
	e.Raw(`,"id":`)
	e.String(t.ID)
	e.Raw(`,"session":`)
	e.String(t.Session)
	e.Raw(`,"time":`)
	e.Time(t.Time)
	e.Raw(`,"router":`)
	e.String(t.Router)
	e.Raw(`,"router_version":`)
	e.String(t.RouterVersion)
	e.Raw(`,"table_version":`)
	e.String(t.TableVersion)
	e.Raw(`,"input":`)
	t.Input.appendJSON(&e)
	e.Raw(`,"decision":`)
	t.Decision.appendJSON(&e)
	e.Raw(`,"tokens":`)
	e.Int(int64(t.Tokens))
	e.Raw(`}`)
	return e.Bytes()
}

func (in *Input) appendJSON(e *jsonenc.Buf) {
	e.Raw(`{`)
	if in.ID != "" {
		e.Raw(`"id":`)
		e.String(in.ID)
		e.Raw(`,`)
	}
	e.Raw(`"prompt":`)
	e.String(in.Prompt)
	e.Raw(`,"category":`)
	e.String(in.Category)
	e.Raw(`,"skill":`)
	e.String(in.Skill)
	if in.Closing {
		e.Raw(`,"closing":true`)
	}
	e.Raw(`,"candidates":`)
	if in.Candidates == nil {
		e.Raw(`null`)
	} else {
		e.List(len(in.Candidates), func(i int) { in.Candidates[i].appendJSON(e) })
	}
	if len(in.Failures) > 0 {
		e.Raw(`,"failures":`)
		e.Strings(in.Failures)
	}
	e.Raw(`}`)
}

func (c *Candidate) appendJSON(e *jsonenc.Buf) {
	e.Raw(`{"type":`)
	e.String(c.Type)
	e.Raw(`,"ref":`)
	e.String(c.Ref)
	e.Raw(`,"confidence":`)
	e.Float64(c.Confidence)
	e.Raw(`,"success_rate":`)
	e.Float64(c.SuccessRate)
	e.Raw(`,"cost":`)
	e.Float64(c.Cost)
	e.Raw(`,"freshness":`)
	e.Float64(c.Freshness)
	e.Raw(`,"risk":`)
	e.Float64(c.Risk)
	if len(c.Preconditions) > 0 {
		e.Raw(`,"preconditions":`)
		e.Strings(c.Preconditions)
	}
	if len(c.Evidence) > 0 {
		e.Raw(`,"evidence":`)
		e.Strings(c.Evidence)
	}
	e.Raw(`,"tokens":`)
	e.Int(int64(c.Tokens))
	e.Raw(`}`)
}

func (d *Decision) appendJSON(e *jsonenc.Buf) {
	e.Raw(`{"action":`)
	e.String(d.Action)
	if len(d.Steps) > 0 {
		e.Raw(`,"steps":`)
		e.List(len(d.Steps), func(i int) {
			e.Raw(`{"action":`)
			e.String(d.Steps[i].Action)
			e.Raw(`,"ref":`)
			e.String(d.Steps[i].Ref)
			e.Raw(`}`)
		})
	}
	if d.Question != "" {
		e.Raw(`,"question":`)
		e.String(d.Question)
	}
	if d.Propensity != 0 {
		e.Raw(`,"propensity":`)
		e.Float64(d.Propensity)
	}
	if d.Breakdown != nil {
		e.Raw(`,"breakdown":`)
		d.Breakdown.appendJSON(e)
	}
	e.Raw(`}`)
}

func (b *Breakdown) appendJSON(e *jsonenc.Buf) {
	e.Raw(`{"router":`)
	e.String(b.Router)
	e.Raw(`,"version":`)
	e.String(b.Version)
	if len(b.Cues) > 0 {
		e.Raw(`,"cues":`)
		e.List(len(b.Cues), func(i int) {
			e.Raw(`{"set":`)
			e.String(b.Cues[i].Set)
			e.Raw(`,"cues":`)
			e.Strings(b.Cues[i].Cues)
			e.Raw(`}`)
		})
	}
	if len(b.Scores) > 0 {
		e.Raw(`,"scores":`)
		e.List(len(b.Scores), func(i int) { b.Scores[i].appendJSON(e) })
	}
	e.Raw(`,"reasons":`)
	e.Strings(b.Reasons)
	e.Raw(`}`)
}

func (s *Scored) appendJSON(e *jsonenc.Buf) {
	e.Raw(`{"type":`)
	e.String(s.Type)
	e.Raw(`,"ref":`)
	e.String(s.Ref)
	e.Raw(`,"score":`)
	e.Float64(s.Score)
	e.Raw(`,"bar":`)
	e.Float64(s.Bar)
	e.Raw(`,"passed":`)
	e.Bool(s.Passed)
	if len(s.Features) > 0 {
		e.Raw(`,"features":`)
		e.List(len(s.Features), func(i int) {
			f := &s.Features[i]
			e.Raw(`{"feature":`)
			e.String(f.Feature)
			e.Raw(`,"value":`)
			e.Float64(f.Value)
			e.Raw(`,"weight":`)
			e.Float64(f.Weight)
			e.Raw(`,"contribution":`)
			e.Float64(f.Contribution)
			e.Raw(`}`)
		})
	}
	if len(s.Reasons) > 0 {
		e.Raw(`,"reasons":`)
		e.Strings(s.Reasons)
	}
	e.Raw(`}`)
}
