package eval_test

import (
	"strings"
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

// Every damaged line is named by file and line, in words: a line over the
// reader's 16 MiB was "bufio.Scanner: token too long" with no file, a
// project file leaving the session's folder was reported only when the
// session was replayed, as "session s1: ..." with no file or line, and a
// line that is no JSON object printed Go's type of the reader.
func TestReadNamesDamagedLines(t *testing.T) {
	huge := `{"query": "` + strings.Repeat("x", 17<<20) + `", "expected": "none"}`
	for _, c := range []struct {
		lines []string
		want  string
		not   string
	}{
		{[]string{`{"query": "q", "expected": "none"}`, huge}, "cases.jsonl:2: a line over 16 MiB", ""},
		{[]string{`{"id": "s1", "project_files": ["../x"], "turns": [{"query": "q", "expected": "none"}]}`}, `cases.jsonl:1: session s1: project file "../x" leaves the project folder`, ""},
		{[]string{`{"id": "s1", "project_files": [""], "turns": [{"query": "q", "expected": "none"}]}`}, `cases.jsonl:1: session s1: project file "" leaves the project folder`, ""},
		{[]string{`[1, 2]`}, `cases.jsonl:1: want a JSON object`, "struct"},
		{[]string{`"q"`}, `cases.jsonl:1: want a JSON object`, "struct"},
	} {
		_, err := readLines(t, c.lines...)
		assert.ErrorContains(t, err, c.want)
		if err != nil && c.not != "" {
			assert.NotContains(t, err.Error(), c.not)
		}
	}
}
