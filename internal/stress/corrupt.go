package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/index"
)

// damage changes data at random, the ways a disk, a crash or a person
// does: bytes flipped, a span overwritten or zeroed, the file cut short or
// grown. The result always differs from data.
func damage(rng *rand.Rand, data []byte) []byte {
	for {
		bad := bytes.Clone(data)
		switch rng.IntN(6) {
		case 0: // one byte
			bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
		case 1: // a few bytes anywhere
			for range 1 + rng.IntN(8) {
				bad[rng.IntN(len(bad))] ^= byte(1 + rng.IntN(255))
			}
		case 2: // a span of random bytes
			at := rng.IntN(len(bad))
			for i := at; i < min(len(bad), at+1+rng.IntN(64)); i++ {
				bad[i] = byte(rng.IntN(256))
			}
		case 3: // a span zeroed, as a lost block reads
			at := rng.IntN(len(bad))
			clear(bad[at:min(len(bad), at+1+rng.IntN(4096))])
		case 4: // cut short
			bad = bad[:rng.IntN(len(bad))]
		case 5: // grown
			extra := make([]byte, 1+rng.IntN(64))
			for i := range extra {
				extra[i] = byte(rng.IntN(256))
			}
			bad = append(bad, extra...)
		}
		if !bytes.Equal(bad, data) {
			return bad
		}
	}
}

// corruptions damages each cache file of the sandbox n times, each copy
// under a new name (so that no sidecar vouches for it), and loads it as
// the router does: every damage must be an error, none a panic.
func corruptions(sb *sandbox, o options, rep *report) {
	dir, err := os.MkdirTemp(filepath.Dir(sb.state), "corrupt-")
	if err != nil {
		rep.fail("corruptions: %v", err)
		return
	}
	defer os.RemoveAll(dir)
	loaders := []struct {
		kind, glob string
		load       func(path string) error
	}{
		{"index", "index-*.bin", func(path string) error { _, err := index.Load(path); return err }},
		{"rules", "rules-*.bin", func(path string) error { _, _, err := disambig.LoadCached(path); return err }},
	}
	rng := rand.New(rand.NewPCG(12, 2000))
	for _, l := range loaders {
		files, _ := filepath.Glob(filepath.Join(sb.state, "cache", l.glob))
		if len(files) == 0 {
			rep.fail("corruptions: no %s cache in %s", l.kind, sb.state)
			continue
		}
		good, err := os.ReadFile(files[0])
		if err != nil {
			rep.fail("corruptions: %v", err)
			continue
		}
		if err := l.load(files[0]); err != nil {
			rep.fail("corruptions: the intact %s cache does not load: %v", l.kind, err)
			continue
		}
		detected, panics := 0, 0
		for i := range o.corruptions {
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.bin", l.kind, i))
			if err := os.WriteFile(path, damage(rng, good), 0o600); err != nil {
				rep.fail("corruptions: %v", err)
				break
			}
			func() {
				defer func() {
					if recover() != nil {
						panics++
					}
				}()
				if l.load(path) != nil {
					detected++
				}
			}()
			os.Remove(path)
		}
		undetected := o.corruptions - detected - panics
		rep.row(fmt.Sprintf("cache corruptions: %s (%d KB)", l.kind, len(good)>>10), fmt.Sprint(o.corruptions), fmt.Sprint(detected),
			"", fmt.Sprint(undetected+panics), "", fmt.Sprintf("detected %d, undetected %d, panics %d", detected, undetected, panics))
		if undetected+panics > 0 {
			rep.fail("corruptions: %s cache: %d damaged copies loaded, %d panicked", l.kind, undetected, panics)
		}
	}
}
