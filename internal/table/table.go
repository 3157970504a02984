// Package table stores a sorted list of strings as one blob and an offset
// array: two allocations instead of one per string, binary search instead
// of a hash map built at load time. The compiled index keeps its terms,
// trigrams and dictionary this way, so loading it builds nothing.
package table

import (
	"sort"
	"strings"
)

// Strings is a sorted string table. The zero value is empty.
type Strings struct {
	Blob string
	Off  []uint32 // string i is Blob[Off[i]:Off[i+1]]; len(Off) == Len()+1
}

// New builds a table from strings, in the order given: sorted and unique
// for Find; any order for a column read by position (At).
func New(sorted []string) Strings {
	var b strings.Builder
	off := make([]uint32, 0, len(sorted)+1)
	for _, s := range sorted {
		off = append(off, uint32(b.Len()))
		b.WriteString(s)
	}
	off = append(off, uint32(b.Len()))
	return Strings{Blob: b.String(), Off: off}
}

// Len returns the number of strings.
func (t Strings) Len() int {
	if len(t.Off) == 0 {
		return 0
	}
	return len(t.Off) - 1
}

// At returns string i, or "" where the offsets are out of order or
// beyond the blob: a table read from a damaged file is never checked
// whole, so each read is (a comparison, against a panic).
func (t Strings) At(i int) string {
	from, to := t.Off[i], t.Off[i+1]
	if from > to || int(to) > len(t.Blob) {
		return ""
	}
	return t.Blob[from:to]
}

// Find returns the position of s, or -1.
func (t Strings) Find(s string) int {
	n := t.Len()
	i := sort.Search(n, func(i int) bool { return t.At(i) >= s })
	if i < n && t.At(i) == s {
		return i
	}
	return -1
}

// All returns the strings as a slice (allocating: for tests and tools).
func (t Strings) All() []string {
	out := make([]string, t.Len())
	for i := range out {
		out[i] = t.At(i)
	}
	return out
}
