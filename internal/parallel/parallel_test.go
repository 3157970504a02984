package parallel_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillroute/skillroute/internal/parallel"
)

// Every iteration runs exactly once, whatever the loop's length.
func TestForRunsEachIterationOnce(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 1000} {
		counts := make([]atomic.Int32, n)
		parallel.For(n, 16, func(i int) { counts[i].Add(1) })
		for i := range counts {
			assert.EqualValues(t, 1, counts[i].Load(), "n=%d i=%d", n, i)
		}
	}
}
