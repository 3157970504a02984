package skills

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

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
	frontKind      = "front"
	frontDeltaKind = "frontdel"
	frontVersion   = 6 // 1 had no files, 2 no delta, 3 no disable-model-invocation, 4 no paths, 5 no situations
)

// The file is rewritten whole only when much has changed
// (store.SmallDelta): a load that changed little writes what changed
// since the file was written (the entries of the files read again, the
// headers they need) to its delta (store.DeltaPath), which the next load
// reads over it. The delta names the file it goes with by the random id
// the file was written with. An entry the delta replaces stays in the
// file, never used: a file whose size and time are not what an entry
// holds is read again.

// FrontCache holds parsed frontmatter between loads. The zero value is an
// empty cache; LoadFrontCache reads one; a nil *FrontCache parses every
// header. Safe for concurrent use.
type FrontCache struct {
	// Ident is what parsing depends on besides the text: the binary,
	// whose frontmatter fields and YAML library may change (loader sets
	// its stamp). Headers parsed under another identity are not used.
	Ident string

	// ReadAll reads every file, trusting none to be unchanged by its size
	// and modification time: a full check (`skillroute compile --full`).
	ReadAll bool
	// Stats, when set, holds the files' sizes and modification times as
	// the caller found them, by path: a file in it is not stat'ed again
	// (the loader stats every skill file for its stamp just before; at
	// 100,000 skills a stat each was most of a second). Taken before the
	// files are read, like a stat of its own.
	Stats map[string]FileStat
	// Listings, when set, holds skill folders' names (ReadDirNames) as
	// the caller found them, by folder path: a folder in it is not listed
	// again (at 100,000 skills a listing took 0.1 to 0.17 s).
	Listings map[string][]string
	// OnReads, when set, is called once, on the ReadsNoted-th file this
	// cache does not know unchanged and reads (Read counts them): the
	// caller learns that the load makes garbage (each file read is
	// parsed), and how much, while it goes.
	OnReads    func()
	ReadsNoted int64

	old        map[frontKey][]byte  // loaded, as encoded in the file (see header)
	oldFiles   map[string]fileEntry // loaded, by path
	baseID     [16]byte             // the loaded file's id
	delta      map[frontKey][]byte  // loaded from its delta,
	deltaFiles map[string]fileEntry // which the file's entries give way to
	evict      func()               // drops the loaded file's pages from memory
	mu         sync.Mutex
	fresh      map[frontKey]header  // this load's headers
	freshFiles map[string]fileEntry // this load's files
	parsed     atomic.Int64
	read       atomic.Int64
}

// frontKey is the hash of a frontmatter's YAML text.
type frontKey [16]byte

// header is a frontmatter as the cache keeps it: as encoded in a cache
// file (raw), read where it lies and written out as it is, or parsed this
// load (fm). A skill is made from the encoded form directly
// (Skill.applyRaw): decoding every header into a frontmatter first, its
// lists into slices, was a third of making 100,000 skills from the cache.
type header struct {
	raw []byte
	fm  *frontmatter
}

// parse decodes a header, from the cache when it holds it, and returns
// the key it is kept under; repaired is unmarshalHeader's, for a header
// parsed by this call (one from the cache was parsed as well as it could
// be when it was kept).
func (fc *FrontCache) parse(text []byte) (fm frontmatter, k frontKey, repaired, err error) {
	if fc == nil {
		repaired, err = unmarshalHeader(text, &fm)
		return fm, frontKey{}, repaired, err
	}
	sum := sha256.Sum256(text)
	k = frontKey(sum[:16])
	h, ok := fc.loaded(k)
	if !ok {
		fc.mu.Lock()
		h, ok = fc.fresh[k] // two skills of the same header
		fc.mu.Unlock()
	}
	if !ok {
		h.fm = new(frontmatter)
		if repaired, err = unmarshalHeader(text, h.fm); err != nil {
			return frontmatter{}, k, nil, err
		}
		fc.parsed.Add(1)
	}
	fc.keep(k, h)
	if h.fm == nil {
		fm, err = decodeHeader(h.raw)
		return fm, k, nil, err
	}
	// The fields by value; the lists are shared with the cache, and no
	// one writes them.
	return *h.fm, k, repaired, nil
}

