package store

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// ErrNotRegular reports a FIFO, a device, a socket or a folder where a
// file was expected.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge reports a file over the size its reader allows.
var ErrTooLarge = errors.New("too large")

// ReadRegular reads a file that a user or a cloned repository controls (a
// SKILL.md, a project's marker file, the user's settings): only a regular
// file, and at most max bytes of it. The open does not block, so a FIFO
// cannot stall it before the check, and a link to /dev/zero is refused
// before a byte is read. Errors name the file and wrap ErrNotRegular or
// ErrTooLarge.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, info, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > max {
		return nil, fmt.Errorf("%s: %w: %d bytes, more than %d", path, ErrTooLarge, info.Size(), max)
	}
	return readSized(f, path, info.Size(), max)
}

// openRegular opens path for reading without blocking (a FIFO must not
// stall the open) and stats it: only a regular file, else an error naming
// it that wraps ErrNotRegular.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := openNonblocking(path)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%s: %w (%v)", path, ErrNotRegular, info.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// readSized reads an open file of the given size (as its stat said), to
// its end or past max bytes (then ErrTooLarge). Sized by the file
// (io.ReadAll starts at 512 bytes and grows, copying); one byte more
// shows the end.
func readSized(f *os.File, path string, size, max int64) ([]byte, error) {
	data := make([]byte, 0, min(size, max)+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if int64(len(data)) > max {
			break
		}
		if len(data) == cap(data) { // the file grew since its stat
			data = append(data, 0)[:len(data)]
		}
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s: %w: more than %d bytes", path, ErrTooLarge, max)
	}
	return data, nil
}

// readFile is os.ReadFile for the state folder's own files: opened
// without the poller (openFile), and sized by one stat. It holds a shared
// lock on the file while it reads, so that the file is not filled again
// as a spare under it (replaceSpare).
func readFile(path string) ([]byte, error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	shareLock(f)
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readSized(f, path, info.Size(), math.MaxInt64-1)
}

// MapFile maps a file read-only, or where it cannot be mapped or is small
// (maxReadNotMapped) reads it, and returns its bytes and the function that
// releases them (which the bytes must not outlive). For a reader of part of a large file that
// pages it needs without copying it into fresh memory: the hook reads the
// end of a log of hundreds of kilobytes. A file truncated while mapped
// faults on the pages past its end: a reader that cannot rule that out
// runs with debug.SetPanicOnFault and recovers.
func MapFile(path string) (data []byte, release func(), err error) {
	f, info, err := openRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if info.Size() <= maxReadNotMapped {
		data := make([]byte, info.Size())
		n, err := io.ReadFull(f, data)
		if err != nil && err != io.ErrUnexpectedEOF { // truncated since its stat: what is left
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		return data[:n], func() {}, nil
	}
	data, mapped, err := mapFile(f, info.Size())
	if err != nil {
		return nil, nil, err
	}
	return data, func() { unmapFile(data, mapped) }, nil
}

// maxReadNotMapped is the size up to which MapFile reads a file rather
// than map it. Reading costs a page fault per fresh 4 KiB page of the
// buffer; a mapping costs its mmap and munmap calls, and the munmap
// interrupts the process's other threads to flush their TLBs (the hook's
// trajectory log of 6 KB: mmap, munmap and the IPIs of
// flush_tlb_mm_range in perf record, against one read).
const maxReadNotMapped = 16 << 10
