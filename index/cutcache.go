package index

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
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
	evict  func() // drops the loaded file's pages from memory (nil: none)

	ident string // this compile's identity (begin)
	mu    sync.Mutex
	fresh map[cutKey][2]string // this compile's skills, without a spill
	spill *spill               // this compile's skills, in a file
	dir   string               // where the spill goes ("": none)
	cut   atomic.Int64         // skills cut this compile, not found
}

// A cache read from a folder (LoadCutCache) writes this compile's words
// to an unnamed file there as they come, not to memory: at 100,000
// skills they are 215 MB, held from the first skill cut to the end of
// the compile. Save copies them into the cache file, in the order and
// format the words kept in memory are written (TestCutCacheSpill).
type spill struct {
	f   *os.File
	w   *bufio.Writer
	n   int64 // bytes written
	at  map[cutKey]spillAt
	err error // the first failure: the cache is then not saved
	buf []byte
}

// spillAt is where a skill's words lie in the spill.
type spillAt struct {
	off int64
	len [2]uint32
}

// newSpill opens a spill in dir; nil if it cannot.
func newSpill(dir string) *spill {
	f, err := os.CreateTemp(dir, ".cuts-*.spill")
	if err != nil {
		return nil
	}
	// Unnamed once open where the system allows: gone with the process
	// whatever happens to it.
	if os.Remove(f.Name()) != nil {
		defer func() { _ = os.Remove(f.Name()) }() // Save removes it otherwise
	}
	return &spill{f: f, w: bufio.NewWriterSize(f, 1<<20), at: map[cutKey]spillAt{}}
}

// keep writes a skill's words, once per text.
func (sp *spill) keep(k cutKey, j [2]string) {
	if _, ok := sp.at[k]; ok || sp.err != nil {
		return
	}
	if len(j[0]) > math.MaxUint32 || len(j[1]) > math.MaxUint32 {
		sp.err = errors.New("a skill's words are too long to cache")
		return
	}
	sp.at[k] = spillAt{sp.n, [2]uint32{uint32(len(j[0])), uint32(len(j[1]))}}
	for _, f := range j {
		if _, err := sp.w.WriteString(f); err != nil {
			sp.err = err
			return
		}
		sp.n += int64(len(f))
	}
}

// read returns the words at a; false if the spill failed.
func (sp *spill) read(a spillAt) ([2]string, bool) {
	b := sp.bytes(a)
	if b == nil {
		return [2]string{}, false
	}
	return [2]string{string(b[:a.len[0]]), string(b[a.len[0]:])}, true
}

// bytes returns the bytes at a, both fields, in a buffer the next call
// reuses; nil if the spill failed.
func (sp *spill) bytes(a spillAt) []byte {
	if sp.err != nil {
		return nil
	}
	if sp.err = sp.w.Flush(); sp.err != nil {
		return nil
	}
	n := int(a.len[0]) + int(a.len[1])
	if cap(sp.buf) < n+1 {
		sp.buf = make([]byte, n+1)
	}
	b := sp.buf[:n]
	if _, sp.err = sp.f.ReadAt(b, a.off); sp.err != nil {
		return nil
	}
	return b
}

// close closes and removes the spill.
func (sp *spill) close() {
	_ = sp.f.Close()
	_ = os.Remove(sp.f.Name())
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
	if c.spill != nil {
		c.spill.close()
	}
	c.fresh, c.spill = map[cutKey][2]string{}, nil
	if c.dir != "" {
		c.spill = newSpill(c.dir)
	}
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
		j, ok = c.recall(k) // two skills of the same text
		c.mu.Unlock()
	}
	if !ok {
		j = join(cut(s))
		c.cut.Add(1)
	}
	c.mu.Lock()
	if c.spill != nil {
		c.spill.keep(k, j)
	} else {
		c.fresh[k] = j
	}
	c.mu.Unlock()
	return j
}

// recall returns the words of a text kept this compile.
func (c *CutCache) recall(k cutKey) ([2]string, bool) {
	if c.spill == nil {
		j, ok := c.fresh[k]
		return j, ok
	}
	if a, ok := c.spill.at[k]; ok {
		return c.spill.read(a)
	}
	return [2]string{}, false
}

// Cut returns how many skills the last compile cut, not finding their
// words in the cache.
func (c *CutCache) Cut() int { return int(c.cut.Load()) }

// Save writes the words of the last compile's skills to path, streamed
// (see saveStream), sorted by key.
func (c *CutCache) Save(path string) error {
	if sp := c.spill; sp != nil {
		defer sp.close()
		c.spill = nil
		return c.saveSpill(path, sp)
	}
	keys := make([]cutKey, 0, len(c.fresh))
	for k := range c.fresh {
		keys = append(keys, k)
	}
	sortKeys(keys)
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

// saveSpill is Save from a spill: the same bytes, read back in key order.
func (c *CutCache) saveSpill(path string, sp *spill) error {
	if sp.err == nil {
		sp.err = sp.w.Flush()
	}
	if sp.err != nil {
		return sp.err
	}
	keys := make([]cutKey, 0, len(sp.at))
	size := int64(16 + len(c.ident))
	for k, a := range sp.at {
		keys = append(keys, k)
		size += int64(len(k)+16) + int64(a.len[0]) + int64(a.len[1])
	}
	sortKeys(keys)
	return store.WriteCacheStream(path, cutsKind, cutsVersion, size, false, func(out io.Writer) error {
		bw := bufio.NewWriterSize(out, 1<<20)
		s := sink{w: bw}
		w := writer{&s}
		w.str(c.ident)
		w.num(uint64(len(keys)))
		for _, k := range keys {
			a := sp.at[k]
			b := sp.bytes(a)
			if b == nil {
				return sp.err
			}
			s.write(k[:])
			w.bytes(b[:a.len[0]])
			w.bytes(b[a.len[0]:])
		}
		if s.err != nil {
			return s.err
		}
		return bw.Flush()
	})
}

func sortKeys(keys []cutKey) {
	slices.SortFunc(keys, func(a, b cutKey) int { return bytes.Compare(a[:], b[:]) })
}

// LoadCutCache reads the cache at path for the identity ident; a cache
// missing, damaged or of another version is an empty one (the compile
// cuts every skill, as without a cache).
func LoadCutCache(path, ident string) *CutCache {
	c := &CutCache{Ident: ident, dir: filepath.Dir(path)}
	payload, evict, err := store.MapCache(path, cutsKind, cutsVersion)
	if err != nil {
		return c
	}
	if old, loaded, err := decodeCuts(payload); err == nil {
		c.old, c.loaded, c.evict = old, loaded, evict
	}
	return c
}

// done ends a compile's use of the loaded words: they leave memory, the
// file's pages with them (store.MapCache); at 100,000 skills they were
// 215 MB of a recompile's peak. A cache serves one compile.
func (c *CutCache) done() {
	c.old = nil
	if c.evict != nil {
		c.evict()
		c.evict = nil
	}
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
