package index

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPauseGC protects what compiles leave of the collector's setting:
// off while any caller's pause lasts, overlapping pauses and TightGC
// included, then back as the user had it (off included), however often
// each resume is called.
func TestPauseGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	current := func() int { p := debug.SetGCPercent(0); debug.SetGCPercent(p); return p }
	for _, percent := range []int{-1, 20, 100, 250} {
		t.Run("", func(t *testing.T) {
			debug.SetGCPercent(percent)
			restore := TightGC()
			tight := min(percent, compileGC)
			if percent < 0 {
				tight = -1
			}
			assert.Equal(t, tight, current())

			a := PauseGC()
			assert.Equal(t, -1, current(), "paused")
			b := PauseGC()
			a()
			a()
			assert.Equal(t, -1, current(), "still paused: b has not resumed")
			inner := TightGC() // a compile starting meanwhile
			assert.Equal(t, -1, current())
			b()
			assert.Equal(t, tight, current(), "every pause resumed")
			b()
			inner()
			assert.Equal(t, tight, current())

			c := PauseGC()
			restore() // the last compile ends while c pauses
			assert.Equal(t, -1, current())
			c()
			assert.Equal(t, percent, current(), "as the user had it")
		})
	}
}
