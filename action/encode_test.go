package action

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/skillroute/skillroute/internal/jsonenc/jsontest"
)

// TestTrajectoryLineAsMarshal: the decision line the hook appends is the
// bytes json.Marshal gives for the same trajectory, for trajectories with
// every field set (odd strings, numbers at the exponent form's bounds) or
// left empty, so that replay and the logs written before read it the
// same.
func TestTrajectoryLineAsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 3000 {
		var tr Trajectory
		jsontest.Fill(&tr, rng, 1+i%6)
		tr.Events = nil
		want, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalTrajectory(tr)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("trajectory %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestTrajectoryLineRefusesNaN: a score json.Marshal cannot write fails
// the line, as it did, rather than logging a line replay cannot read.
func TestTrajectoryLineRefusesNaN(t *testing.T) {
	tr := Trajectory{Kind: KindDecision, Input: Input{Candidates: []Candidate{{Confidence: math.NaN()}}}}
	if line, err := marshalTrajectory(tr); err == nil {
		t.Fatalf("encoded %s", line)
	}
}
