package index

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/skillroute/skillroute/internal/table"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
)

// Per-skill cut cache. Cutting the skills' texts into words (tokenizing,
// stemming, segmenting Chinese) is the largest part of a compile that
// depends on each skill alone, so a compile can keep each skill's words,
// keyed by the skill's ContentSum (which covers the text they were cut
// from), and the next compile reuses them for every skill whose content
// did not change: after one skill
// is edited, only that one is cut again. Everything that depends on the
// whole catalog (document frequencies, weights, derived keywords, impact
// segments, calibration) is computed afresh, or copied from the last
// index where nothing it depends on changed (reuse.go), so the index is
// the one a cold compile writes, byte for byte (TestCutCacheRecompile).
//
// A skill with written keywords is kept further along: as the builder's
// entries for it (its terms, each with its field and its count or keyword
// weight), keyed by its ContentSum too, which covers its keywords,
// description text and body: a skill whose file is unchanged is known by
// the sum kept for its file (skills.FrontCache), not read. A recompile
// takes those entries as they are, with no words
// to count and no keyword to normalise: at 10,000 skills, cutting from the
// words was the largest part of a recompile's compile. Words are still
// kept for the skills that need them (derived keywords count every
// skill's words) and for those cut afresh.
//
// The words also depend on how text is cut: the tokenizer's code and data
// (CutCache.Ident, the binary, set by the caller) and the Chinese
// dictionary, which is every Han keyword and synonym of the catalog. A
// cache cut under another identity is not used. The file holds the words
// of the last compile's skills only: those of removed or edited skills go
// with the next write.

// cutsKind and cutsVersion frame the cache file (store.WriteCache), and
// cutsDeltaKind its delta.
const (
	cutsKind      = "cuts"
	cutsDeltaKind = "cutsdel"
	cutsVersion   = 4 // 2 keyed words and records by hashes of their text, not by the skill's ContentSum; 3 had no delta
)

// Like the frontmatter cache (skills.FrontCache), the file is rewritten
// whole only when much has changed: a compile that keeps the loaded
// file's numbers (numbering.extend) and cut few skills afresh writes to a
// delta beside it what the file lacks (those skills' words and records,
// the terms and weights numbered past the file's), and the next load
// reads the file and the delta as one. At 100,000 skills the file is
// 100 MB. The delta names its file by the id the file was written with
// (fileID). Past an eighth of the file's entries changed or unused
// (store.SmallDelta), or when the numbers are made afresh, the file is
// rewritten.

// CutCache holds skills' words between compiles. The zero value is an
// empty cache; LoadCutCache reads one. Safe for the concurrent use a
// compile makes of it.
type CutCache struct {
	// Ident is what cutting depends on besides the text and the catalog's
	// dictionary: the binary that cuts (loader sets its stamp).
	Ident string

	loaded string // the identity the loaded words were cut under
	old    map[cutKey][2]string
	recs   map[cutKey][]byte // loaded records by ContentSum (see record)
	terms  []string          // the loaded records' terms, by number
	// phrase marks the terms that are phrases (isPhrase), made on first
	// use: a record's check counts them, and reading each term's text
	// there was a cache miss per entry at 100,000 skills.
	phrase     []bool
	phraseOnce sync.Once
	wts        []float64 // the loaded records' keyword weights, by number
	evict      func()    // drops the loaded file's pages from memory (nil: none)

	// The loaded file without its delta: its id, how many words,
	// records, terms and weights it holds; and which of the loaded
	// words and records are the delta's.
	base       [16]byte
	baseCounts [4]int
	fromDelta  map[cutKey]bool

	ident string // this compile's identity (begin)
	mu    sync.Mutex
	spill *spill       // this compile's words and records
	dir   string       // where the spill goes ("": memory)
	cut   atomic.Int64 // skills cut this compile, not found

	used int // how many of the loaded terms the last compile used

	kept      map[cutKey][]byte    // this compile's records as loaded (with numbering.extend)
	keptWords map[cutKey][2]string // and words as loaded
	keptEvict func()               // drops the loaded file's pages, for Save

	num numbering // how this compile's records number terms and weights
}

