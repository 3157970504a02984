package action

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/internal/jsonlite/jsontest"
)

// trajectoryFields is Trajectory without its MarshalJSON: what
// encoding/json writes by reflection.
type trajectoryFields Trajectory

// A decision line is written as encoding/json writes it: every field
// set (jsontest.Fill, so that a field added to any of the line's types
// and not to its encoder fails here), and the members a filled value
// omits or leaves null.
func TestTrajectoryJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var cases []Trajectory
	for range 20 {
		var tr Trajectory
		jsontest.Fill(&tr, rng)
		cases = append(cases, tr)
	}
	cases = append(cases, Trajectory{}, Trajectory{Decision: Decision{Breakdown: &Breakdown{}}},
		Trajectory{Input: Input{Candidates: []Candidate{}}, Decision: Decision{Steps: []Step{}, Breakdown: &Breakdown{Cues: []Matched{{}}, Scores: []Scored{{}}}}})
	for _, tr := range cases {
		want, err := json.Marshal(trajectoryFields(tr))
		require.NoError(t, err)
		got, err := json.Marshal(tr)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
}
