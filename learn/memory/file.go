package memory

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/skillroute/skillroute/store"
)

// The file's payload, inside the store's cache frame (kind "memory"),
// little-endian throughout:
//
//	header   6 × u32: entries, terms, postings, events, names, catalog length
//	terms    u64 × terms          term hashes, ascending
//	starts   u32 × (terms + 1)    postings of term i: [starts[i], starts[i+1])
//	post     u32 × postings       remembered prompt (entry) of each posting
//	weight   f32 × postings       the term's weight in that prompt's vector
//	length   u32 × entries        terms in each prompt's vector
//	first    u32 × (entries + 1)  events of entry e: [first[e], first[e+1])
//	id       u64 × events
//	ts       i64 × events         Unix nanoseconds
//	corr     u32 × events         name of the skill corrected to (0: none)
//	routed   u32 × events         name of the skill routed to (0: none)
//	kind     u8  × events         1 explicit, 0 implicit
//	names    (u32 length, bytes) × names; names[0] is ""
//	catalog  bytes
//
// The terms and their postings are what Recall reads: a binary search per
// query term, then its postings. Offsets and indices are checked where
// they are read, so a damaged file that passed its checksum (it cannot,
// short of a collision) recalls nothing rather than panicking.
const (
	cacheKind = "memory"
	// FormatVersion changes with the layout above or with the meaning of
	// a vector (how terms are weighted): a file of another version is
	// rebuilt from the feedback log, never misread.
	FormatVersion = 1
	headerLen     = 6 * 4
)

// Save writes the set to path in the store's checksummed frame,
// atomically but unsynced (store.WriteCacheNoSync).
func (s *Set) Save(path string) error {
	names := []string{""}
	nameID := map[string]uint32{"": 0}
	name := func(n string) uint32 {
		id, ok := nameID[n]
		if !ok {
			id = uint32(len(names))
			names = append(names, n)
			nameID[n] = id
		}
		return id
	}
	// The term table: the distinct hashes, sorted, and each one's count
	// of postings; then the postings laid out by a prefix sum and filled
	// walking the entries in order, so each term's run lists its entries
	// ascending. Sorting every posting took most of a rewrite's time.
	nPosts, nEvents := 0, 0
	count := map[uint64]uint32{}
	for _, e := range s.Entries {
		for _, t := range e.Vector {
			count[t.Hash]++
		}
		nPosts += len(e.Vector)
		nEvents += len(e.Events)
	}
	terms := slices.Sorted(maps.Keys(count))
	starts := make([]uint32, len(terms)+1)
	at := make(map[uint64]uint32, len(terms)) // next free posting of each term
	for i, h := range terms {
		starts[i+1] = starts[i] + count[h]
		at[h] = starts[i]
	}
	postEntry := make([]uint32, nPosts)
	postWeight := make([]float32, nPosts)
	for i, e := range s.Entries {
		for _, t := range e.Vector {
			p := at[t.Hash]
			postEntry[p], postWeight[p] = uint32(i), t.Weight
			at[t.Hash] = p + 1
		}
	}

	le := binary.LittleEndian
	b := make([]byte, 0, headerLen+12*len(terms)+8*nPosts+8*len(s.Entries)+21*nEvents+len(s.Catalog)+64)
	u32 := func(v uint32) { b = le.AppendUint32(b, v) }
	u64 := func(v uint64) { b = le.AppendUint64(b, v) }
	// Names are numbered before the header is written, so walk the events
	// once for them first.
	corr := make([]uint32, 0, nEvents)
	routed := make([]uint32, 0, nEvents)
	for _, e := range s.Entries {
		for _, ev := range e.Events {
			corr = append(corr, name(ev.Corrected))
			routed = append(routed, name(ev.Routed))
		}
	}
	for _, v := range []int{len(s.Entries), len(terms), nPosts, nEvents, len(names), len(s.Catalog)} {
		u32(uint32(v))
	}
	for _, t := range terms {
		u64(t)
	}
	for _, v := range starts {
		u32(v)
	}
	for _, e := range postEntry {
		u32(e)
	}
	for _, w := range postWeight {
		u32(math.Float32bits(w))
	}
	for _, e := range s.Entries {
		u32(uint32(len(e.Vector)))
	}
	n := 0
	for _, e := range s.Entries {
		u32(uint32(n))
		n += len(e.Events)
	}
	u32(uint32(n))
	for _, e := range s.Entries {
		for _, ev := range e.Events {
			u64(ev.ID)
		}
	}
	for _, e := range s.Entries {
		for _, ev := range e.Events {
			u64(uint64(ev.TS.UnixNano()))
		}
	}
	for _, v := range corr {
		u32(v)
	}
	for _, v := range routed {
		u32(v)
	}
	for _, e := range s.Entries {
		for _, ev := range e.Events {
			k := byte(0)
			if ev.Explicit {
				k = 1
			}
			b = append(b, k)
		}
	}
	for _, nm := range names {
		u32(uint32(len(nm)))
		b = append(b, nm...)
	}
	b = append(b, s.Catalog...)
	// Unsynced: the memory is derived from the feedback log, which is
	// synced, and a power cut at worst costs its latest version.
	if err := store.WriteCacheNoSync(path, cacheKind, FormatVersion, b); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	return nil
}

