package disambig

import (
	"os"
	"runtime/debug"
	"syscall"
	"testing"

	"github.com/skillroute/skillroute/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Decoding a rules cache reads the rules' headers and nothing after
// them: the built-in rules' patterns, screens and bodies (most of the
// file) lie past the last header, on pages a hook touches only for the
// few rules a prompt may fire. Here those pages cannot be read at all.
func TestDecodeCacheReadsHeadersOnly(t *testing.T) {
	_, path := savedBuiltinRules(t)
	payload, err := store.LoadCache(path, cacheKind, cacheVersion)
	require.NoError(t, err)
	whole, _, err := decodeCache(path, payload)
	require.NoError(t, err)
	rest := 0
	for _, r := range whole.Rules {
		rest += len(r.Pattern) + len(r.lazy.screen) + len(r.lazy.body)
	}
	headers := len(payload) - rest
	require.Greater(t, rest, 3*headers, "the rules' rest is most of the file")

	// The payload copied so that its rest starts a page, which is then
	// made unreadable.
	page := os.Getpagesize()
	at := (headers+page-1)/page*page - headers
	mem, err := syscall.Mmap(-1, 0, at+len(payload)+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	require.NoError(t, err)
	defer syscall.Munmap(mem)
	copy(mem[at:], payload)
	require.NoError(t, syscall.Mprotect(mem[at+headers:], syscall.PROT_NONE))
	defer syscall.Mprotect(mem[at+headers:], syscall.PROT_READ)

	faulted := func(f func()) (fault any) {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() { fault = recover() }()
		f()
		return nil
	}
	var s *Set
	assert.Nil(t, faulted(func() { s, _, err = decodeCache(path, mem[at:at+len(payload)]) }), "decoding read past the headers")
	require.NoError(t, err)
	require.Len(t, s.Rules, len(whole.Rules))
	assert.Equal(t, whole.Rules[0].ID, s.Rules[0].ID)
	assert.NotNil(t, faulted(func() { s.Rules[0].AllBranches() }), "a rule's branches lie past the headers")
}
