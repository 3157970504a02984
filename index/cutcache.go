package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skillroute/skillroute/internal/table"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
)

// Per-skill cut cache. Cutting the skills' texts into words (tokenizing,
// stemming, segmenting Chinese) is the largest part of a compile that
// depends on each skill alone, so a compile can keep each skill's words,
// keyed by a hash of the text they were cut from, and the next compile
// reuses them for every skill whose text did not change: after one skill
// is edited, only that one is cut again. Everything that depends on the
// whole catalog (document frequencies, weights, derived keywords, impact
// segments, calibration) is computed afresh, so the index is the one a
// cold compile writes, byte for byte (TestCutCacheRecompile).
//
// The words also depend on how text is cut: the tokenizer's code and data
// (CutCache.Ident, the binary, set by the caller) and the Chinese
// dictionary, which is every Han keyword and synonym of the catalog. A
// cache cut under another identity is not used. The file holds the words
// of the last compile's skills only: those of removed or edited skills go
// with the next write.

// cutsKind and cutsVersion frame the cache file (store.WriteCache).
const (
	cutsKind    = "cuts"
	cutsVersion = 1
)

// CutCache holds skills' words between compiles. The zero value is an
// empty cache; LoadCutCache reads one. Safe for the concurrent use a
// compile makes of it.
type CutCache struct {
	// Ident is what cutting depends on besides the text and the catalog's
	// dictionary: the binary that cuts (loader sets its stamp).
	Ident string

	loaded string // the identity the loaded words were cut under
	old    map[cutKey][2]string

	ident string // this compile's identity (begin)
	mu    sync.Mutex
	fresh map[cutKey][2]string // this compile's skills
	cut   atomic.Int64         // skills cut this compile, not found
}

// A skill's words are kept joined, each field one string with a NUL
// between words (no word holds one): loaded, they are slices of the
// mapped file, and a cold compile keeps one string per field, not a
// string header per word (at 100,000 skills, 30 million of them).
const wordSep = "\x00"

func join(w [2][]string) [2]string {
	return [2]string{strings.Join(w[0], wordSep), strings.Join(w[1], wordSep)}
}

func split(j [2]string) [2][]string {
	var w [2][]string
	for f := range j {
		if j[f] != "" {
			w[f] = strings.Split(j[f], wordSep)
		}
	}
	return w
}

// cutKey is the hash of a skill's description text and body.
type cutKey [16]byte

func keyOf(s *skills.Skill) cutKey {
	h := sha256.New()
	d := s.Text()
	h.Write([]byte(strconv.Itoa(len(d))))
	h.Write([]byte{0})
	h.Write([]byte(d))
	h.Write([]byte(s.Body))
	var k cutKey
	copy(k[:], h.Sum(nil))
	return k
}

// begin starts a compile whose dictionary is dict: the loaded words count
// only if they were cut under the same identity.
func (c *CutCache) begin(dict table.Strings) {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%s\x00", FormatVersion, c.Ident)
	for i := 0; i < dict.Len(); i++ {
		h.Write([]byte(dict.At(i)))
		h.Write([]byte{0})
	}
	c.ident = hex.EncodeToString(h.Sum(nil))
	if c.loaded != c.ident {
		c.old = nil
	}
	c.fresh = map[cutKey][2]string{}
	c.cut.Store(0)
}

// words returns skill s's description and body words, from the cache or
// cut by cut, and keeps them for the next compile.
func (c *CutCache) words(s *skills.Skill, cut func(*skills.Skill) [2][]string) [2][]string {
	return split(c.joined(s, cut))
}

// joined is words, each field's words joined with wordSep.
func (c *CutCache) joined(s *skills.Skill, cut func(*skills.Skill) [2][]string) [2]string {
	k := keyOf(s)
	j, ok := c.old[k]
	if !ok {
		c.mu.Lock()
		j, ok = c.fresh[k] // two skills of the same text
		c.mu.Unlock()
	}
	if !ok {
		j = join(cut(s))
		c.cut.Add(1)
	}
	c.mu.Lock()
	c.fresh[k] = j
	c.mu.Unlock()
	return j
}

// Cut returns how many skills the last compile cut, not finding their
// words in the cache.
func (c *CutCache) Cut() int { return int(c.cut.Load()) }

// Save writes the words of the last compile's skills to path, streamed
// (see saveStream).
func (c *CutCache) Save(path string) error {
	keys := make([]cutKey, 0, len(c.fresh))
	for k := range c.fresh {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i][:], keys[j][:]) < 0 })
	return saveStream(path, cutsKind, cutsVersion, false, func(w writer) {
		w.str(c.ident)
		w.num(uint64(len(keys)))
		for _, k := range keys {
			w.s.write(k[:])
			w.str(c.fresh[k][0])
			w.str(c.fresh[k][1])
		}
	})
}

// LoadCutCache reads the cache at path for the identity ident; a cache
// missing, damaged or of another version is an empty one (the compile
// cuts every skill, as without a cache).
func LoadCutCache(path, ident string) *CutCache {
	c := &CutCache{Ident: ident}
	payload, err := store.LoadCache(path, cutsKind, cutsVersion)
	if err != nil {
		return c
	}
	if old, loaded, err := decodeCuts(payload); err == nil {
		c.old, c.loaded = old, loaded
	}
	return c
}

// decodeCuts reads a cache's payload; its strings share the mapped file.
func decodeCuts(data []byte) (map[cutKey][2]string, string, error) {
	r := reader{data: data}
	ident := r.str()
	n := r.length(len(cutKey{}) + 16)
	out := make(map[cutKey][2]string, n)
	for i := 0; i < n && r.err == nil; i++ {
		if len(r.data) < len(cutKey{}) {
			return nil, "", errors.New("cut cache damaged")
		}
		var k cutKey
		copy(k[:], r.data)
		r.skip(len(k))
		out[k] = [2]string{r.str(), r.str()}
	}
	if r.err != nil {
		return nil, "", r.err
	}
	return out, ident, nil
}