// keep keeps a header for the next load.
func (fc *FrontCache) keep(k frontKey, h header) {
	fc.mu.Lock()
	if fc.fresh == nil {
		// Sized for the headers loaded: growing it, under the lock,
		// held the other readers up.
		fc.fresh = make(map[frontKey]header, len(fc.old)+len(fc.delta))
	}
	fc.fresh[k] = h
	fc.mu.Unlock()
}

// A file unchanged since the last load is not read at all. The cache
// keeps, by path, each SKILL.md's size and modification time when it was
// read, with the key of its header, the description its body gave when
// its header has none, and its skill's ContentSum: a load that finds the
// file of the same size and time makes the same skill from those, its
// body left unread (Skill.ReadBody reads it when needed). At 100,000
// skills reading and hashing every file was a third of a recompile after
// one edit. The size and time are the ones the loader's stamp compares
// (loader.FullStamp), so a file this trusts unchanged is one the stamp
// calls unchanged too; a full check (ReadAll) reads every file.

// FileStat is a file's size and modification time (in nanoseconds since
// the epoch), as a stat gives them.
type FileStat struct {
	Size, ModTime int64
}

// fileEntry is what the cache keeps of a SKILL.md.
type fileEntry struct {
	size, mtime int64 // as stat'ed before it was read
	sum         Sum
	front       bool     // it has a header, kept under header
	header      frontKey //
	desc        string   // its body's first paragraph, when the header gives no description
}

// load makes the skill of the SKILL.md at path (its Source), found in
// folder dirName:
// from the cache when the file is as it was last read, else read (by
// read) and parsed. A nil cache reads and parses.
func (fc *FrontCache) load(path, dirName string, read func() ([]byte, error)) (Skill, error) {
	if fc == nil {
		data, err := read()
		if err != nil {
			return Skill{}, err
		}
		sk, _, err := parse(path, dirName, data, nil)
		return sk, err
	}
	// Stat'ed before it is read: a file changed between the two is
	// newer than the time kept, and read again next time.
	st, known := fc.Stats[path]
	if !known {
		if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
			st, known = FileStat{info.Size(), info.ModTime().UnixNano()}, true
		}
	}
	if known && !fc.ReadAll {
		if e, ok := fc.loadedFile(path); ok && e.size == st.Size && e.mtime == st.ModTime {
			sk := Skill{Source: path, Name: dirName, unread: true, sum: e.sum}
			var err error
			if e.front {
				h, _ := fc.loaded(e.header) // there: decodeFront checks
				fc.keep(e.header, h)
				err = sk.applyRaw(h.raw, e.desc)
			} else {
				err = sk.apply(false, &frontmatter{}, e.desc)
			}
			if err == nil {
				fc.keepFile(path, e)
				return sk, nil
			}
		}
	}
	data, err := read()
	if err != nil {
		return Skill{}, err
	}
	if fc.read.Add(1) == fc.ReadsNoted && fc.OnReads != nil {
		fc.OnReads()
	}
	sk, e, err := parse(path, dirName, data, fc)
	if err != nil {
		return sk, err
	}
	if known {
		e.size, e.mtime, e.sum = st.Size, st.ModTime, sk.ContentSum()
		fc.keepFile(path, e)
	}
	return sk, nil
}

// loaded returns a header of the loaded file or its delta.
func (fc *FrontCache) loaded(k frontKey) (header, bool) {
	if raw, ok := fc.delta[k]; ok {
		return header{raw: raw}, true
	}
	raw, ok := fc.old[k]
	return header{raw: raw}, ok
}

// loadedFile returns a file's entry in the loaded file or its delta.
func (fc *FrontCache) loadedFile(path string) (fileEntry, bool) {
	if e, ok := fc.deltaFiles[path]; ok {
		return e, true
	}
	e, ok := fc.oldFiles[path]
	return e, ok
}

// keepFile keeps a file's entry for the next load.
func (fc *FrontCache) keepFile(path string, e fileEntry) {
	fc.mu.Lock()
	if fc.freshFiles == nil {
		fc.freshFiles = make(map[string]fileEntry, len(fc.oldFiles)+len(fc.deltaFiles))
	}
	fc.freshFiles[path] = e
	fc.mu.Unlock()
}

