package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/skillroute/skillroute/internal/jsondec"
	"github.com/skillroute/skillroute/internal/jsonenc"
)

// ErrDamaged reports a state file or cache that cannot be what it claims:
// not parseable, truncated, of another kind, or failing its checksum.
var ErrDamaged = errors.New("damaged")

// ErrVersion reports a file written in another format version than the
// one this build reads: a newer skillroute's, or an older one's that is
// rebuilt rather than misread.
var ErrVersion = errors.New("another format version")

// Codec reads and writes one kind of small JSON state file (a session,
// the workflow statistics, learned weights, a calibration table) inside a
// header that names the kind and its format version:
//
//	{"skillroute": "weights", "version": 1, "data": {...}}
//
// A file written before the header existed (the whole file is the data)
// is read as the version its own "version" field gives, else 1: every
// kind's layout then is its version 1, so nothing is lost on upgrade.
type Codec struct {
	// Kind names what the file holds, in its header and in errors.
	Kind string
	// Version is the format version this build writes and reads; raise it
	// when the data's meaning changes.
	Version int
	// Indent writes the file indented, for files people read (weights,
	// tables); the hook's files stay compact.
	Indent bool
	// NoSync writes the file atomically but without the two fsyncs of
	// Write, for the files the hook rewrites on every prompt (a session,
	// the workflow statistics): a power cut may then cost the latest
	// version, read back as damaged and started afresh. With the fsyncs,
	// replacing a session took 0.5-1.3 ms at the median and 25-36 ms at
	// the 99th percentile on the development machine while others used
	// its disk; without, 0.08-0.11 ms and 4-7 ms (BenchmarkWriteFile).
	// An existing file written under its lock (Lock) is replaced through
	// its spare (replaceSpare), not through a new temp file each time.
	NoSync bool
	// KeepTemps leaves the temp files killed writers left in the file's
	// folder for the caller to clean (CleanTemps), instead of listing the
	// folder in every process that writes there: for the hook's sessions,
	// written on every prompt in a folder of a week's sessions, cleaned at
	// each session's start (0.05 ms of a hook process's 2.5 ms in perf
	// record of 400 prompt events at 50 skills, and more with more
	// sessions).
	KeepTemps bool
}

// header is a Codec file's frame.
type header struct {
	Kind    string `json:"skillroute"`
	Version int    `json:"version"`
	Data    any    `json:"data"`
}

// Marshal encodes v with the codec's header.
func (c Codec) Marshal(v any) ([]byte, error) {
	h := header{Kind: c.Kind, Version: c.Version, Data: v}
	if c.Indent {
		data, err := json.MarshalIndent(h, "", "  ")
		return append(data, '\n'), err
	}
	return json.Marshal(h)
}

// Unmarshal decodes data, the content of the file name, into v. A file of
// another kind or not parseable is an error wrapping ErrDamaged; one of
// another version, ErrVersion. Both name the file.
func (c Codec) Unmarshal(name string, data []byte, v any) error {
	var h frame
	if !h.decode(data) {
		if err := json.Unmarshal(data, &h); err != nil {
			return fmt.Errorf("%s: damaged %s file (%v): %w", name, c.Kind, err, ErrDamaged)
		}
	}
	version, payload := 1, data
	switch {
	case h.Kind == nil: // written before the header: the file is the data
		if h.Version != nil {
			version = *h.Version
		}
	case *h.Kind != c.Kind:
		return fmt.Errorf("%s: a %q file, not a %s file: %w", name, *h.Kind, c.Kind, ErrDamaged)
	case h.Version == nil || h.Data == nil:
		return fmt.Errorf("%s: damaged %s file (no version or data): %w", name, c.Kind, ErrDamaged)
	default:
		version, payload = *h.Version, h.Data
	}
	switch {
	case version > c.Version:
		return fmt.Errorf("%s: %s file of format version %d, written by a newer skillroute (this one reads %d); upgrade skillroute: %w",
			name, c.Kind, version, c.Version, ErrVersion)
	case version < c.Version:
		return fmt.Errorf("%s: %s file of format version %d, older than this skillroute's %d: %w", name, c.Kind, version, c.Version, ErrVersion)
	}
	if fd, ok := v.(FastDecoder); ok && fd.DecodeJSON(payload) {
		return nil
	}
	if err := json.Unmarshal(payload, v); err != nil {
		return fmt.Errorf("%s: damaged %s file (%v): %w", name, c.Kind, err, ErrDamaged)
	}
	return nil
}

// FastDecoder is a value that decodes its own JSON without reflection
// when the JSON is of a plain form (package jsondec): Unmarshal gives it
// the data first, and decodes with encoding/json when it reports false,
// having changed nothing.
type FastDecoder interface {
	DecodeJSON(data []byte) bool
}

// frame is a Codec file's header as read.
type frame struct {
	Kind    *string         `json:"skillroute"`
	Version *int            `json:"version"`
	Data    json.RawMessage `json:"data"`
}

// decode reads a header of the plain form (jsondec), as json.Unmarshal
// would, or reports false, having set nothing (TestFrameAsUnmarshal).
func (h *frame) decode(data []byte) bool {
	var kind string
	var version int
	var g frame
	d := jsondec.New(data)
	o := d.Object("skillroute", "version", "data")
	for k, ok := o.Next(); ok; k, ok = o.Next() {
		switch k {
		case 0:
			kind, g.Kind = d.String(), &kind
		case 1:
			version, g.Version = int(d.Int()), &version
		case 2:
			g.Data = d.Raw()
		}
	}
	if !d.Done() {
		return false
	}
	*h = g
	return true
}

// Read decodes the file at path into v (see Unmarshal). A missing file is
// an error wrapping fs.ErrNotExist. The file's folder must pass CheckDir.
func (c Codec) Read(path string, v any) error {
	data, err := c.Bytes(path)
	if err != nil {
		return err
	}
	return c.Unmarshal(path, data, v)
}

// Bytes reads the file at path as Read does, without decoding it: a
// caller that read it before can tell whether it changed since, and
// decode it again (Unmarshal) only then.
func (c Codec) Bytes(path string) ([]byte, error) {
	if err := checkParent(path); err != nil {
		return nil, err
	}
	return readFile(path)
}

// Write encodes v with the header and replaces the file at path with it
// (WriteFile, unsynced with NoSync).
func (c Codec) Write(path string, v any) error {
	data, err := c.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return c.write(path, data)
}

// WriteJSON is Write for a value its caller encoded (data: its compact
// JSON, as json.Marshal gives it): the file is the bytes Write writes for
// the value (TestWriteJSONAsWrite).
func (c Codec) WriteJSON(path string, data []byte) error {
	framed := jsonenc.AppendString([]byte(`{"skillroute":`), c.Kind)
	framed = strconv.AppendInt(append(framed, `,"version":`...), int64(c.Version), 10)
	framed = append(append(append(framed, `,"data":`...), data...), '}')
	if c.Indent {
		var b bytes.Buffer
		if err := json.Indent(&b, framed, "", "  "); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		framed = append(b.Bytes(), '\n')
	}
	return c.write(path, framed)
}

// write replaces the file at path with data, encoded.
func (c Codec) write(path string, data []byte) error {
	p := Private
	_, locked := held.Load(path)
	p.KeepTemps, p.spare = c.KeepTemps, c.NoSync && locked
	return replace(path, p, !c.NoSync, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}
