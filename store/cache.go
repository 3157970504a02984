package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Binary cache frame, 32 bytes, every one of them checked on load:
//
//	0   magic "SKRCACHE"
//	8   kind, NUL-padded to 8 bytes ("index", "rules")
//	16  format version, uint32 little-endian
//	20  CRC-32C of bytes 0–19, 24–31 and the payload, uint32 little-endian
//	24  payload length, uint64 little-endian
//	32  payload
//
// 32 is a multiple of 8, so a payload of aligned arrays stays aligned in
// the mapped file.
const (
	cacheMagic = "SKRCACHE"
	// HeaderSize is the length of the frame before the payload.
	HeaderSize = 32
	kindLen    = 8
)

// castagnoli is the CRC-32C table; amd64 and arm64 compute it with one
// instruction per 8 bytes. Made on first use: making it (the tables of
// its hardware path) was 2.9 % of a hook process as a package variable
// (perf record of 200 prompt events), and a hook whose caches are
// verified already computes no checksum.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// sidecarSuffix ends the name of a cache's verification sidecar,
// ".NAME.verified", beside it.
const sidecarSuffix = ".verified"

func sidecarPath(path string) string {
	i := strings.LastIndexByte(path, filepath.Separator) + 1
	return path[:i] + "." + path[i:] + sidecarSuffix
}

func isSidecar(name string) bool {
	return strings.HasPrefix(name, ".") && strings.HasSuffix(name, sidecarSuffix) && len(name) > 1+len(sidecarSuffix)
}

// frameHeader returns the frame of a payload.
func frameHeader(kind string, version uint32, payload []byte) ([]byte, error) {
	if kind == "" || len(kind) > kindLen || strings.IndexByte(kind, 0) >= 0 {
		return nil, fmt.Errorf("cache kind %q: want 1 to %d bytes", kind, kindLen)
	}
	h := make([]byte, HeaderSize)
	copy(h, cacheMagic)
	copy(h[8:], kind)
	binary.LittleEndian.PutUint32(h[16:], version)
	binary.LittleEndian.PutUint64(h[24:], uint64(len(payload)))
	binary.LittleEndian.PutUint32(h[20:], checksum(h, payload))
	return h, nil
}

// checksum is the CRC-32C of a frame's header (but its own field) and
// payload.
func checksum(h, payload []byte) uint32 {
	table := castagnoli()
	c := crc32.Update(0, table, h[:20])
	c = crc32.Update(c, table, h[24:HeaderSize])
	return crc32.Update(c, table, payload)
}

// WriteCache replaces the cache file at path (Write, private) with
// payload in a frame naming its kind (at most 8 bytes) and format version,
// with the payload's length and checksum. It then loads the file it wrote
// once, verifying the checksum over what the file system gives back, and
// remembers that verification (see LoadCache): the first load after a
// write is the writer's, a compile that can afford to read every page,
// not the next hook's, which has 200 ms in all (a 300 MB index takes
// about 300 ms to verify on the development machine, BenchmarkLoadCache).
func WriteCache(path, kind string, version uint32, payload []byte) error {
	return writeCache(path, kind, version, payload, true)
}

// WriteCacheNoSync is WriteCache without the fsyncs (see Codec.NoSync),
// for a cache of derived data that a hook rewrites (the prompt memory,
// after a skill use): a power cut may cost the latest version, which then
// fails its checksum and is rebuilt from the data it was derived from.
// With the fsyncs, rewriting a 1.8 MB memory of 10,000 prompts took 0.36
// to 0.72 s on the development machine while others used its disk, and
// 0.19 s without them (BenchmarkUpdate in learn/memory).
func WriteCacheNoSync(path, kind string, version uint32, payload []byte) error {
	return writeCache(path, kind, version, payload, false)
}

func writeCache(path, kind string, version uint32, payload []byte, sync bool) error {
	h, err := frameHeader(kind, version, payload)
	if err != nil {
		return err
	}
	err = replace(path, Private, sync, func(f *os.File) error {
		if _, err := f.Write(h); err != nil {
			return err
		}
		_, err := f.Write(payload)
		return err
	})
	if err != nil {
		return err
	}
	return verifyWritten(path, kind, version)
}