// numbering is how a compile's records number their terms and weights.
// Renumbering every record as the builder numbers it cost a recompile of
// 10,000 skills 0.16 s of encoding on the merge's one goroutine, so a
// recompile keeps the loaded file's numbers (extend), which the builder
// then numbers its terms and weights by, new ones added at the end: an
// unchanged skill's record is copied as it was read, and merged as it is.
// Terms no skill uses any more stay in the table; when they are more than
// a quarter of those used (compactSlack), a compile numbers afresh, as a
// cold one does: in the order the builder meets them.
type numbering struct {
	extend bool
	terms  []string  // the file's terms, by number
	wts    []float64 // the file's keyword weights, by number
	used   int       // how many terms this compile used
}

// compactSlack is how many unused terms, as a share of the used ones,
// a file's table may hold before a compile numbers afresh; compactFloor
// keeps a small catalog from doing so for a handful.
const (
	compactSlack = 0.25
	compactFloor = 1024
)

// A cache read from a folder (LoadCutCache) writes this compile's words
// and records to an unnamed file there as they come, not to memory: at
// 100,000 skills they are hundreds of megabytes, held from the first skill
// cut to the end of the compile. Save copies them into the cache file, in
// the order and format a cache kept in memory writes (TestCutCacheSpill).
type spill struct {
	f     *os.File // nil: kept in mem
	w     *bufio.Writer
	mem   []byte
	n     int64 // bytes written
	words map[cutKey]spillAt
	recs  map[cutKey]spillAt // len[0] is the record's, len[1] 0
	err   error              // the first failure: the cache is then not saved
	buf   []byte
}

// spillAt is where a skill's words (each field's) or record lie in the spill.
type spillAt struct {
	off int64
	len [2]uint32
}

// newSpill opens a spill in dir, or in memory for dir ""; in memory too if
// the file cannot be made.
func newSpill(dir string) *spill {
	sp := &spill{words: map[cutKey]spillAt{}, recs: map[cutKey]spillAt{}}
	if dir == "" {
		return sp
	}
	f, err := os.CreateTemp(dir, ".cuts-*.spill")
	if err != nil {
		return sp
	}
	// Unnamed once open where the system allows: gone with the process
	// whatever happens to it.
	if os.Remove(f.Name()) != nil {
		defer func() { _ = os.Remove(f.Name()) }() // Save removes it otherwise
	}
	sp.f, sp.w = f, bufio.NewWriterSize(f, 1<<20)
	return sp
}

// put appends parts and returns where they lie.
func (sp *spill) put(parts ...string) (spillAt, bool) {
	if sp.err != nil {
		return spillAt{}, false
	}
	a := spillAt{off: sp.n}
	for i, p := range parts {
		if len(p) > math.MaxUint32 {
			sp.err = errors.New("a skill's words are too long to cache")
			return spillAt{}, false
		}
		a.len[i] = uint32(len(p))
		if sp.f == nil {
			sp.mem = append(sp.mem, p...)
		} else if _, err := sp.w.WriteString(p); err != nil {
			sp.err = err
			return spillAt{}, false
		}
		sp.n += int64(len(p))
	}
	return a, true
}

// keep writes a skill's words, once per text.
func (sp *spill) keep(k cutKey, j [2]string) {
	if _, ok := sp.words[k]; ok {
		return
	}
	if a, ok := sp.put(j[0], j[1]); ok {
		sp.words[k] = a
	}
}

// keepRecord writes a skill's record, once per key.
func (sp *spill) keepRecord(k cutKey, rec []byte) {
	if _, ok := sp.recs[k]; ok {
		return
	}
	if a, ok := sp.put(unsafe.String(unsafe.SliceData(rec), len(rec))); ok {
		sp.recs[k] = a
	}
}

// bytes returns the bytes at a, all its parts, in a buffer the next call
// may reuse; nil if the spill failed.
func (sp *spill) bytes(a spillAt) []byte {
	if sp.err != nil {
		return nil
	}
	n := int(a.len[0]) + int(a.len[1])
	if sp.f == nil {
		return sp.mem[a.off : a.off+int64(n) : a.off+int64(n)]
	}
	if sp.err = sp.w.Flush(); sp.err != nil {
		return nil
	}
	if cap(sp.buf) < n+1 {
		sp.buf = make([]byte, n+1)
	}
	b := sp.buf[:n]
	if _, sp.err = sp.f.ReadAt(b, a.off); sp.err != nil {
		return nil
	}
	return b
}

