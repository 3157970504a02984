// Package parallel runs the iterations of a loop on every core.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in [0, n), on up to GOMAXPROCS goroutines
// that each take the next i in turn, so uneven iterations balance. Each
// goroutine gets at least grain iterations' worth of the loop: a short
// loop runs on fewer goroutines, or on one. fn must be safe to call
// concurrently; For returns when every call has.
func For(n, grain int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := min(runtime.GOMAXPROCS(0), max(1, n/max(grain, 1))); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