// Memory is the memory as the router reads it: the file mapped in place.
// A nil *Memory remembers nothing.
type Memory struct {
	// Now is the time evidence decays to: when the memory was loaded, for
	// one hook call or one command.
	Now time.Time
	// Catalog is the source hash of the index the vectors were weighted
	// with.
	Catalog string

	entries, events int
	journal         []*Entry // events appended since the file was written, one entry each
	terms           []byte   // u64 each
	starts          []byte   // u32 each
	post, weight    []byte
	length, first   []byte
	id, ts          []byte
	corr, routed    []byte
	kind            []byte
	names           []string
}

// ErrDamaged reports a memory file whose layout does not hold together.
var ErrDamaged = errors.New("damaged prompt memory")

// Load maps the memory file at path, as of now. A missing file is an
// error wrapping fs.ErrNotExist; a damaged one or one of another version,
// an error naming it (wrapping store.ErrDamaged or store.ErrVersion): the
// caller goes without, and the next writer rebuilds it.
func Load(path string) (*Memory, error) {
	data, err := store.LoadCache(path, cacheKind, FormatVersion)
	if err != nil {
		return nil, err
	}
	m, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.Now = time.Now()
	return m, nil
}

func decode(data []byte) (*Memory, error) {
	le := binary.LittleEndian
	if len(data) < headerLen {
		return nil, ErrDamaged
	}
	var h [6]int
	for i := range h {
		h[i] = int(le.Uint32(data[4*i:]))
	}
	nEntries, nTerms, nPosts, nEvents, nNames, catLen := h[0], h[1], h[2], h[3], h[4], h[5]
	m := &Memory{entries: nEntries, events: nEvents}
	rest := data[headerLen:]
	take := func(n, size int) []byte {
		if rest == nil || n < 0 || uint64(n)*uint64(size) > uint64(len(rest)) {
			rest = nil
			return nil
		}
		out := rest[:n*size]
		rest = rest[n*size:]
		return out
	}
	m.terms = take(nTerms, 8)
	m.starts = take(nTerms+1, 4)
	m.post = take(nPosts, 4)
	m.weight = take(nPosts, 4)
	m.length = take(nEntries, 4)
	m.first = take(nEntries+1, 4)
	m.id = take(nEvents, 8)
	m.ts = take(nEvents, 8)
	m.corr = take(nEvents, 4)
	m.routed = take(nEvents, 4)
	m.kind = take(nEvents, 1)
	if rest == nil || nNames < 1 || nNames > len(rest)/4 { // each name takes 4 bytes at least
		return nil, ErrDamaged
	}
	m.names = make([]string, nNames)
	for i := range m.names {
		if len(rest) < 4 {
			return nil, ErrDamaged
		}
		n := int(le.Uint32(rest))
		if n > len(rest)-4 {
			return nil, ErrDamaged
		}
		m.names[i] = string(rest[4 : 4+n])
		rest = rest[4+n:]
	}
	if len(rest) != catLen {
		return nil, ErrDamaged
	}
	m.Catalog = string(rest)
	return m, nil
}

