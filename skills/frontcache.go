package skills

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"gopkg.in/yaml.v3"

	"github.com/skillroute/skillroute/store"
)

// Parsed frontmatter between loads. Parsing each SKILL.md's YAML was a
// quarter of recompiling a 100,000-skill catalog after one edit (a
// profile: 24 %), and nearly all of it repeats the last compile's work.
// A FrontCache keeps each frontmatter parsed, keyed by a hash of its YAML
// text, so a load parses only the headers that changed; an edited body
// keeps its header's entry. What a skill is made of does not depend on
// whether its header came from the cache (TestFrontCacheSameSkills): the
// cache holds the decoded fields exactly as yaml.v3 gave them, and
// everything Parse derives from them is derived again.
//
// Only headers that parse are kept: a broken one is parsed, and reported,
// on every load. The file holds the headers of the last load only, so
// removed and edited skills' entries go with the next save.

// frontKind and frontVersion frame the cache file (store.WriteCache).
const (
	frontKind    = "front"
	frontVersion = 1
)

// FrontCache holds parsed frontmatter between loads. The zero value is an
// empty cache; LoadFrontCache reads one; a nil *FrontCache parses every
// header. Safe for concurrent use.
type FrontCache struct {
	// Ident is what parsing depends on besides the text: the binary,
	// whose frontmatter fields and YAML library may change (loader sets
	// its stamp). Headers parsed under another identity are not used.
	Ident string

	old    map[frontKey]*frontmatter // loaded
	evict  func()                    // drops the loaded file's pages from memory
	mu     sync.Mutex
	fresh  map[frontKey]*frontmatter // this load's headers
	parsed atomic.Int64
}

// frontKey is the hash of a frontmatter's YAML text.
type frontKey [16]byte

// parse decodes a header, from the cache when it holds it.
func (fc *FrontCache) parse(header []byte) (frontmatter, error) {
	if fc == nil {
		var fm frontmatter
		err := yaml.Unmarshal(header, &fm)
		return fm, err
	}
	sum := sha256.Sum256(header)
	k := frontKey(sum[:16])
	fm, ok := fc.old[k]
	if !ok {
		fc.mu.Lock()
		fm, ok = fc.fresh[k] // two skills of the same header
		fc.mu.Unlock()
	}
	if !ok {
		fm = new(frontmatter)
		if err := yaml.Unmarshal(header, fm); err != nil {
			return frontmatter{}, err
		}
		fc.parsed.Add(1)
	}
	fc.mu.Lock()
	if fc.fresh == nil {
		fc.fresh = map[frontKey]*frontmatter{}
	}
	fc.fresh[k] = fm
	fc.mu.Unlock()
	// The fields by value; the lists are shared with the cache, and no
	// one writes them.
	return *fm, nil
}

// Parsed returns how many headers were parsed since the cache was loaded,
// not found in it.
func (fc *FrontCache) Parsed() int { return int(fc.parsed.Load()) }

// Save writes the headers of the loads since the cache was loaded to
// path, replacing what it held.
func (fc *FrontCache) Save(path string) error {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	keys := make([]frontKey, 0, len(fc.fresh))
	for k := range fc.fresh {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b frontKey) int { return bytes.Compare(a[:], b[:]) })
	// Streamed, as the index is (store.WriteCacheStream): a first pass
	// counts the bytes, the second writes them; at 100,000 skills the file
	// is 100 MB, no buffer of it is held.
	encode := func(emit func([]byte)) {
		var num [binary.MaxVarintLen64]byte
		uvarint := func(v uint64) { emit(binary.AppendUvarint(num[:0], v)) }
		str := func(s string) { uvarint(uint64(len(s))); emit(unsafe.Slice(unsafe.StringData(s), len(s))) }
		str(fc.Ident)
		uvarint(uint64(len(keys)))
		for _, k := range keys {
			emit(k[:])
			fm := fc.fresh[k]
			for _, s := range fm.strings() {
				str(*s)
			}
			for _, l := range fm.lists() {
				// 0 for an absent list, 1 + its length otherwise: yaml.v3
				// tells "enhances: []" from no enhances, and so does the cache.
				n := uint64(0)
				if *l != nil {
					n = 1 + uint64(len(*l))
				}
				uvarint(n)
				for _, s := range *l {
					str(s)
				}
			}
		}
	}
	var size int64
	encode(func(b []byte) { size += int64(len(b)) })
	return store.WriteCacheStream(path, frontKind, frontVersion, size, false, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		encode(func(b []byte) { bw.Write(b) }) // an error sticks, and Flush returns it
		return bw.Flush()
	})
}

// LoadFrontCache reads the cache at path for the identity ident; a cache
// missing, damaged, of another version or identity is an empty one
// (every header is parsed).
func LoadFrontCache(path, ident string) *FrontCache {
	fc := &FrontCache{Ident: ident}
	payload, evict, err := store.MapCache(path, frontKind, frontVersion)
	if err != nil {
		return fc
	}
	if old, loaded, err := decodeFront(payload); err == nil && loaded == ident {
		fc.old, fc.evict = old, evict
	}
	return fc
}

// Release drops the pages of the loaded file from resident memory, once
// the catalog is read: the skills' fields still point into it, and a page
// is read again when one of them is (store.MapCache). At 100,000 skills
// the file is 100 MB.
func (fc *FrontCache) Release() {
	if fc.evict != nil {
		fc.evict()
	}
}

// strings and lists are a frontmatter's fields, in the file's order.
func (fm *frontmatter) strings() [5]*string {
	return [...]*string{&fm.Name, &fm.Description, &fm.WhenToUse, &fm.Triggers, &fm.Maturity}
}

func (fm *frontmatter) lists() [6]*[]string {
	return [...]*[]string{&fm.Keywords.Core, &fm.Keywords.Strong, &fm.Keywords.Extended, &fm.Enhances, &fm.Requires, &fm.Conflicts}
}

var errFrontDamaged = errors.New("frontmatter cache damaged")

// decodeFront reads a cache's payload; its strings share the mapped file,
// which is never written.
func decodeFront(data []byte) (map[frontKey]*frontmatter, string, error) {
	num := func() (int, error) {
		v, n := binary.Uvarint(data)
		if n <= 0 || v > uint64(len(data)) {
			return 0, errFrontDamaged
		}
		data = data[n:]
		return int(v), nil
	}
	str := func() (string, error) {
		n, err := num()
		if err != nil || n > len(data) {
			return "", errFrontDamaged
		}
		s := unsafe.String(unsafe.SliceData(data), n)
		data = data[n:]
		return s, nil
	}
	ident, err := str()
	if err != nil {
		return nil, "", err
	}
	count, err := num()
	if err != nil {
		return nil, "", err
	}
	out := make(map[frontKey]*frontmatter, count)
	for range count {
		if len(data) < len(frontKey{}) {
			return nil, "", errFrontDamaged
		}
		var k frontKey
		copy(k[:], data)
		data = data[len(k):]
		fm := new(frontmatter)
		for _, s := range fm.strings() {
			if *s, err = str(); err != nil {
				return nil, "", err
			}
		}
		for _, l := range fm.lists() {
			n, err := num()
			if err != nil {
				return nil, "", err
			}
			if n > 0 {
				*l = make([]string, n-1)
			}
			for i := range *l {
				if (*l)[i], err = str(); err != nil {
					return nil, "", err
				}
			}
		}
		out[k] = fm
	}
	if len(data) != 0 {
		return nil, "", errFrontDamaged
	}
	return out, ident, nil
}