// flush writes out what is buffered.
func (sp *spill) flush() error {
	if sp.err == nil && sp.f != nil {
		sp.err = sp.w.Flush()
	}
	return sp.err
}

// close closes and removes the spill.
func (sp *spill) close() {
	if sp.f != nil {
		_ = sp.f.Close()
		_ = os.Remove(sp.f.Name())
	}
	sp.mem = nil
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

// cutKey is a skill's ContentSum, which covers everything its words
// (description text and body) and its record (those and its keywords as
// written) are cut from.
type cutKey skills.Sum

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
		c.old, c.recs, c.terms, c.wts, c.base = nil, nil, nil, nil, [16]byte{}
	}
	if c.spill != nil {
		c.spill.close()
	}
	c.spill = newSpill(c.dir)
	c.kept, c.keptWords = map[cutKey][]byte{}, map[cutKey][2]string{}
	c.num = numbering{}
	if c.recs != nil && float64(len(c.terms)) <= float64(c.used)*(1+compactSlack)+compactFloor {
		c.num.extend = true
	}
	c.cut.Store(0)
}

// words returns skill s's description and body words, from the cache or
// cut by cut, and keeps them for the next compile, with the skill's
// ContentSum, which they are kept under.
func (c *CutCache) words(s *skills.Skill, cut func(*skills.Skill) [2][]string) ([2][]string, skills.Sum) {
	j, sum := c.joined(s, cut)
	return split(j), sum
}

// joined is words, each field's words joined with wordSep.
func (c *CutCache) joined(s *skills.Skill, cut func(*skills.Skill) [2][]string) ([2]string, skills.Sum) {
	sum := s.ContentSum()
	k := cutKey(sum)
	if j, ok := c.old[k]; ok {
		c.mu.Lock()
		c.keptWords[k] = j // copied from the loaded file when the cache is saved
		c.mu.Unlock()
		return j, sum
	}
	unread := s.Unread()
	j := join(cut(s))
	c.cut.Add(1)
	if unread {
		sum = s.ContentSum() // its body read: the sum of what is cut
		k = cutKey(sum)
	}
	c.mu.Lock()
	c.spill.keep(k, j)
	c.mu.Unlock()
	return j, sum
}

// A record is a skill's entries as the builder made them, in the
// numbering of its file's terms and weights, varint-encoded: the number
// of keyword entries and of description and body terms, then each
// entry's term number and its value (a text term's count, a keyword's
// weight number) times 16 plus its field, mostly one byte. A record read back is checked against its file's tables,
// so a damaged one is a skill cut afresh, never a wrong posting.

// record returns the loaded record of key k, checked whole against the
// loaded tables, with its counts; false if there is none, or none whole.
func (c *CutCache) record(k cutKey) (cached cachedTerms, ok bool) {
	rec, ok := c.recs[k]
	if !ok {
		return cached, false
	}
	cached.raw = rec
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(rec)
		if n <= 0 {
			return 0, false
		}
		rec = rec[n:]
		return v, true
	}
	var head [4]uint64
	for i := range head {
		if head[i], ok = next(); !ok {
			return cached, false
		}
	}
	n := head[3]
	if n != head[0]+head[1]+head[2] || n > uint64(len(rec)) {
		return cached, false
	}
	cached.keywords, cached.fieldTerms, cached.n, cached.entries = int(head[0]), [2]int{int(head[1]), int(head[2])}, int(n), rec
	// The entries, read here without a call per varint (next's call was
	// most of checking 100,000 records, 60 million varints).
	terms, wts := uint64(len(c.terms)), uint64(len(c.wts))
	c.phraseOnce.Do(func() {
		c.phrase = make([]bool, len(c.terms))
		for i, t := range c.terms {
			c.phrase[i] = isPhrase(t)
		}
	})
	for range n {
		var tv [2]uint64
		for j := range tv {
			if len(rec) > 0 && rec[0] < 0x80 {
				tv[j], rec = uint64(rec[0]), rec[1:]
				continue
			}
			v, w := binary.Uvarint(rec)
			if w <= 0 {
				return cachedTerms{}, false
			}
			tv[j], rec = v, rec[w:]
		}
		t, v := tv[0], tv[1]
		switch {
		case t >= terms || v>>fieldBits > valueMask:
			return cachedTerms{}, false
		case Field(v&fieldMask).IsKeyword() && v>>fieldBits >= wts:
			return cachedTerms{}, false
		case c.phrase[t] && Field(v&fieldMask) == FieldDescription:
			cached.phrases[0]++
		case c.phrase[t] && Field(v&fieldMask) == FieldBody:
			cached.phrases[1]++
		}
	}
	if len(rec) != 0 {
		return cachedTerms{}, false
	}
	return cached, true
}