// LoadDir loads the memory of the state folder dir as of now: the file
// mapped (Load) and the journal of events appended since. A folder with
// neither is an error wrapping fs.ErrNotExist; a damaged file, an error
// naming it (the journal alone is then still of use, and is returned
// with the error).
func LoadDir(dir string) (*Memory, error) {
	m, err := Load(filepath.Join(dir, File))
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil {
		m = &Memory{Now: time.Now(), names: []string{""}}
	}
	journal, jerr := readJournal(journalPath(dir))
	if jerr != nil {
		return m, errors.Join(err, jerr)
	}
	if missing && len(journal) == 0 {
		return nil, err
	}
	m.journal = journal
	if missing {
		err = nil
	}
	return m, err
}

// Len returns how many prompts the memory holds, a prompt in the journal
// counting once per event there (0 for a nil memory).
func (m *Memory) Len() int {
	if m == nil {
		return 0
	}
	return m.entries + len(m.journal)
}

// Events returns how many events the memory holds.
func (m *Memory) Events() int {
	if m == nil {
		return 0
	}
	return m.events + len(m.journal)
}

func (m *Memory) u32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }

// name returns the skill name of index i, "" for one out of range.
func (m *Memory) name(i uint32) string {
	if int(i) < len(m.names) {
		return m.names[i]
	}
	return ""
}

// eventsOf returns the range of entry e's events, empty when damaged.
func (m *Memory) eventsOf(e int) (from, to int) {
	from, to = int(m.u32(m.first, e)), int(m.u32(m.first, e+1))
	if from > to || to > m.events {
		return 0, 0
	}
	return from, to
}

// event returns event i.
func (m *Memory) event(i int) Event {
	le := binary.LittleEndian
	return Event{
		ID:        le.Uint64(m.id[8*i:]),
		TS:        time.Unix(0, int64(le.Uint64(m.ts[8*i:]))).UTC(),
		Corrected: m.name(m.u32(m.corr, i)),
		Routed:    m.name(m.u32(m.routed, i)),
		Explicit:  m.kind[i] == 1,
	}
}

// Set decodes the whole memory for editing.
func (m *Memory) Set() *Set {
	if m == nil {
		return &Set{}
	}
	s := &Set{Catalog: m.Catalog}
	// One backing array for every vector, each entry's share sized by its
	// stored length, and one for the entries: a rewrite of ten thousand
	// prompts decodes in a few allocations, not a growing slice each.
	s.Entries = make([]*Entry, m.entries)
	entries := make([]Entry, m.entries)
	backing := make([]Term, 0, len(m.post)/4)
	for e := range s.Entries {
		n := min(int(m.u32(m.length, e)), cap(backing)-len(backing))
		entries[e].Vector = backing[len(backing) : len(backing) : len(backing)+n]
		backing = backing[:len(backing)+n]
		s.Entries[e] = &entries[e]
	}
	le := binary.LittleEndian
	for t := 0; t < len(m.terms)/8; t++ {
		hash := le.Uint64(m.terms[8*t:])
		from, to := int(m.u32(m.starts, t)), int(m.u32(m.starts, t+1))
		if from > to || to > len(m.post)/4 {
			continue
		}
		for p := from; p < to; p++ {
			if e := int(m.u32(m.post, p)); e < m.entries {
				s.Entries[e].Vector = append(s.Entries[e].Vector, Term{Hash: hash, Weight: math.Float32frombits(m.u32(m.weight, p))})
			}
		}
	}
	for e, entry := range s.Entries {
		from, to := m.eventsOf(e)
		for i := from; i < to; i++ {
			entry.Events = append(entry.Events, m.event(i))
		}
	}
	kept := s.Entries[:0]
	for _, e := range s.Entries {
		if len(e.Vector) > 0 && len(e.Events) > 0 {
			kept = append(kept, e)
		}
	}
	s.Entries = kept
	for _, e := range m.journal {
		s.Add(e.Vector, e.Events[0])
	}
	return s
}