// Parsed returns how many headers were parsed since the cache was loaded,
// not found in it.
func (fc *FrontCache) Parsed() int { return int(fc.parsed.Load()) }

// Read returns how many skill files were read since the cache was
// loaded: those it did not know unchanged.
func (fc *FrontCache) Read() int { return int(fc.read.Load()) }

// listed returns the names of folder dir, as the caller found them or
// read now.
func (fc *FrontCache) listed(dir string) ([]string, error) {
	if fc != nil {
		if names, ok := fc.Listings[dir]; ok {
			return names, nil
		}
	}
	return ReadDirNames(dir)
}

// ReadDirNames returns the names in folder dir, sorted, as os.ReadDir
// orders its entries, without making an entry of each: at 100,000
// skills, 100 ms where os.ReadDir took 170 (sorting the entries by
// their Name method was most of the difference).
func ReadDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	return names, nil
}

// Loaded reports whether the cache was loaded from a file that knows
// some skill files: a load then reads only those changed since.
func (fc *FrontCache) Loaded() bool { return len(fc.oldFiles) > 0 }

// Save writes the headers and files of the loads since the cache was
// loaded to path, replacing what it held: what changed since the loaded
// file was written to its delta (path + ".delta"), when that is little,
// else the whole file afresh.
func (fc *FrontCache) Save(path string) error {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if fc.old != nil {
		var changed []string
		for p, e := range fc.freshFiles {
			if old, ok := fc.oldFiles[p]; !ok || old != e {
				changed = append(changed, p)
			}
		}
		gone := 0
		for p := range fc.oldFiles {
			if _, ok := fc.freshFiles[p]; !ok {
				gone++
			}
		}
		if store.SmallDelta(len(changed)+gone, len(fc.oldFiles)) {
			headers := map[frontKey]header{}
			for _, p := range changed {
				if e := fc.freshFiles[p]; e.front && fc.old[e.header] == nil {
					headers[e.header] = fc.fresh[e.header]
				}
			}
			return writeFront(store.DeltaPath(path), frontDeltaKind, fc.Ident, fc.baseID, headers, fc.freshFiles, changed)
		}
	}
	var id [16]byte
	rand.Read(id[:])
	err := writeFront(path, frontKind, fc.Ident, id, fc.fresh, fc.freshFiles, slices.Collect(maps.Keys(fc.freshFiles)))
	if err == nil {
		err = store.RemoveDelta(path)
	}
	return err
}

// writeFront writes a cache file of kind (a whole one, or a delta), of
// the headers and of the entries of files (those of paths).
func writeFront(path, kind, ident string, id [16]byte, headers map[frontKey]header, files map[string]fileEntry, paths []string) error {
	keys := slices.SortedFunc(maps.Keys(headers), func(a, b frontKey) int { return bytes.Compare(a[:], b[:]) })
	slices.Sort(paths)
	// Streamed, as the index is (store.WriteCacheStream): a first pass
	// counts the bytes, the second writes them; at 100,000 skills the file
	// is 100 MB, no buffer of it is held.
	encode := func(emit func([]byte)) {
		var num [binary.MaxVarintLen64]byte
		uvarint := func(v uint64) { emit(binary.AppendUvarint(num[:0], v)) }
		str := func(s string) { uvarint(uint64(len(s))); emit(unsafe.Slice(unsafe.StringData(s), len(s))) }
		str(ident)
		emit(id[:])
		uvarint(uint64(len(keys)))
		for _, k := range keys {
			emit(k[:])
			fm := headers[k].fm
			if fm == nil { // as the file it was read from encodes it
				emit(headers[k].raw)
				continue
			}
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
		uvarint(uint64(len(paths)))
		for _, p := range paths {
			e := files[p]
			str(p)
			uvarint(uint64(e.size))
			emit(binary.AppendVarint(num[:0], e.mtime))
			emit(e.sum[:])
			if e.front {
				emit([]byte{1})
				emit(e.header[:])
			} else {
				emit([]byte{0})
			}
			str(e.desc)
		}
	}
	var size int64
	encode(func(b []byte) { size += int64(len(b)) })
	return store.WriteCacheStream(path, kind, frontVersion, size, false, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		encode(func(b []byte) { bw.Write(b) }) // an error sticks, and Flush returns it
		return bw.Flush()
	})
}