// cachedTerms is a skill's record, checked.
type cachedTerms struct {
	raw        []byte // the record as loaded
	entries    []byte // its n entries, as pairs of varints (the checks passed)
	n          int
	keywords   int
	fieldTerms [2]int
	phrases    [2]int // of fieldTerms (skillTerms.phrases)
}

// fieldBits and fieldMask pack an entry's field below its value in a
// record.
const (
	fieldBits = 32 - fieldShift
	fieldMask = 1<<fieldBits - 1
)

// each calls fn with each entry, numbered as in the loaded file.
func (ct *cachedTerms) each(fn func(term uint32, field Field, value uint32)) {
	b := ct.entries
	for range ct.n {
		t, w := binary.Uvarint(b)
		v, w2 := binary.Uvarint(b[w:])
		b = b[w+w2:]
		fn(uint32(t), Field(v&fieldMask), uint32(v>>fieldBits))
	}
}

// keepRecord keeps a skill's record for the next compile: rec as it was
// loaded, when the numbering extends the loaded file's, else its entries
// es (n of them) encoded, in the builder's numbering, which is the
// file's. buf is reused, and returned.
func (c *CutCache) keepRecord(k cutKey, rec []byte, keywords int, fieldTerms [2]int, es func(yield func(entry) bool), n int, buf []byte) []byte {
	if rec != nil && c.num.extend {
		// Unchanged, it is copied from the loaded file when the cache is
		// saved: no copy of it made now.
		c.mu.Lock()
		if _, ok := c.spill.recs[k]; !ok {
			c.kept[k] = rec
		}
		c.mu.Unlock()
		return buf
	}
	buf = binary.AppendUvarint(buf[:0], uint64(keywords))
	buf = binary.AppendUvarint(buf, uint64(fieldTerms[0]))
	buf = binary.AppendUvarint(buf, uint64(fieldTerms[1]))
	buf = binary.AppendUvarint(buf, uint64(n))
	for e := range es {
		field, v := Field(e.code>>fieldShift), e.code&valueMask
		buf = binary.AppendUvarint(buf, uint64(e.term))
		buf = binary.AppendUvarint(buf, uint64(v)<<fieldBits|uint64(field))
	}
	c.mu.Lock()
	if _, ok := c.kept[k]; !ok {
		c.spill.keepRecord(k, buf)
	}
	c.mu.Unlock()
	return buf
}

// Cut returns how many skills the last compile cut, not finding their
// words or record in the cache.
func (c *CutCache) Cut() int { return int(c.cut.Load()) }

