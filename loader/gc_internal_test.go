package loader

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPauseGC protects what a compile leaves of the user's collector
// setting: paused while the catalog is read, put back as it was (off
// included) however many times resume is called, from the reads' notice
// and after the load.
func TestPauseGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, percent := range []int{-1, 30, 100, 250} {
		debug.SetGCPercent(percent)
		resume := pauseGC()
		assert.Equal(t, -1, debug.SetGCPercent(-1), "paused, from %d", percent)
		resume()
		assert.Equal(t, percent, debug.SetGCPercent(77), "put back")
		resume()
		assert.Equal(t, 77, debug.SetGCPercent(percent), "a second resume changes nothing")
	}
}
