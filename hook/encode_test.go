package hook

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/skillroute/skillroute/internal/jsonenc/jsontest"
)

// TestSessionAsMarshal: the session file the hook writes holds the bytes
// json.Marshal gives for the same session, for sessions with every field
// set (odd strings, numbers at the exponent form's bounds, term hashes
// past 2^53) or left empty: files written before and after read the same.
func TestSessionAsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 3000 {
		var f SessionFile
		jsontest.Fill(&f, rng, 1+i%6)
		want, err := json.Marshal(&f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalSession(&f)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("session %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestDecisionAsMarshal: the same for the decisions.jsonl line.
func TestDecisionAsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 1000 {
		var d Decision
		jsontest.Fill(&d, rng, 1+i%6)
		want, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalDecision(d)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("decision %d:\n got %s\nwant %s", i, got, want)
		}
	}
	if line, err := marshalDecision(Decision{Confidence: math.Inf(1)}); err == nil {
		t.Fatalf("encoded %s, want json.Marshal's refusal", line)
	}
}

// TestContextOutputAsMarshal: the hook's answer quotes the injected line
// as json.Marshal does, so that Claude Code reads the text unchanged.
func TestContextOutputAsMarshal(t *testing.T) {
	for _, s := range jsontest.Strings {
		quoted, _ := json.Marshal(s)
		want := `{"hookSpecificOutput":{"additionalContext":` + string(quoted) + `,"hookEventName":"UserPromptSubmit"}}`
		if got := string(contextOutput(s)); got != want {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}
