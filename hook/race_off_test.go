//go:build !race

package hook

// raceEnabled says the tests run under the race detector, which writes
// the shadow of every stack the runtime allocates.
const raceEnabled = false
