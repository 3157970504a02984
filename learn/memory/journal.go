package memory

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/skillroute/skillroute/store"
)

// The hook adds a verdict after every skill use, and rewriting the whole
// file for one event cost 30 ms of CPU at ten thousand remembered prompts
// (a 1.8 MB file; BenchmarkUpdate), and 120 ms or more of wall time on a
// busy machine. So the hook appends the event to a small journal beside
// the file instead, one locked write, and the loader reads the journal
// with the file; the next writer that rewrites the file (or an append
// that finds the journal past MaxJournal) folds the journal in and
// empties it.

// JournalFile is the journal of events added since memory.bin was last
// written, in the state folder: one line each,
//
//	v1 <id, hex> <time, Unix ns> <1 explicit | 0> <"corrected"> <"routed"> <vector, base64>
//
// tab-separated, the names quoted (strconv.Quote), the vector as in the
// file, (u64 hash, f32 weight) × n little-endian. Every prompt reads it,
// so it is parsed by hand, without reflection.
const JournalFile = "memory.journal"

// MaxJournal is the size past which Append folds the journal into the
// file: some sixty events, which every prompt reads (BenchmarkLoadJournal
// compares a load with a full journal and with none), folded in once for
// all of them.
const MaxJournal = 16 << 10

// journalMagic opens every line of the journal: its format.
const journalMagic = "v1"

func journalPath(dir string) string { return filepath.Join(dir, JournalFile) }

// Append remembers one event on the prompt of vector v in the state
// folder dir: a line appended to the journal (under its lock, unsynced:
// the feedback log holds the record), folded into memory.bin when the
// journal has outgrown MaxJournal. An empty vector is not remembered.
func Append(ctx context.Context, dir string, v Vector, ev Event, now time.Time) error {
	if len(v) == 0 {
		return nil
	}
	raw := make([]byte, 0, 12*len(v))
	for _, t := range v {
		raw = binary.LittleEndian.AppendUint64(raw, t.Hash)
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(t.Weight))
	}
	x := "0"
	if ev.Explicit {
		x = "1"
	}
	line := strings.Join([]string{journalMagic, strconv.FormatUint(ev.ID, 16), strconv.FormatInt(ev.TS.UnixNano(), 10), x,
		strconv.Quote(ev.Corrected), strconv.Quote(ev.Routed), base64.RawStdEncoding.EncodeToString(raw)}, "\t")
	if err := (&store.Log{Path: journalPath(dir)}).Append(ctx, []byte(line)); err != nil {
		return fmt.Errorf("memory: %w", err)
	}
	if info, err := os.Stat(journalPath(dir)); err == nil && info.Size() > MaxJournal {
		return Update(ctx, dir, now, func(*Set, bool) error { return nil })
	}
	return nil
}

// readJournal returns the journal's events as entries, one each, in the
// order appended. A missing journal is empty; a line that does not parse
// (a writer killed mid-line) is skipped.
func readJournal(path string) ([]*Entry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Entry
	for line := range bytes.Lines(data) {
		if e, ok := parseJournalLine(bytes.TrimRight(line, "\n")); ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// parseJournalLine reads one line of the journal.
func parseJournalLine(line []byte) (*Entry, bool) {
	f := strings.Split(string(line), "\t")
	if len(f) != 7 || f[0] != journalMagic {
		return nil, false
	}
	id, err1 := strconv.ParseUint(f[1], 16, 64)
	ts, err2 := strconv.ParseInt(f[2], 10, 64)
	corr, err3 := strconv.Unquote(f[4])
	routed, err4 := strconv.Unquote(f[5])
	raw, err5 := base64.RawStdEncoding.DecodeString(f[6])
	if errors.Join(err1, err2, err3, err4, err5) != nil || len(raw) == 0 || len(raw)%12 != 0 || f[3] != "0" && f[3] != "1" {
		return nil, false
	}
	v := make(Vector, len(raw)/12)
	for i := range v {
		v[i] = Term{Hash: binary.LittleEndian.Uint64(raw[12*i:]), Weight: math.Float32frombits(binary.LittleEndian.Uint32(raw[12*i+8:]))}
	}
	ev := Event{ID: id, TS: time.Unix(0, ts).UTC(), Corrected: corr, Routed: routed, Explicit: f[3] == "1"}
	return &Entry{Vector: v, Events: []Event{ev}}, true
}
