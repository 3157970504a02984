package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unsafe"

	"github.com/skillroute/skillroute/internal/table"
	"github.com/skillroute/skillroute/store"
	"github.com/skillroute/skillroute/tokenize"
)

// The index file is read on every hook call, so it is laid out to load
// without parsing: a header with the provenance and the skills, then each
// flat array as a length and its raw little-endian bytes. Loading is
// one mapping of the file; the arrays are then used in place, where they lie in the
// buffer (BenchmarkLoad). The gob codec decoding the same data element by
// element took 2.7 ms for the built-in catalog; copying each array out,
// 0.74 ms.

// magic opens every index file, so that a wrong file is named as such.
const magic = "skillroute-index\n"

// ErrStale reports an index file written by another format version.
var ErrStale = errors.New("index file is from another version of skillroute")

// cacheKind names index files in their store frame.
const cacheKind = "index"

// Save writes the index to path atomically (temp file and rename), so a
// hook reading it concurrently sees the old file or the new, never half,
// in a store frame whose checksum Load verifies.
func (ix *Index) Save(path string) error { return ix.save(path, true) }

// SaveCache is Save without the fsyncs, for an index in the cache folder:
// compiled from sources that are still there, a copy a power cut damages
// fails its checksum and is compiled again (store.WriteCacheNoSync).
func (ix *Index) SaveCache(path string) error { return ix.save(path, false) }

func (ix *Index) save(path string, sync bool) error {
	return saveStream(path, cacheKind, uint32(ix.Format), sync, func(w writer, _ bool) error {
		ix.encode(w, func() Calibration { return ix.Calibration })
		return nil
	})
}

// SaveCacheLate is SaveCache for an index whose calibration is still
// being measured (router.Calibrate): it writes the rest of the file while
// the caller calibrates, then waits for the calibration on cal and writes
// it, last. The file's length is given before its contents, so the
// calibration is counted as a whole one (CalibrationPoints quantiles of
// each kind); one that is not (a catalog whose text scores nothing) is
// ErrLateCalibration, and nothing is written: the caller saves the index
// again. At 100,000 skills writing the index took 2.4 s, one core's
// work, and calibrating 0.9 s of both: the write now overlaps it.
func (ix *Index) SaveCacheLate(path string, cal <-chan Calibration) error {
	whole := Calibration{Generic: make([]float32, CalibrationPoints), Foreign: make([]float32, CalibrationPoints), GenericN: 1, ForeignN: 1}
	return saveStream(path, cacheKind, uint32(ix.Format), false, func(w writer, counting bool) error {
		if counting {
			ix.encode(w, func() Calibration { return whole })
			return nil
		}
		var err error
		ix.encode(w, func() Calibration {
			c := <-cal
			if !c.Calibrated() {
				err = ErrLateCalibration
			}
			return c
		})
		return err
	})
}

// ErrLateCalibration is SaveCacheLate's error for a calibration that is
// not a whole one: the index is to be saved once it is set.
var ErrLateCalibration = errors.New("index calibration is not a whole one: save it again")

// saveStream writes what encode writes to path, in a store frame, with
// no buffer of it all: a first pass only counts the bytes, which the
// frame gives before them (store.WriteCacheStream); the second writes
// them. At 100,000 skills the buffer and a copy of the largest array in
// it were 450 MB of a compile's peak. encode is told which pass it is in
// (counting) and may fail.
func saveStream(path, kind string, version uint32, sync bool, encode func(w writer, counting bool) error) error {
	var count sink
	if err := encode(writer{&count}, true); err != nil {
		return err
	}
	return store.WriteCacheStream(path, kind, version, count.n, sync, func(out io.Writer) error {
		bw := bufio.NewWriterSize(out, 1<<20)
		s := sink{w: bw, tocAt: count.tocAt}
		if err := encode(writer{&s}, false); err != nil {
			return err
		}
		if s.err != nil {
			return s.err
		}
		return bw.Flush()
	})
}

