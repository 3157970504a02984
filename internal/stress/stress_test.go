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

// A kill may cut a record short, on a line of its own; anything else in a
// log is damage the store must never leave.
func TestLineState(t *testing.T) {
	record := `{"time":"2026-12-04T18:00:00Z","id":"k1-1","skill":"git-expert"}`
	tests := []struct {
		line string
		want int
	}{
		{"", lineWhole},
		{record, lineWhole},
		{record[:1], lineTorn},
		{record[:30], lineTorn},
		{record[:len(record)-1], lineTorn},
		{record[:30] + record, lineDamaged}, // a cut record ran into the next
		{record + record, lineDamaged},
		{`"time":"2026"}`, lineDamaged}, // the end of a record, not its start
		{"\x00\x00\x00", lineDamaged},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, lineState([]byte(tt.line)), "%q", tt.line)
	}
}