// WriteCacheStream is WriteCache for a payload of size bytes that fill
// writes, never held whole in memory: a 100,000-skill index is 323 MB,
// and its buffer was that much of a compile's peak. The frame's checksum
// covers the payload's length before the payload, so the length is given
// first; a fill that writes another length is an error, and the file is
// not replaced. sync false skips the fsyncs (WriteCacheNoSync).
func WriteCacheStream(path, kind string, version uint32, size int64, sync bool, fill func(io.Writer) error) error {
	h, err := frameHeader(kind, version, nil)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint64(h[24:], uint64(size))
	// The file replaced is read from the disk by whoever opens it while
	// this one is written (a hook, for the pages it touches); its page
	// cache is the new file's (dropCached).
	dropCached(path)
	err = replace(path, Private, sync, func(f *os.File) error {
		if _, err := f.Write(h); err != nil {
			return err
		}
		cw := &crcWriter{w: f, crc: checksum(h, nil), table: castagnoli()}
		if err := fill(cw); err != nil {
			return err
		}
		if cw.n != size {
			return fmt.Errorf("%s: %d bytes of payload written, %d announced", path, cw.n, size)
		}
		var sum [4]byte
		binary.LittleEndian.PutUint32(sum[:], cw.crc)
		_, err := f.WriteAt(sum[:], 20)
		return err
	})
	if err != nil {
		return err
	}
	return verifyWritten(path, kind, version)
}

// crcWriter writes through to w, counting and checksumming.
type crcWriter struct {
	w     io.Writer
	crc   uint32
	table *crc32.Table
	n     int64
}

func (c *crcWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.crc = crc32.Update(c.crc, c.table, p[:n])
	c.n += int64(n)
	return n, err
}

// verifyWritten loads a cache file just written once, checking it over
// what the file system gives back and recording that in its sidecar.
func verifyWritten(path, kind string, version uint32) error {
	_, data, mapped, err := loadCache(path, kind, version)
	if err != nil {
		return fmt.Errorf("%s: the cache written reads back wrong: %w", path, err)
	}
	unmapFile(data, mapped)
	return nil
}

// LoadCache maps the cache file at path and returns its payload, after
// checking the frame: magic, kind, length and checksum, else an error
// wrapping ErrDamaged; format version, else ErrVersion. Both name the
// file; the caller rebuilds. The payload is the mapped file itself, never
// to be written.
//
// The checksum is computed over the whole file only the first time the
// file is loaded after it was written (by WriteCache itself, for the files
// it writes); success is then recorded in a sidecar file with the file's
// identity (see identity), and later loads of the same, unchanged file
// trust it without reading every page.
func LoadCache(path, kind string, version uint32) ([]byte, error) {
	payload, _, _, err := loadCache(path, kind, version)
	return payload, err
}

// MapCache is LoadCache with evictPages, which drops the file's pages from the
// process's resident memory when the caller is done reading them for a
// while: strings that point into the payload stay valid, and a page
// touched again is read from the file again. For a cache read once and
// then kept (the skills' words a compile reuses, 215 MB at 100,000
// skills), so that it does not stay resident on top of what is built
// from it. Where the file could not be mapped, evictPages does nothing.
func MapCache(path, kind string, version uint32) (payload []byte, evictPages func(), err error) {
	payload, data, mapped, err := loadCache(path, kind, version)
	if err != nil {
		return nil, nil, err
	}
	return payload, func() {
		if mapped {
			evict(data)
		}
	}, nil
}