// encode writes the index as Load reads it, with the calibration cal
// returns, called when it is written.
func (ix *Index) encode(w writer, cal func() Calibration) {
	w.s.write([]byte(magic))
	w.num(uint64(ix.Format))
	w.str(ix.SourceHash)
	w.str(ix.Stamp)
	w.str(ix.NamesHash)
	w.f64(ix.AvgLength)
	w.beginTOC()
	var groups table.Strings
	if ix.Synonyms != nil {
		groups = ix.Synonyms.Groups
	}
	w.num(boolNum(ix.Synonyms != nil))
	w.table(groups)
	w.skills(&ix.Skills)
	w.table(ix.Terms)
	w.u32(ix.Starts)
	w.u32(ix.PostSkill)
	w.f32(ix.PostWeight)
	w.bytes(ix.PostField)
	w.u32(ix.TextDF)
	w.u32(ix.TermSegs)
	w.u32(ix.SegStart)
	w.f32(ix.ExactBound)
	w.f32(ix.PartialBound)
	w.bytes(ix.PostExact)
	w.bytes(ix.PostPartial)
	w.table(ix.Grams)
	w.u32(ix.GramStarts)
	w.u32(ix.GramTerms)
	w.table(ix.Dict)
	if s := ix.Synonyms; s != nil {
		w.table(s.Words)
		w.u32(s.Start)
		w.u32(s.Mates)
		w.f32(s.Weight)
		w.u32(s.Group)
	}
	w.num(boolNum(ix.Glossary != nil))
	if g := ix.Glossary; g != nil {
		w.table(g.Words)
		w.u32(g.Start)
		w.u32(g.Mates)
	}
	// Calibration: a section of its own, last (calibration.go).
	w.calibration(cal())
	w.endTOC()
}

// Load reads an index written by Save. A file that is truncated, damaged
// or not an index is an error naming it, never a panic; one of another
// format version is ErrStale.
func Load(path string) (*Index, error) {
	data, err := store.LoadCache(path, cacheKind, FormatVersion)
	if errors.Is(err, store.ErrVersion) {
		return nil, fmt.Errorf("%s: %w", path, ErrStale)
	}
	if err != nil {
		return nil, err
	}
	return decode(path, data)
}

// stampHead is how much of an index file ReadStamp reads: the magic,
// the format, and the source hash and stamp (each a length and 64 hex
// digits), with room to spare.
const stampHead = 512

// ReadStamp returns the full stamp (Index.Stamp) of the index file at
// path, reading only the head of the file: whether a cached index is
// current is known without loading it (at 100,000 skills, loading it
// made a recompile's peak memory exceed a cold compile's). The checksum
// is not verified; whoever then uses the index loads it with Load.
func ReadStamp(path string) (string, error) {
	data, err := store.CacheHead(path, cacheKind, FormatVersion, stampHead)
	if errors.Is(err, store.ErrVersion) {
		return "", fmt.Errorf("%s: %w", path, ErrStale)
	}
	if err != nil {
		return "", err
	}
	if !bytes.HasPrefix(data, []byte(magic)) {
		return "", fmt.Errorf("%s: not a skillroute index", path)
	}
	r := reader{data: data[len(magic):], pos: len(magic)}
	if r.num() != FormatVersion {
		return "", fmt.Errorf("%s: %w", path, ErrStale)
	}
	r.str() // the source hash
	stamp := strings.Clone(r.str())
	if r.err != nil {
		return "", fmt.Errorf("%s: damaged index header: %v", path, r.err)
	}
	return stamp, nil
}

