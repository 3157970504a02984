package action

import "github.com/skillroute/skillroute/internal/jsonlite"

// MarshalJSON writes a decision line as json.Marshal would, by hand
// (package jsonlite): the hook writes one per prompt, in a fresh process
// each time, and encoding/json's reflection over the line's nine types
// was 3 % of a hook process (perf record of 200 prompt events at 50
// skills). TestTrajectoryJSON holds every field to encoding/json's bytes.
func (t Trajectory) MarshalJSON() ([]byte, error) {
	o := jsonlite.Begin(make([]byte, 0, 2048))
	o.String("kind", t.Kind)
	o.String("id", t.ID)
	o.String("session", t.Session)
	o.Time("time", t.Time)
	o.String("router", t.Router)
	o.String("router_version", t.RouterVersion)
	o.String("table_version", t.TableVersion)
	o.Key("input")
	o.SetBuffer(t.Input.appendJSON(o.Buffer()))
	o.Key("decision")
	o.SetBuffer(t.Decision.appendJSON(o.Buffer()))
	o.Int("tokens", int64(t.Tokens))
	return o.End()
}

func (in *Input) appendJSON(b []byte) ([]byte, error) {
	o := jsonlite.Begin(b)
	o.StringOmit("id", in.ID)
	o.String("prompt", in.Prompt)
	o.String("category", in.Category)
	o.String("skill", in.Skill)
	o.BoolOmit("closing", in.Closing)
	o.Key("candidates")
	o.SetBuffer(appendList(o.Buffer(), in.Candidates, (*Candidate).appendJSON))
	o.StringsOmit("failures", in.Failures)
	return o.End()
}

func (c *Candidate) appendJSON(b []byte) ([]byte, error) {
	o := jsonlite.Begin(b)
	o.String("type", c.Type)
	o.String("ref", c.Ref)
	o.Float("confidence", c.Confidence)
	o.Float("success_rate", c.SuccessRate)
	o.Float("cost", c.Cost)
	o.Float("freshness", c.Freshness)
	o.Float("risk", c.Risk)
	o.StringsOmit("preconditions", c.Preconditions)
	o.StringsOmit("evidence", c.Evidence)
	o.Int("tokens", int64(c.Tokens))
	return o.End()
}

func (d *Decision) appendJSON(b []byte) ([]byte, error) {
	o := jsonlite.Begin(b)
	o.String("action", d.Action)
	if len(d.Steps) > 0 {
		o.Key("steps")
		o.SetBuffer(appendList(o.Buffer(), d.Steps, (*Step).appendJSON))
	}
	o.StringOmit("question", d.Question)
	o.FloatOmit("propensity", d.Propensity)
	if d.Breakdown != nil {
		o.Key("breakdown")
		o.SetBuffer(d.Breakdown.appendJSON(o.Buffer()))
	}
	return o.End()
}

func (s *Step) appendJSON(b []byte) ([]byte, error) {
	o := jsonlite.Begin(b)
	o.String("action", s.Action)
	o.String("ref", s.Ref)
	return o.End()
}

func (bd *Breakdown) appendJSON(b []byte) ([]byte, error) {
	o := jsonlite.Begin(b)
	o.String("router", bd.Router)
	o.String("version", bd.Version)
	if len(bd.Cues) > 0 {
		o.Key("cues")
		o.SetBuffer(appendList(o.Buffer(), bd.Cues, (*Matched).appendJSON))
	}
	if len(bd.Scores) > 0 {
		o.Key("scores")
		o.SetBuffer(appendList(o.Buffer(), bd.Scores, (*Scored).appendJSON))
	}
	o.Strings("reasons", bd.Reasons)
	return o.End()
}

func (m *Matched) appendJSON(b []byte) ([]byte, error) {
	o := jsonlite.Begin(b)
	o.String("set", m.Set)
	o.Strings("cues", m.Cues)
	return o.End()
}

func (s *Scored) appendJSON(b []byte) ([]byte, error) {
	o := jsonlite.Begin(b)
	o.String("type", s.Type)
	o.String("ref", s.Ref)
	o.Float("score", s.Score)
	o.Float("bar", s.Bar)
	o.Bool("passed", s.Passed)
	if len(s.Features) > 0 {
		o.Key("features")
		o.SetBuffer(appendList(o.Buffer(), s.Features, (*Contribution).appendJSON))
	}
	o.StringsOmit("reasons", s.Reasons)
	return o.End()
}

func (c *Contribution) appendJSON(b []byte) ([]byte, error) {
	o := jsonlite.Begin(b)
	o.String("feature", c.Feature)
	o.Float("value", c.Value)
	o.Float("weight", c.Weight)
	o.Float("contribution", c.Contribution)
	return o.End()
}

// appendList writes a list of values with their appendJSON; nil is null,
// as encoding/json writes a nil slice.
func appendList[T any](b []byte, list []T, appendJSON func(*T, []byte) ([]byte, error)) ([]byte, error) {
	if list == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendJSON(&list[i], b); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}
