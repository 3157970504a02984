// Package explain is the explanation a score carries: its value, what it
// is, and the parts it was made of. BM25 builds the first level (one node a
// matched term, one below it a field); every later stage of the router
// wraps the node in one of its own (session context, a rule's boost, the
// calibration prior), so `skillroute route --explain` shows, top to
// bottom, exactly how the final score came about.
//
// It sits below every stage and imports nothing of this project, so that
// no stage has to import another for the type.
package explain

import (
	"fmt"
	"strings"
)

// Node is one step of a score: its value, what it is, and the parts it
// was made of.
type Node struct {
	Value    float64 `json:"value"`
	Message  string  `json:"message"`
	Children []*Node `json:"children,omitempty"`
}

// Wrap returns a node for value that says msg and holds child (none when
// child is nil): how a stage records that it changed a score.
func Wrap(value float64, msg string, child *Node) *Node {
	n := &Node{Value: value, Message: msg}
	if child != nil {
		n.Children = []*Node{child}
	}
	return n
}

// String renders the tree indented, one node a line.
func (n *Node) String() string {
	var b strings.Builder
	n.write(&b, 0)
	return b.String()
}

func (n *Node) write(b *strings.Builder, depth int) {
	fmt.Fprintf(b, "%s%.4f  %s\n", strings.Repeat("  ", depth), n.Value, n.Message)
	for _, c := range n.Children {
		c.write(b, depth+1)
	}
}
