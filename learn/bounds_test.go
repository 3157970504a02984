package learn_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillroute/skillroute/learn"
)

// TestMaxDeltas protects pruned scoring with learned weights: the bounds
// it widens by are the largest deltas held, and nothing widens them when
// nothing was learned or only lowered.
func TestMaxDeltas(t *testing.T) {
	var none *learn.Weights
	kw, sk := none.MaxDeltas()
	assert.Zero(t, kw)
	assert.Zero(t, sk)

	w := &learn.Weights{
		Keyword: map[string]map[string]float64{"a": {"x": 0.2, "y": -0.4}, "b": {"z": 0.45}},
		Skill:   map[string]float64{"a": -0.3, "b": 0.1},
	}
	kw, sk = w.MaxDeltas()
	assert.Equal(t, 0.45, kw)
	assert.Equal(t, 0.1, sk)

	lowered := &learn.Weights{Keyword: map[string]map[string]float64{"a": {"x": -0.2}}, Skill: map[string]float64{"a": -0.1}}
	kw, sk = lowered.MaxDeltas()
	assert.Zero(t, kw)
	assert.Zero(t, sk)
}