// Save writes the words and records of the last compile's skills to
// path, streamed (store.WriteCacheStream), each sorted by key: the
// identity and the file's id, the words, the records' terms and weights,
// the records. When the compile kept the loaded file's numbers and
// changed little, only what the file lacks goes, to its delta (path +
// ".delta").
func (c *CutCache) Save(path string) error {
	sp := c.spill
	if sp == nil {
		sp = newSpill("")
	}
	defer sp.close()
	c.spill = nil
	kept, keptWords, evict := c.kept, c.keptWords, c.keptEvict
	c.kept, c.keptWords, c.keptEvict = nil, nil, nil
	defer func() {
		if evict != nil {
			evict()
		}
	}()
	if err := sp.flush(); err != nil {
		return err
	}
	var s cutsSection
	s.words, s.recs = slices.Collect(maps.Keys(sp.words)), slices.Collect(maps.Keys(sp.recs)) // sorted below
	s.terms, s.wts = c.num.terms, c.num.wts
	delta := c.num.extend && c.base != [16]byte{}
	if delta {
		// What the file lacks: the words and records cut this compile,
		// those of its delta still in use, the terms and weights past
		// its own.
		baseUsed := 0
		for k := range keptWords {
			if c.fromDelta[k] {
				s.words = append(s.words, k)
			} else {
				baseUsed++
			}
		}
		for k := range kept {
			if c.fromDelta[k] {
				s.recs = append(s.recs, k)
			} else {
				baseUsed++
			}
		}
		// And, against the delta's size, what the file holds that no
		// skill uses any more.
		unused := c.baseCounts[0] + c.baseCounts[1] - baseUsed
		delta = store.SmallDelta(len(s.words)+len(s.recs)+unused, c.baseCounts[0]+c.baseCounts[1]) &&
			len(s.terms) >= c.baseCounts[2] && len(s.wts) >= c.baseCounts[3]
		if delta {
			s.terms, s.wts = s.terms[c.baseCounts[2]:], s.wts[c.baseCounts[3]:]
		}
	}
	if !delta {
		s.words, s.recs = slices.AppendSeq(s.words[:0], maps.Keys(sp.words)), slices.AppendSeq(s.recs[:0], maps.Keys(sp.recs))
		s.words, s.recs = slices.AppendSeq(s.words, maps.Keys(keptWords)), slices.AppendSeq(s.recs, maps.Keys(kept))
	}
	sortKeys(s.words)
	sortKeys(s.recs)
	// The words and records kept as loaded are read from the loaded
	// file's pages, which leave memory again every keptEvictEvery bytes.
	var sinceEvict int
	read := func(b []byte, counting bool) {
		if sinceEvict += len(b); sinceEvict > keptEvictEvery && evict != nil && !counting {
			evict()
			sinceEvict = 0
		}
	}
	id, kind := c.base, cutsDeltaKind
	if !delta {
		id, kind = fileID(c.ident, s), cutsKind
	}
	encode := func(w writer, counting bool) error {
		w.str(c.ident)
		w.s.write(id[:])
		w.num(uint64(len(s.words)))
		for _, k := range s.words {
			var j [2][]byte
			if a, spilled := sp.words[k]; spilled {
				if counting {
					w.s.n += int64(len(k)) + 16 + int64(a.len[0]) + int64(a.len[1])
					continue
				}
				b := sp.bytes(a)
				if b == nil {
					return sp.err
				}
				j = [2][]byte{b[:a.len[0]], b[a.len[0]:]}
			} else {
				kw := keptWords[k]
				j = [2][]byte{unsafe.Slice(unsafe.StringData(kw[0]), len(kw[0])), unsafe.Slice(unsafe.StringData(kw[1]), len(kw[1]))}
				read(j[0], counting)
				read(j[1], counting)
			}
			w.s.write(k[:])
			w.bytes(j[0])
			w.bytes(j[1])
		}
		w.num(uint64(c.num.used))
		w.strs(s.terms)
		w.num(uint64(len(s.wts)))
		for _, v := range s.wts {
			w.f64(v)
		}
		w.num(uint64(len(s.recs)))
		for _, k := range s.recs {
			var b []byte
			a, spilled := sp.recs[k]
			switch {
			case counting && spilled:
				w.s.n += int64(len(k)) + 8 + int64(a.len[0])
				continue
			case spilled:
				if b = sp.bytes(a); b == nil {
					return sp.err
				}
			default:
				b = kept[k]
				read(b, counting)
			}
			w.s.write(k[:])
			w.bytes(b)
		}
		return nil
	}
	if delta {
		return saveStream(store.DeltaPath(path), kind, cutsVersion, false, encode)
	}
	if err := saveStream(path, kind, cutsVersion, false, encode); err != nil {
		return err
	}
	return store.RemoveDelta(path)
}

