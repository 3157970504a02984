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
	"os"
	"path/filepath"
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

// Files writes each damaged copy of raw (Each) to a fresh file in dir, so
// that no checksum sidecar vouches for it, calls fn with its name and
// path, and removes it.
func Files(dir string, raw []byte, rng *rand.Rand, corruptions, truncDiv int, fn func(name, path string)) error {
	var err error
	Each(raw, rng, corruptions, truncDiv, func(name string, data []byte) {
		if err != nil {
			return
		}
		path := filepath.Join(dir, name)
		if err = os.WriteFile(path, data, 0o600); err != nil {
			return
		}
		fn(name, path)
		err = os.Remove(path)
	})
	return err
}
