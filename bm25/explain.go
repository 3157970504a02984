package bm25

import (
	"fmt"
	"strings"
)

// Explanation says how a score came about: its value, what it is, and the
// parts it was made of. Every stage after BM25 adds to the same tree, so
// `skillroute route --explain` shows exactly why a skill won.
type Explanation struct {
	Value    float64        `json:"value"`
	Message  string         `json:"message"`
	Children []*Explanation `json:"children,omitempty"`
}

// String renders the tree indented, one node a line.
func (e *Explanation) String() string {
	var b strings.Builder
	e.write(&b, 0)
	return b.String()
}

func (e *Explanation) write(b *strings.Builder, depth int) {
	fmt.Fprintf(b, "%s%.4f  %s\n", strings.Repeat("  ", depth), e.Value, e.Message)
	for _, c := range e.Children {
		c.write(b, depth+1)
	}
}
