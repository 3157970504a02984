package disambig

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A literal table damaged inside (an end beyond the text, ends out of
// order) passes the constant-time check a cached set gets on load, and
// then never panics: a damaged literal is in no prompt, and the others
// are found as before.
func TestDamagedLiteralsNeverMatch(t *testing.T) {
	var whole literalTable
	for _, lit := range []string{"redis", "缓存", "slow query", "kubectl"} {
		whole.add(lit)
	}
	const prompt = "redis 缓存 slow query kubectl"
	for _, tc := range []struct {
		name   string
		damage func(ends []byte)
		want   []bool // each literal found in the prompt
	}{
		// Literal 1 ends beyond the text, and literal 2 starts there.
		{"an end beyond the text", func(ends []byte) { binary.LittleEndian.PutUint32(ends[4:], 1<<30) }, []bool{true, false, false, true}},
		// Literal 2 ends before it starts; literal 3 then spans the text
		// from byte 1, a string the prompt does not hold.
		{"ends out of order", func(ends []byte) { binary.LittleEndian.PutUint32(ends[8:], 1) }, []bool{true, true, false, false}},
		{"the last end beyond the text", func(ends []byte) { binary.LittleEndian.PutUint32(ends[12:], 1<<31) }, []bool{true, true, true, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lits := literalTable{text: whole.text, ends: slices.Clone(whole.ends), keys: whole.keys}
			tc.damage(lits.ends)
			require.True(t, lits.valid(), "damage inside the table is found where a literal is read")
			memo := literalMemo{state: make([]uint8, lits.len()), lits: &lits, filter: promptFilter(prompt)}
			var got []bool
			require.NotPanics(t, func() {
				for id := range int32(lits.len()) {
					got = append(got, memo.has(prompt, id))
				}
			})
			assert.Equal(t, tc.want, got)
		})
	}
}

// A table whose columns disagree in length is refused on load.
func TestLiteralTableLengths(t *testing.T) {
	var lits literalTable
	lits.add("redis")
	lits.add("缓存")
	require.True(t, lits.valid())
	for name, bad := range map[string]literalTable{
		"ends cut inside a number": {text: lits.text, ends: lits.ends[:7], keys: lits.keys},
		"a key missing":            {text: lits.text, ends: lits.ends, keys: lits.keys[:2]},
	} {
		assert.False(t, bad.valid(), name)
	}
}