// decode reads an index from the payload of its file, named path in
// errors. Damaged data is an error, never a panic (FuzzLoad).
func decode(path string, data []byte) (*Index, error) {
	if !bytes.HasPrefix(data, []byte(magic)) {
		return nil, fmt.Errorf("%s: not a skillroute index", path)
	}
	r := reader{data: data[len(magic):], pos: len(magic)}
	if format := r.num(); format != FormatVersion {
		if r.err != nil {
			return nil, fmt.Errorf("%s: damaged index header: %v", path, r.err)
		}
		return nil, fmt.Errorf("%s: %w", path, ErrStale)
	}
	ix := &Index{Format: FormatVersion, SourceHash: r.str(), Stamp: r.str(), NamesHash: r.str(), AvgLength: r.f64()}
	r.beginTOC()
	hasSynonyms := r.num() == 1
	groups := r.table()
	r.skills(ix)
	ix.Terms = r.table()
	ix.Starts = r.u32()
	ix.PostSkill = r.u32()
	ix.PostWeight = r.f32()
	ix.PostField = r.bytes()
	ix.TextDF = r.u32()
	ix.TermSegs = r.u32()
	ix.SegStart = r.u32()
	ix.ExactBound = r.f32()
	ix.PartialBound = r.f32()
	ix.PostExact = r.bytes()
	ix.PostPartial = r.bytes()
	ix.Grams = r.table()
	ix.GramStarts = r.u32()
	ix.GramTerms = r.u32()
	ix.Dict = r.table()
	if hasSynonyms {
		s := &tokenize.Synonyms{Groups: groups}
		s.Words = r.table()
		s.Start = r.u32()
		s.Mates = r.u32()
		s.Weight = r.f32()
		s.Group = r.u32()
		ix.Synonyms = s
	}
	if r.num() == 1 {
		g := &tokenize.Glossary{}
		g.Words = r.table()
		g.Start = r.u32()
		g.Mates = r.u32()
		ix.Glossary = g
	}
	// Calibration: a section of its own, last (calibration.go).
	ix.Calibration = r.calibration()
	r.endTOC()
	if r.err != nil {
		return nil, fmt.Errorf("%s: damaged index: %v", path, r.err)
	}
	if err := ix.check(); err != nil {
		return nil, fmt.Errorf("%s: damaged index: %v", path, err)
	}
	return ix, nil
}

// check verifies what lookups rely on and can check in constant time:
// that the arrays' lengths agree. What a damaged file may still hold (an
// offset beyond its array, offsets out of order, a posting naming a skill
// or field that does not exist) is checked where it is read (Postings,
// Segments, Containing, table.Strings.At, bm25.TopK), at the cost of a
// comparison, so that a damaged file routes badly rather than panics
// (TestDamagedIndexNeverPanics) and loading does not read every posting:
// that scan was 6 ms at 10,000 skills, the hook's largest cost after
// process start.
func (ix *Index) check() error {
	n := len(ix.PostSkill)
	switch {
	case len(ix.Starts) != ix.Terms.Len()+1 && !(ix.Terms.Len() == 0 && len(ix.Starts) <= 1):
		return errors.New("term table and postings disagree")
	case len(ix.PostWeight) != n || len(ix.PostField) != n || len(ix.PostExact) != n || len(ix.PostPartial) != n:
		return errors.New("posting arrays differ in length")
	case len(ix.TextDF) != ix.Terms.Len():
		return errors.New("document frequencies damaged")
	case len(ix.TermSegs) != len(ix.Starts), len(ix.SegStart) != len(ix.ExactBound)+1, len(ix.PartialBound) != len(ix.ExactBound):
		return errors.New("impact segments damaged")
	case ix.Grams.Len() > 0 && len(ix.GramStarts) != ix.Grams.Len()+1:
		return errors.New("trigram table damaged")
	}
	if err := ix.Calibration.check(); err != nil {
		return err
	}
	// The synonym and glossary tables are checked as the other arrays
	// are: their lengths here, each offset and id where it is read
	// (tokenize's Expand and Translate). Checked whole, as they were, they
	// were 6 % of a hook process's instructions at 50 skills (BENCHMARKS.md,
	// "The hook process at 50 skills, fifth pass").
	if s := ix.Synonyms; s != nil {
		m := len(s.Mates)
		if len(s.Start) != s.Words.Len()+1 || len(s.Weight) != m || len(s.Group) != m {
			return errors.New("synonym table damaged")
		}
	}
	if g := ix.Glossary; g != nil && len(g.Start) != g.Words.Len()+1 {
		return errors.New("glossary table damaged")
	}
	return nil
}

// writer writes the index's values to a sink.
type writer struct{ s *sink }

// sink takes what a writer writes: to w, or, with none, only counted.
type sink struct {
	w   io.Writer
	n   int64 // bytes so far
	err error // the first write error
	// Between beginTOC and endTOC the numbers go to toc, written at the
	// end, at tocAt: where the counting pass found it, for the pass that
	// writes (saveStream).
	toc      []byte
	deferred bool
	tocAt    int64
}

