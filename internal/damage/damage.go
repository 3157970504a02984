// Package damage makes the damaged copies of a file that the cache tests
// feed their loaders: single-byte corruptions at random places, and the
// file cut short at every length up to its size, at a growing step. One
// generator for the index, rules and store tests, so that each checks
// the same kinds of damage.
package damage

import (
	"bytes"
	"fmt"
	"math/rand/v2"
)

// Each calls fn with a name and a damaged copy of raw: corruptions copies
// with one byte flipped (positions and values drawn from rng), then raw
// cut to 0, 1, … bytes, each next length 1 + n/truncDiv further on.
func Each(raw []byte, rng *rand.Rand, corruptions, truncDiv int, fn func(name string, data []byte)) {
	for i := range corruptions {
		bad := bytes.Clone(raw)
		pos := rng.IntN(len(bad))
		bad[pos] ^= byte(1 + rng.IntN(255))
		fn(fmt.Sprintf("corrupt-%d-at-%d.bin", i, pos), bad)
	}
	for n := 0; n < len(raw); n += 1 + n/truncDiv {
		fn(fmt.Sprintf("truncated-%d.bin", n), raw[:n])
	}
}