// CacheHead returns up to n bytes from the start of the payload of the
// cache file at path, after checking the frame's magic, kind, version
// (else ErrVersion) and length, but not its checksum, which would read
// the whole file: for a caller that only needs a header the writer put
// first (an index's stamp, to tell whether it is current), and loads the
// file through LoadCache before using anything else of it.
func CacheHead(path, kind string, version uint32, n int) ([]byte, error) {
	f, info, err := openCache(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !info.Mode().IsRegular() || info.Size() < HeaderSize {
		return nil, fmt.Errorf("%s: not a skillroute cache file: %w", path, ErrDamaged)
	}
	buf := make([]byte, HeaderSize+int(min(int64(n), info.Size()-HeaderSize)))
	if _, err := io.ReadFull(f, buf); err != nil {
		return nil, err
	}
	if err := checkHeader(path, kind, version, buf[:HeaderSize], info.Size()-HeaderSize); err != nil {
		return nil, err
	}
	return buf[HeaderSize:], nil
}

// openCache opens the cache file at path for reading, once its folder
// passes the state folder's checks, and stats it.
func openCache(path string) (*os.File, os.FileInfo, error) {
	if err := checkParent(path); err != nil {
		return nil, nil, err
	}
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// loadCache is LoadCache, returning the whole mapping too.
func loadCache(path, kind string, version uint32) (payload, data []byte, mapped bool, err error) {
	f, info, err := openCache(path)
	if err != nil {
		return nil, nil, false, err
	}
	defer f.Close()
	if !info.Mode().IsRegular() {
		return nil, nil, false, fmt.Errorf("%s: not a regular file: %w", path, ErrDamaged)
	}
	if info.Size() < HeaderSize {
		return nil, nil, false, fmt.Errorf("%s: not a skillroute cache file (%d bytes): %w", path, info.Size(), ErrDamaged)
	}
	data, mapped, err = mapFile(f, info.Size())
	if err != nil {
		return nil, nil, false, err
	}
	payload, err = checkFrame(path, kind, version, data, info)
	if err != nil {
		unmapFile(data, mapped)
		return nil, nil, false, err
	}
	return payload, data, mapped, nil
}

// checkFrame checks a cache file's frame and, unless its sidecar vouches
// for it, its checksum, and returns the payload.
func checkFrame(path, kind string, version uint32, data []byte, info os.FileInfo) ([]byte, error) {
	h := data[:HeaderSize]
	if err := checkHeader(path, kind, version, h, int64(len(data)-HeaderSize)); err != nil {
		return nil, err
	}
	payload := data[HeaderSize:]
	sum := binary.LittleEndian.Uint32(h[20:])
	var buf [128]byte
	stamp, known := verifiedStamp(buf[:0], info, sum)
	if known && verified(path, stamp) {
		return payload, nil
	}
	if checksum(h, payload) != sum {
		return nil, fmt.Errorf("%s: damaged %s cache (checksum mismatch): %w", path, kind, ErrDamaged)
	}
	if known {
		remember(path, stamp)
	}
	return payload, nil
}

// checkHeader checks a cache frame's header h: its magic, kind, version
// (else ErrVersion) and the payload length against size, the bytes the
// file holds after the header.
func checkHeader(path, kind string, version uint32, h []byte, size int64) error {
	switch {
	case string(h[:8]) != cacheMagic:
		return fmt.Errorf("%s: not a skillroute cache file: %w", path, ErrDamaged)
	case len(kind) > kindLen || string(bytes.TrimRight(h[8:16], "\x00")) != kind:
		return fmt.Errorf("%s: a %q cache, not %q: %w", path, bytes.TrimRight(h[8:16], "\x00"), kind, ErrDamaged)
	case binary.LittleEndian.Uint32(h[16:]) != version:
		return fmt.Errorf("%s: %s cache of format version %d, not %d: %w", path, kind, binary.LittleEndian.Uint32(h[16:]), version, ErrVersion)
	case binary.LittleEndian.Uint64(h[24:]) != uint64(size):
		return fmt.Errorf("%s: truncated or damaged %s cache (%d bytes of payload, header says %d): %w",
			path, kind, size, binary.LittleEndian.Uint64(h[24:]), ErrDamaged)
	}
	return nil
}

// Frame returns payload in its cache frame: the bytes WriteCache writes,
// for tests and fuzzing that build cache files themselves.
func Frame(kind string, version uint32, payload []byte) ([]byte, error) {
	h, err := frameHeader(kind, version, payload)
	if err != nil {
		return nil, err
	}
	return append(h, payload...), nil
}

// verifiedStamp is what a sidecar records of a verified file: its
// identity and its frame's checksum. known is false where the platform
// gives no identity.
func verifiedStamp(buf []byte, info os.FileInfo, sum uint32) (stamp []byte, known bool) {
	stamp, known = identity(buf, info)
	return append(strconv.AppendUint(append(stamp, " crc "...), uint64(sum), 16), '\n'), known
}

// Retime sets a cache file's access and modification times to t and
// carries its verification over: a sidecar that vouched for the file
// before vouches for it after, its bytes being the same. Set by
// os.Chtimes alone, the times changed the identity the sidecar records,
// and the next load verified the whole file again: the loader dates an
// index it has just written, so the first hook after every compile read
// and checksummed all of it (386 MB at 100,000 skills, against a 200 ms
// deadline), and so did the next compile's reuse of it.
func Retime(path string, t time.Time) error {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return err
	}
	var h [HeaderSize]byte
	var buf [128]byte
	vouched := false
	if _, err := f.ReadAt(h[:], 0); err == nil {
		stamp, known := verifiedStamp(buf[:0], before, binary.LittleEndian.Uint32(h[20:]))
		vouched = known && verified(path, stamp)
	}
	if err := os.Chtimes(path, t, t); err != nil {
		return err
	}
	if !vouched {
		return nil
	}
	// The times went to whatever the path names now: vouch only if that
	// is still the file checked (a cache is replaced by a rename, never
	// written in place).
	after, err := f.Stat()
	if err != nil {
		return nil
	}
	if now, err := os.Stat(path); err != nil || !os.SameFile(after, now) {
		return nil
	}
	stamp, _ := verifiedStamp(buf[:0], after, binary.LittleEndian.Uint32(h[20:]))
	remember(path, stamp)
	return nil
}

// remember writes the sidecar of a verified cache file. A hint only:
// unsynced, and a failure to write it costs the next load a
// verification, nothing more.
func remember(path string, stamp []byte) {
	_ = replace(sidecarPath(path), Private, false, func(f *os.File) error {
		_, err := f.Write(stamp)
		return err
	})
}

// verified reports whether the sidecar of path records stamp: the file
// was verified when it had the identity it has now.
func verified(path string, stamp []byte) bool {
	f, err := openFile(sidecarPath(path), os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	var buf [129]byte // longer than any stamp: a longer sidecar differs
	n, _ := f.Read(buf[:])
	return bytes.Equal(buf[:n], stamp)
}

// PruneCaches removes all but the keep newest cache files of dir that
// match pattern (a filepath.Match pattern such as "index-*.bin"), each
// with its sidecar, so that rebuilt binaries and edited sources leave no
// pile of old caches. Other sessions may still read a removed one: they
// have it mapped or open, which removal does not disturb.
func PruneCaches(dir, pattern string, keep int) {
	files, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(files) <= keep {
		return
	}
	type aged struct {
		path string
		mod  int64
	}
	list := make([]aged, 0, len(files))
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			list = append(list, aged{f, info.ModTime().UnixNano()})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].mod > list[j].mod })
	for _, a := range list[min(keep, len(list)):] {
		os.Remove(a.path)
		os.Remove(sidecarPath(a.path))
	}
}

// A cache file rewritten whole only when much has changed: a writer that
// changed little writes what changed to a delta file beside it (DeltaPath),
// which the next reader reads over it; at 100,000 skills a whole file is
// 100 MB. Whatever the delta holds names the file it goes with, so that a
// delta of another file is no delta.

// DeltaPath is where the delta of the cache file at path lies.
func DeltaPath(path string) string { return path + ".delta" }

// SmallDelta reports whether changes (entries changed, gone or unused)
// against a file of total entries go to a delta: at most one in eight of
// them, or 64, whichever is more. Past that, the file is rewritten.
func SmallDelta(changes, total int) bool { return changes <= max(64, total/8) }

// RemoveDelta removes the delta of the cache file at path, once the file
// is rewritten whole; none is no error.
func RemoveDelta(path string) error {
	if err := os.Remove(DeltaPath(path)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
