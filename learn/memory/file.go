package memory

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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
// atomically.
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
	type posting struct {
		hash   uint64
		entry  uint32
		weight float32
	}
	var posts []posting
	nEvents := 0
	for i, e := range s.Entries {
		for _, t := range e.Vector {
			posts = append(posts, posting{t.Hash, uint32(i), t.Weight})
		}
		nEvents += len(e.Events)
	}
	slices.SortFunc(posts, func(a, b posting) int {
		switch {
		case a.hash != b.hash:
			if a.hash < b.hash {
				return -1
			}
			return 1
		case a.entry != b.entry:
			return int(a.entry) - int(b.entry)
		}
		return 0
	})
	var terms []uint64
	var starts []uint32
	for i, p := range posts {
		if i == 0 || p.hash != posts[i-1].hash {
			terms = append(terms, p.hash)
			starts = append(starts, uint32(i))
		}
	}
	starts = append(starts, uint32(len(posts)))

	le := binary.LittleEndian
	var b []byte
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
	for _, v := range []int{len(s.Entries), len(terms), len(posts), nEvents, len(names), len(s.Catalog)} {
		u32(uint32(v))
	}
	for _, t := range terms {
		u64(t)
	}
	for _, v := range starts {
		u32(v)
	}
	for _, p := range posts {
		u32(p.entry)
	}
	for _, p := range posts {
		u32(math.Float32bits(p.weight))
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
	if err := store.WriteCache(path, cacheKind, FormatVersion, b); err != nil {
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
	terms           []byte // u64 each
	starts          []byte // u32 each
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

// Len returns how many prompts the memory holds (0 for a nil memory).
func (m *Memory) Len() int {
	if m == nil {
		return 0
	}
	return m.entries
}

// Events returns how many events the memory holds.
func (m *Memory) Events() int {
	if m == nil {
		return 0
	}
	return m.events
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
	s.Entries = make([]*Entry, m.entries)
	for e := range s.Entries {
		s.Entries[e] = &Entry{}
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
	return s
}