func (s *sink) write(b []byte) {
	s.n += int64(len(b))
	if s.w != nil && s.err == nil {
		_, s.err = s.w.Write(b)
	}
}

func boolNum(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (w writer) num(v uint64) {
	if w.s.deferred {
		w.s.toc = binary.LittleEndian.AppendUint64(w.s.toc, v)
		return
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	w.s.write(b[:])
}

// beginTOC writes where the table of contents will start and sends the
// numbers written until endTOC there: the arrays' lengths, each of
// which, written before its array, put a page of the file in every hook
// process's way (perf record -d -e page-faults of 20 prompt events at 50
// skills: 7.2 faults a process on the index file's pages in its
// decoding, 1.0 with the table; routing then faults 3.2 on pages the
// load had brought in).
func (w writer) beginTOC() {
	w.num(uint64(w.s.tocAt)) // 0 in the counting pass, whose length alone counts
	w.s.deferred = true
}

// endTOC writes the table of contents: its count of numbers, then them.
func (w writer) endTOC() {
	w.s.deferred = false
	if w.s.w != nil && w.s.n != w.s.tocAt && w.s.err == nil {
		w.s.err = fmt.Errorf("index table of contents at %d, announced at %d", w.s.n, w.s.tocAt)
	}
	w.s.tocAt = w.s.n
	toc := w.s.toc
	w.num(uint64(len(toc) / 8))
	w.s.write(toc)
}

func (w writer) f64(v float64) { w.num(math.Float64bits(v)) }
func (w writer) str(s string) {
	w.num(uint64(len(s)))
	w.s.write(unsafe.Slice(unsafe.StringData(s), len(s)))
}

func (w writer) strs(list []string) {
	w.num(uint64(len(list)))
	for _, s := range list {
		w.str(s)
	}
}

func (w writer) bytes(b []byte) { w.num(uint64(len(b))); w.s.write(b) }

// align pads the file so that the next array starts at a multiple of 4
// bytes, where the loader can view it in place.
func (w writer) align() {
	var zero [4]byte
	w.s.write(zero[:(4-w.s.n%4)%4])
}

func (w writer) u32(v []uint32) {
	words(w, v, func(x uint32) uint32 { return x })
}

func (w writer) f32(v []float32) {
	words(w, v, math.Float32bits)
}

// words writes an array of 4-byte values, little-endian: its own bytes
// where the machine stores them so, else converted a block at a time.
func words[T uint32 | float32](w writer, v []T, bits func(T) uint32) {
	w.num(uint64(len(v)))
	w.align()
	if littleEndian {
		w.s.write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), 4*len(v)))
		return
	}
	var b [4096]byte
	for len(v) > 0 {
		n := min(len(v), len(b)/4)
		for i, x := range v[:n] {
			binary.LittleEndian.PutUint32(b[4*i:], bits(x))
		}
		w.s.write(b[:4*n])
		v = v[n:]
	}
}

func (w writer) table(t table.Strings) {
	w.bytes([]byte(t.Blob))
	w.u32(t.Off)
}

type reader struct {
	data []byte
	pos  int // offset of data in the file, for alignment
	err  error
	// toc holds the numbers still to read, between beginTOC and endTOC;
	// inTOC is set there.
	toc   []byte
	inTOC bool
}

// beginTOC reads where the table of contents starts (writer.beginTOC)
// and reads the numbers from it until endTOC. A table that does not fit
// the file is an error.
func (r *reader) beginTOC() {
	at := r.num()
	if r.err != nil {
		return
	}
	if at < uint64(r.pos) || at-uint64(r.pos) > uint64(len(r.data)) {
		r.err, r.data = errors.New("table of contents damaged"), nil
		return
	}
	body, toc := r.data[:at-uint64(r.pos)], r.data[at-uint64(r.pos):]
	if len(toc) < 8 || binary.LittleEndian.Uint64(toc) != uint64(len(toc)/8-1) || len(toc)%8 != 0 {
		r.err, r.data = errors.New("table of contents damaged"), nil
		return
	}
	r.data, r.toc, r.inTOC = body, toc[8:], true
}

