package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every damage changes the file: a corruption that left it as it was
// would count as detected for nothing.
func TestDamageAlwaysChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := bytes.Repeat([]byte("skillroute cache "), 64)
	for range 5000 {
		assert.NotEqual(t, data, damage(rng, data))
	}
	assert.NotEqual(t, []byte{0}, damage(rng, []byte{0}), "even a one-byte file")
}

// A worker's plan holds the events asked for, each a JSON object but the
// deliberately malformed ones, and the records they must leave: a
// decision per prompt, a verdict per Skill use and per typed skill right
// after a prompt.
func TestPlan(t *testing.T) {
	p := newPlan(3, 100)
	assert.Len(t, p.events, 100)
	malformed := 0
	for _, ev := range p.events {
		if !json.Valid([]byte(ev)) {
			malformed++
		}
	}
	assert.Equal(t, 5, malformed, "one in four cycles ends with malformed input")
	assert.Len(t, p.decisions, 40)
	assert.Len(t, p.verdicts, 25)
	seen := map[string]bool{}
	for _, id := range p.decisions {
		assert.False(t, seen[id], "prompt ids are unique: %s", id)
		seen[id] = true
	}
	for _, v := range p.verdicts {
		assert.True(t, seen[v.decision], "a verdict is on a prompt of the plan")
	}
}