// LoadFrontCache reads the cache at path, and its delta, for the identity
// ident; a cache missing, damaged, of another version or identity is an
// empty one (every file is read, every header parsed); a delta that does
// not go with the file is none.
func LoadFrontCache(path, ident string) *FrontCache {
	fc := &FrontCache{Ident: ident}
	payload, evict, err := store.MapCache(path, frontKind, frontVersion)
	if err != nil {
		return fc
	}
	d, err := decodeFront(payload, nil)
	if err != nil || d.ident != ident {
		evict()
		return fc
	}
	fc.old, fc.oldFiles, fc.baseID, fc.evict = d.headers, d.files, d.id, evict
	if payload, err := store.LoadCache(store.DeltaPath(path), frontDeltaKind, frontVersion); err == nil {
		if d, err := decodeFront(payload, fc.old); err == nil && d.ident == ident && d.id == fc.baseID {
			fc.delta, fc.deltaFiles = d.headers, d.files
		}
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

// frontStrings and frontLists count a frontmatter's fields of each kind.
const (
	frontStrings = 7
	frontLists   = 7
)

// rawHeader reads a header as a cache file encodes it (writeFront): its
// strings, then its lists, each a count (0 for an absent list, 1 + its
// length otherwise) and its strings. decodeFront has checked it.
type rawHeader struct{ data []byte }

func (r *rawHeader) num() int {
	v, n := binary.Uvarint(r.data)
	if n <= 0 || v > uint64(len(r.data)) {
		r.data = nil
		return 0
	}
	r.data = r.data[n:]
	return int(v)
}

func (r *rawHeader) str() string {
	n := r.num()
	if n > len(r.data) {
		r.data = nil
		return ""
	}
	s := unsafe.String(unsafe.SliceData(r.data), n)
	r.data = r.data[n:]
	return s
}

// skip passes over a string.
func (r *rawHeader) skip() {
	n := r.num()
	if n > len(r.data) {
		r.data = nil
		return
	}
	r.data = r.data[n:]
}

func (r *rawHeader) list() []string {
	n := r.num()
	if n == 0 {
		return nil
	}
	l := make([]string, n-1)
	for i := range l {
		l[i] = r.str()
	}
	return l
}

// decodeHeader decodes a header a cache file holds.
func decodeHeader(raw []byte) (frontmatter, error) {
	var fm frontmatter
	r := rawHeader{raw}
	for _, s := range fm.strings() {
		*s = r.str()
	}
	for _, l := range fm.lists() {
		*l = r.list()
	}
	if r.data == nil && len(raw) > 0 {
		return frontmatter{}, errFrontDamaged
	}
	return fm, nil
}

// applyRaw is apply for a header as a cache file holds it, its strings
// read where they lie. Its keywords are kept as they lie too, for
// ReadKeywords or KeywordTexts: a skill made from the cache is compiled
// from its cut cache record, which needs none of them (100,000 skills
// list 7 million keywords; making their lists was a third of making the
// skills, and the lists, 224 MB of pointers, most of what the collector
// marked while a recompile compiled).
func (sk *Skill) applyRaw(raw []byte, bodyDesc string) error {
	r := rawHeader{raw}
	var strs [frontStrings]string // as frontmatter.strings orders them
	for i := range strs {
		strs[i] = r.str()
	}
	if err := sk.setText(strs[0], strs[1], strs[2], strs[3], strs[4], strs[5], strs[6], bodyDesc); err != nil {
		return err
	}
	// The keyword tiers (core, strong, extended) come first among the
	// lists: skipped, and kept.
	tiers := r.data
	for range 3 {
		for range max(0, r.num()-1) {
			r.skip()
		}
	}
	sk.rawKeywords = tiers[:len(tiers)-len(r.data)]
	sk.Enhances, sk.Requires, sk.Conflicts = r.list(), r.list(), r.list()
	sk.Paths = cleanGlobs(r.list())
	if r.data == nil && len(raw) > 0 {
		return errFrontDamaged
	}
	return nil
}

// eachRawKeyword calls fn with each keyword of tiers as a cache file
// encodes them (applyRaw), trimmed, blank ones left out, until fn
// returns false.
func eachRawKeyword(tiers []byte, fn func(w string, tier Tier) bool) {
	r := rawHeader{tiers}
	for _, tier := range [...]Tier{Core, Strong, Extended} {
		for range max(0, r.num()-1) {
			if w := trimSpace(r.str()); w != "" && !fn(w, tier) {
				return
			}
		}
	}
}

// strings and lists are a frontmatter's fields, in the file's order.
func (fm *frontmatter) strings() [frontStrings]*string {
	return [...]*string{&fm.Name, &fm.Description, &fm.WhenToUse, &fm.Triggers, &fm.Situations, &fm.Maturity, &fm.DisableModelInvocation}
}

func (fm *frontmatter) lists() [frontLists]*[]string {
	return [...]*[]string{&fm.Keywords.Core, &fm.Keywords.Strong, &fm.Keywords.Extended, &fm.Enhances, &fm.Requires, &fm.Conflicts, (*[]string)(&fm.Paths)}
}

var errFrontDamaged = errors.New("frontmatter cache damaged")

// frontFile is a cache file's payload, decoded.
type frontFile struct {
	ident   string
	id      [16]byte
	headers map[frontKey][]byte
	files   map[string]fileEntry
}

// decodeFront reads a cache's payload; its strings share the mapped file,
// which is never written. A file entry whose header is neither in the
// payload nor in base (a delta's file's headers) makes it damaged.
func decodeFront(data []byte, base map[frontKey][]byte) (frontFile, error) {
	var out frontFile
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
	key := func(k []byte) error {
		if len(data) < len(k) {
			return errFrontDamaged
		}
		copy(k, data)
		data = data[len(k):]
		return nil
	}
	ident, err := str()
	if err != nil {
		return frontFile{}, err
	}
	if err := key(out.id[:]); err != nil {
		return frontFile{}, err
	}
	count, err := num()
	if err != nil {
		return frontFile{}, err
	}
	headers := make(map[frontKey][]byte, count)
	for range count {
		var k frontKey
		if err := key(k[:]); err != nil {
			return frontFile{}, err
		}
		// Only checked and kept as it lies: decoded when used.
		start := data
		for range frontStrings {
			if _, err = str(); err != nil {
				return frontFile{}, err
			}
		}
		for range frontLists {
			n, err := num()
			if err != nil {
				return frontFile{}, err
			}
			for range max(0, n-1) {
				if _, err = str(); err != nil {
					return frontFile{}, err
				}
			}
		}
		headers[k] = start[:len(start)-len(data)]
	}
	if count, err = num(); err != nil {
		return frontFile{}, err
	}
	files := make(map[string]fileEntry, count)
	for range count {
		var e fileEntry
		p, err := str()
		if err != nil {
			return frontFile{}, err
		}
		size, n := binary.Uvarint(data)
		if n <= 0 || size > math.MaxInt64 {
			return frontFile{}, errFrontDamaged
		}
		data = data[n:]
		mtime, n := binary.Varint(data)
		if n <= 0 {
			return frontFile{}, errFrontDamaged
		}
		data = data[n:]
		e.size, e.mtime = int64(size), mtime
		if err := key(e.sum[:]); err != nil {
			return frontFile{}, err
		}
		var flag [1]byte
		if err := key(flag[:]); err != nil {
			return frontFile{}, err
		}
		if e.front = flag[0] == 1; e.front {
			if err := key(e.header[:]); err != nil {
				return frontFile{}, err
			}
			if headers[e.header] == nil && base[e.header] == nil {
				return frontFile{}, errFrontDamaged
			}
		} else if flag[0] != 0 {
			return frontFile{}, errFrontDamaged
		}
		if e.desc, err = str(); err != nil {
			return frontFile{}, err
		}
		files[p] = e
	}
	if len(data) != 0 {
		return frontFile{}, errFrontDamaged
	}
	out.ident, out.headers, out.files = ident, headers, files
	return out, nil
}
