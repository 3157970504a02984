package eval_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A session without turns, or a prompt of white space, is a damaged
// line, named by file and line: a file of empty sessions was "1 sessions,
// 0 turns" with every figure 0 % and exit 0, and a blank prompt scored.
func TestReadRefusesEmptyPrompts(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"id": "s1", "turns": []}`, "cases.jsonl:1: session s1 has no turns"},
		{`{"id": "s1", "turns": null}`, "cases.jsonl:1: session s1 has no turns"},
		{`{"query": "   ", "expected": "none"}`, "cases.jsonl:1: query and expected may not be empty"},
		{`{"query": "q", "expected": " "}`, "cases.jsonl:1: query and expected may not be empty"},
		{`{"id": "s1", "turns": [{"query": "q", "expected": "none"}, {"query": "\t", "expected": "none"}]}`, "cases.jsonl:1: turn 2 needs query and expected"},
	} {
		_, err := readLines(t, c.line)
		assert.ErrorContains(t, err, c.want, c.line)
	}
}