// fileID is the id a whole cache file is written with, for its delta to
// name: a hash of what the file's records are read against (identity,
// keys, terms and weights), so that the delta of another file is never
// read with this one, and the same file is written with the same id.
func fileID(ident string, s cutsSection) [16]byte {
	h := sha256.New()
	var buf [binary.MaxVarintLen64]byte
	put := func(b []byte) {
		h.Write(binary.AppendUvarint(buf[:0], uint64(len(b))))
		h.Write(b)
	}
	put([]byte(ident))
	for _, keys := range [][]cutKey{s.words, s.recs} {
		h.Write(binary.AppendUvarint(buf[:0], uint64(len(keys))))
		for _, k := range keys {
			h.Write(k[:])
		}
	}
	h.Write(binary.AppendUvarint(buf[:0], uint64(len(s.terms))))
	for _, t := range s.terms {
		put(unsafe.Slice(unsafe.StringData(t), len(t)))
	}
	for _, w := range s.wts {
		h.Write(binary.LittleEndian.AppendUint64(buf[:0], math.Float64bits(w)))
	}
	var id [16]byte
	copy(id[:], h.Sum(nil))
	return id
}

// cutsSection is what Save writes: the keys of the words and records, the
// terms and weights.
type cutsSection struct {
	words, recs []cutKey
	terms       []string
	wts         []float64
}

// keptEvictEvery is how many bytes of the loaded file's records Save
// copies between dropping its pages from memory (at 100,000 skills the
// records are over 100 MB, written while calibration runs).
const keptEvictEvery = 16 << 20

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
	d, err := decodeCuts(payload)
	if err != nil {
		evict()
		return c
	}
	c.old, c.recs, c.terms, c.wts, c.used, c.loaded, c.evict = d.words, d.recs, d.terms, d.wts, d.used, d.ident, evict
	c.base, c.baseCounts = d.id, [4]int{len(d.words), len(d.recs), len(d.terms), len(d.wts)}
	// Its delta, read over it: words and records added, terms and
	// weights numbered past its own.
	payload, err = store.LoadCache(store.DeltaPath(path), cutsDeltaKind, cutsVersion)
	if err != nil {
		return c
	}
	delta, err := decodeCuts(payload)
	if err != nil || delta.id != d.id || delta.ident != d.ident {
		return c
	}
	c.fromDelta = make(map[cutKey]bool, len(delta.words)+len(delta.recs))
	for k, w := range delta.words {
		c.old[k] = w
		c.fromDelta[k] = true
	}
	for k, r := range delta.recs {
		c.recs[k] = r
		c.fromDelta[k] = true
	}
	c.terms = append(slices.Clip(c.terms), delta.terms...)
	c.wts = append(slices.Clip(c.wts), delta.wts...)
	c.used = delta.used
	return c
}

// done ends a compile's use of the loaded words: they leave memory, the
// file's pages with them (store.MapCache); at 100,000 skills they were
// 215 MB of a recompile's peak. A cache serves one compile.
func (c *CutCache) done(terms []string, weights []float64, used int) {
	c.num.terms, c.num.wts, c.num.used = terms, weights, used
	c.old, c.recs, c.terms, c.wts, c.phrase = nil, nil, nil, nil, nil
	if c.evict != nil {
		c.evict()
		c.keptEvict, c.evict = c.evict, nil
	}
}

// decoded is a cache file's payload.
type decoded struct {
	ident string
	id    [16]byte
	words map[cutKey][2]string
	used  int
	terms []string
	wts   []float64
	recs  map[cutKey][]byte
}

// decodeCuts reads a cache's payload; its strings share the mapped file.
func decodeCuts(data []byte) (decoded, error) {
	r := reader{data: data}
	d := decoded{ident: r.str()}
	key := func() (k cutKey) {
		if len(r.data) < len(k) {
			r.err = errors.New("cut cache damaged")
			return k
		}
		copy(k[:], r.data)
		r.skip(len(k))
		return k
	}
	d.id = key()
	n := r.length(len(cutKey{}) + 16)
	d.words = make(map[cutKey][2]string, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := key()
		d.words[k] = [2]string{r.str(), r.str()}
	}
	d.used = int(min(r.num(), math.MaxInt32))
	d.terms = r.strs()
	d.wts = make([]float64, r.length(8))
	for i := range d.wts {
		d.wts[i] = r.f64()
	}
	n = r.length(len(cutKey{}) + 8)
	d.recs = make(map[cutKey][]byte, n)
	for i := 0; i < n && r.err == nil; i++ {
		k := key()
		d.recs[k] = r.bytes()
	}
	if r.err == nil && len(r.data) != 0 {
		r.err = errors.New("cut cache damaged")
	}
	if r.err != nil {
		return decoded{}, r.err
	}
	return d, nil
}