// endTOC checks that the table of contents and what it describes were
// read to their ends.
func (r *reader) endTOC() {
	if r.err == nil && (len(r.toc) != 0 || len(r.data) != 0) {
		r.err = errors.New("table of contents damaged")
	}
	r.inTOC = false
}

func (r *reader) skip(n int) {
	if n > len(r.data) {
		r.err, r.data = errors.New("truncated"), nil
		return
	}
	r.data = r.data[n:]
	r.pos += n
}

// littleEndian reports whether this machine stores numbers as the file
// does, so that arrays can be used in place rather than decoded.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// view returns n little-endian 4-byte values at the reader's position,
// in place when the machine and the alignment allow, else copied.
func view[T uint32 | float32](r *reader, n int, decode func(uint32) T) []T {
	if r.pos%4 != 0 {
		r.skip(4 - r.pos%4)
	}
	if n > len(r.data)/4 {
		r.err = errors.New("truncated")
		return nil
	}
	var out []T
	if n > 0 && littleEndian && uintptr(unsafe.Pointer(&r.data[0]))%4 == 0 {
		// The file's bytes are the array: no copy, no decoding.
		out = unsafe.Slice((*T)(unsafe.Pointer(&r.data[0])), n)
	} else {
		out = make([]T, n)
		for i := range out {
			out[i] = decode(binary.LittleEndian.Uint32(r.data[4*i:]))
		}
	}
	r.skip(4 * n)
	return out
}

// length reads a count of items of size bytes each, checking that they
// fit in what is left of the file.
func (r *reader) length(size int) int {
	n := r.num()
	if r.err == nil && n > uint64(len(r.data)/size) {
		r.err = errors.New("truncated")
	}
	if r.err != nil {
		return 0
	}
	return int(n)
}

func (r *reader) num() uint64 {
	if r.err != nil {
		return 0
	}
	if r.inTOC {
		if len(r.toc) < 8 {
			r.err, r.data = errors.New("table of contents damaged"), nil
			return 0
		}
		v := binary.LittleEndian.Uint64(r.toc)
		r.toc = r.toc[8:]
		return v
	}
	if len(r.data) < 8 {
		r.err = errors.New("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(r.data)
	r.skip(8)
	return v
}

func (r *reader) f64() float64 { return math.Float64frombits(r.num()) }

// str returns a string that shares the file's bytes (never written after
// loading): the skills' texts load without a copy.
func (r *reader) str() string {
	b := r.bytes()
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// strs reads a list of strings (str each), lengths inline: for the cut
// cache, which has no table of contents. In one loop over the bytes: the
// synonym table's 937 group ids, when the index held them so and read
// through str one by one, were 0.10 M instructions of a hook process at
// 50 skills, 2 %; 0.04 M so (cachegrind).
func (r *reader) strs() []string {
	n := r.length(8) // each string takes at least its 8-byte length
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	data := r.data
	for i := range out {
		if len(data) < 8 {
			r.skip(len(r.data) + 1) // truncated
			return nil
		}
		size := binary.LittleEndian.Uint64(data)
		data = data[8:]
		if size > uint64(len(data)) {
			r.skip(len(r.data) + 1)
			return nil
		}
		out[i] = unsafe.String(unsafe.SliceData(data), int(size))
		data = data[size:]
	}
	r.skip(len(r.data) - len(data))
	return out
}

func (r *reader) bytes() []byte {
	n := r.length(1)
	out := r.data[:n:n]
	r.skip(n)
	return out
}

func (r *reader) u32() []uint32 {
	return view(r, r.length(1), func(u uint32) uint32 { return u })
}

func (r *reader) f32() []float32 {
	return view(r, r.length(1), math.Float32frombits)
}

func (r *reader) table() table.Strings {
	blob := r.bytes()
	off := r.u32()
	if r.err == nil && len(off) == 0 && len(blob) > 0 {
		r.err = errors.New("string table damaged")
	}
	// Offsets out of order or beyond the blob are checked where a string
	// is read (table.Strings.At), not here: the term table grows with the
	// catalog, and reading even its last offset here was a page of the
	// file for each table (TestDecodeReadsHeadAndContents).
	// The buffer is never written after loading: the strings can share it.
	return table.Strings{Blob: unsafe.String(unsafe.SliceData(blob), len(blob)), Off: off}
}
