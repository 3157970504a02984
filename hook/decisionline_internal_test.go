package hook

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The decision line is the bytes encoding/json writes for the Decision,
// whatever its strings hold (HTML, quotes, control characters, invalid
// UTF-8, line separators) and whatever its confidence and time, and fails
// where encoding/json fails.
func TestDecisionLineAsMarshal(t *testing.T) {
	at := time.Date(2026, 12, 2, 5, 51, 41, 86392319, time.UTC)
	for _, d := range []Decision{
		{},
		{ID: "a3ee85705df15f3d", Session: "bench", PromptHash: "171c13a45a8c0649", Skill: "performance-expert", Confidence: 0.7493, Time: at, Query: "not logged", Cost: 40},
		{ID: "<id>&", Session: "s\"e\\s\n\t\x00\x1f", PromptHash: "\xff\xfe bad utf-8", Skill: "plugin:名前\u2028\u2029", Confidence: 1e-9, Time: at.In(time.FixedZone("x", 3600))},
		{Confidence: 1e21, Time: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Confidence: math.Copysign(0, -1), Time: at.Add(time.Nanosecond)},
		{Confidence: 123456789.125},
	} {
		want, err := json.Marshal(d)
		require.NoError(t, err)
		got, err := decisionLine(d)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
	logged := 0
	for f := range reflect.TypeFor[Decision]().Fields() {
		if f.Tag.Get("json") != "-" {
			logged++
		}
	}
	assert.Equal(t, 6, logged, "a field added to Decision is to be written by decisionLine too")
	for _, d := range []Decision{{Confidence: math.NaN()}, {Confidence: math.Inf(1)}, {Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}} {
		_, want := json.Marshal(d)
		require.Error(t, want)
		_, err := decisionLine(d)
		assert.Error(t, err)
	}
}
