package index

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"

	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
	"github.com/skillroute/skillroute/tokenize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tocAt returns where the table of contents of an index payload starts,
// and where the offset saying so ends (the head before it).
func tocAt(t *testing.T, payload []byte) (head, at int) {
	p := len(magic) + 8 // the format
	for range 3 {       // the source hash, the stamp, the names' hash
		p += 8 + int(binary.LittleEndian.Uint64(payload[p:]))
	}
	p += 8 // the average length
	return p + 8, int(binary.LittleEndian.Uint64(payload[p:]))
}

// builtinPayload compiles the built-in catalog, with the built-in
// synonyms and glossary, and returns its index file's payload.
func builtinPayload(t *testing.T) (*Index, []byte) {
	cat, err := skills.Builtin()
	require.NoError(t, err)
	syn, err := tokenize.ParseSynonyms(rules.SynonymsName, rules.Synonyms)
	require.NoError(t, err)
	gloss, err := tokenize.ParseGlossary(rules.GlossaryName, rules.Glossary)
	require.NoError(t, err)
	ix := Compile(cat, syn, Options{Glossary: gloss})
	path := filepath.Join(t.TempDir(), "index.bin")
	require.NoError(t, ix.Save(path))
	payload, err := store.LoadCache(path, cacheKind, FormatVersion)
	require.NoError(t, err)
	return ix, payload
}

// Loading an index reads its head and its table of contents, and none of
// the arrays between them (here they cannot be read at all): each
// array's length before it put a page of the file in every hook's way.
func TestDecodeReadsHeadAndContents(t *testing.T) {
	ix, payload := builtinPayload(t)
	head, at := tocAt(t, payload)
	page := os.Getpagesize()
	from, to := (head+page-1)/page*page, at/page*page
	require.Greater(t, to-from, len(payload)/2, "the arrays are most of the file")

	mem, err := syscall.Mmap(-1, 0, len(payload), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	defer syscall.Munmap(mem)
	copy(mem, payload)
	require.NoError(t, syscall.Mprotect(mem[from:to], syscall.PROT_NONE))
	defer syscall.Mprotect(mem[from:to], syscall.PROT_READ)
	faulted := func(f func()) (fault any) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { fault = recover() }()
		f()
		return nil
	}
	var got *Index
	assert.Nil(t, faulted(func() { got, err = decode("index.bin", mem) }), "loading read the arrays")
	require.NoError(t, err)
	assert.Equal(t, ix.Stamp, got.Stamp)
	assert.Equal(t, ix.Skills.Len(), got.Skills.Len())
	assert.NotNil(t, faulted(func() { readU32 = got.PostSkill[len(got.PostSkill)/2] }), "the postings lie between the two")
}

// readU32 takes a value read only to touch its page.
var readU32 uint32

// A table of contents that does not fit its file is an error naming the
// file, never a panic or an index read askew.
func TestDamagedTableOfContents(t *testing.T) {
	_, payload := builtinPayload(t)
	head, at := tocAt(t, payload)
	damage := map[string]func(p []byte) []byte{
		"offset past the end":   func(p []byte) []byte { binary.LittleEndian.PutUint64(p[head-8:], uint64(len(p)+8)); return p },
		"offset into the head":  func(p []byte) []byte { binary.LittleEndian.PutUint64(p[head-8:], 3); return p },
		"offset a number early": func(p []byte) []byte { binary.LittleEndian.PutUint64(p[head-8:], uint64(at-8)); return p },
		"count too high": func(p []byte) []byte {
			binary.LittleEndian.PutUint64(p[at:], binary.LittleEndian.Uint64(p[at:])+1)
			return p
		},
		"count too low": func(p []byte) []byte {
			binary.LittleEndian.PutUint64(p[at:], binary.LittleEndian.Uint64(p[at:])-1)
			return p
		},
		"cut":              func(p []byte) []byte { return p[:len(p)-8] },
		"a length changed": func(p []byte) []byte { p[at+8+8*5+1]++; return p }, // by 256 bytes
	}
	_, err := decode("cache/index-x.bin", payload)
	require.NoError(t, err)
	for name, f := range damage {
		t.Run(name, func(t *testing.T) {
			_, err := decode("cache/index-x.bin", f(append([]byte(nil), payload...)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "cache/index-x.bin")
		})
	}
}

// Loading builds nothing of the size of a table: the synonym groups' ids,
// a list of strings before, were a 15 KB slice (four fresh pages of each
// hook process) for the built-in 937.
func TestDecodeAllocatesLittle(t *testing.T) {
	_, payload := builtinPayload(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	ix, err := decode("index.bin", payload)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Greater(t, ix.Synonyms.Groups.Len(), 900)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<10))
}
