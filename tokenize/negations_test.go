package tokenize_test

import (
	"strings"
	"testing"

	"github.com/skillroute/skillroute/tokenize"
	"github.com/stretchr/testify/assert"
)

func TestNegations(t *testing.T) {
	cases := []struct {
		text, word string
		negated    bool
	}{
		{"don't run anything, just tell me", "run", true},
		{"don't run anything, just tell me", "don't", false},
		{"don't run anything, just tell me", "tell", false},
		{"先别执行任何命令，直接告诉我", "执行", true},
		{"先别执行任何命令，直接告诉我", "告诉", false},
		{"without docker compose", "docker", true},
		{"the deploy does not load", "load", false},
		{"区别在哪", "在哪", false},
	}
	for _, c := range cases {
		negated := tokenize.Negations(c.text)
		assert.Equal(t, c.negated, negated(strings.Index(c.text, c.word)), "%q in %q", c.word, c.text)
	}
}
