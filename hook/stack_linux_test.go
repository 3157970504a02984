package hook

import (
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// threadFaults is the calling thread's minor page faults so far.
func threadFaults(t *testing.T) int64 {
	const rusageThread = 1 // RUSAGE_THREAD, not in package syscall
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(rusageThread, &ru))
	return ru.Minflt
}

// TestGrowStackTouchesNoPage holds what growStack is for: the handler's
// goroutine moves to a stack its reserve fits in, and the process pays
// for the pages of that stack the handler uses, not for the reserve.
// Written, the 64 KB reserve alone is 16 pages.
func TestGrowStackTouchesNoPage(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector writes the shadow of each new stack: its pages, not the reserve's, would be counted")
	}
	for _, tc := range []struct {
		name string
		grow func(int) byte
		size int
	}{
		{"handler", growStack, stackReserve},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The fewest faults of three goroutines, each kept alive
			// until all are measured, so that none is given the stack
			// another freed (whose pages would be in already): with other
			// tests' processes busy, one growth faulted 10 to 17 pages
			// now and then (the runtime's bookkeeping, the kernel's
			// reclaim); a written reserve faults its pages in each.
			const tries = 3
			faults, release := make(chan int64), make(chan struct{})
			defer close(release)
			for range tries {
				go func() {
					runtime.LockOSThread() // the thread's count is the goroutine's
					defer runtime.UnlockOSThread()
					before := threadFaults(t)
					tc.grow(-1)
					faults <- threadFaults(t) - before
					<-release
				}()
			}
			least := <-faults
			for range tries - 1 {
				least = min(least, <-faults)
			}
			pages := int64(tc.size / syscall.Getpagesize())
			// The new stack's first pages (the copied frames, which may
			// straddle a page) and the runtime's bookkeeping may fault;
			// the reserve's pages may not (written: 17-19 faults).
			assert.Less(t, least, max(pages*3/4, 3), "growing the stack faulted in the reserve")
		})
	}
}
