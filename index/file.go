package index

import (
	"bufio"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// magic opens every index file, so that a wrong file is named as such.
const magic = "skillroute-index\n"

// ErrStale reports an index file written by another format version.
var ErrStale = errors.New("index file is from another version of skillroute")

// Save writes the index to path atomically (temp file and rename), so a
// hook reading it concurrently sees the old file or the new, never half.
func (ix *Index) Save(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".index-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriter(f)
	w.WriteString(magic)
	if err := gob.NewEncoder(w).Encode(ix); err != nil {
		f.Close()
		return fmt.Errorf("encode index: %w", err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// Load reads an index written by Save.
func Load(path string) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	head := make([]byte, len(magic))
	if _, err := io.ReadFull(r, head); err != nil || string(head) != magic {
		return nil, fmt.Errorf("%s: not a skillroute index", path)
	}
	var ix Index
	if err := gob.NewDecoder(r).Decode(&ix); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if ix.Format != FormatVersion {
		return nil, fmt.Errorf("%s: %w", path, ErrStale)
	}
	return &ix, nil
}
