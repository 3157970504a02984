package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// release unmaps the file a loaded payload came from, so that a benchmark
// of thousands of loads stays under the kernel's limit on mappings
// (loads in the hook are never released: see mapFile).
func release(payload []byte) {
	if len(payload) == 0 {
		return
	}
	base := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(&payload[0]), -HeaderSize)), len(payload)+HeaderSize)
	unmapFile(base, true)
}

// BenchmarkLoadCache measures loading a cache file of 1 MB (the built-in
// index is 0.5 MB) and of 300 MB (a catalog of tens of thousands of
// skills): "verify" is the first load after a write, which reads every
// page for the checksum; "remembered" is every later load, which the
// sidecar spares that pass.
func BenchmarkLoadCache(b *testing.B) {
	for _, size := range []int{1 << 20, 300 << 20} {
		path := filepath.Join(b.TempDir(), "index.bin")
		payload := make([]byte, size)
		for i := range payload {
			payload[i] = byte(i * 7)
		}
		if err := WriteCache(path, "index", 1, payload); err != nil {
			b.Fatal(err)
		}
		payload = nil
		b.Run(fmt.Sprintf("%dMB/verify", size>>20), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				os.Remove(sidecarPath(path))
				p, err := LoadCache(path, "index", 1)
				if err != nil {
					b.Fatal(err)
				}
				release(p)
			}
		})
		b.Run(fmt.Sprintf("%dMB/remembered", size>>20), func(b *testing.B) {
			if _, err := LoadCache(path, "index", 1); err != nil { // verified once
				b.Fatal(err)
			}
			for b.Loop() {
				p, err := LoadCache(path, "index", 1)
				if err != nil {
					b.Fatal(err)
				}
				release(p)
			}
		})
	}
}

// BenchmarkWriteFile measures replacing a small state file (a session) with
// and without the fsyncs, with the median and 99th percentile: on a disk
// that others are writing to, an fsync waits for their data too.
func BenchmarkWriteFile(b *testing.B) {
	data := []byte(`{"skillroute":"session","version":1,"data":{"id":"s","recent":["performance-expert","vue-expert"]}}`)
	for _, sync := range []bool{true, false} {
		name := "sync"
		if !sync {
			name = "nosync"
		}
		b.Run(name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "sessions", "s.json")
			var times []time.Duration
			for b.Loop() {
				start := time.Now()
				err := replace(path, Private, sync, func(f *os.File) error {
					_, err := f.Write(data)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			reportTimes(b, times)
		})
	}
	// What the unsynced replace avoids by exchanging (exchange_linux.go):
	// a rename over the existing file.
	b.Run("nosync-rename", func(b *testing.B) {
		dir := b.TempDir()
		path := filepath.Join(dir, "s.json")
		require.NoError(b, os.WriteFile(path, data, 0o600))
		var times []time.Duration
		for b.Loop() {
			start := time.Now()
			f, err := os.CreateTemp(dir, ".s-*")
			require.NoError(b, err)
			_, err = f.Write(data)
			require.NoError(b, errors.Join(err, f.Close()))
			require.NoError(b, os.Rename(f.Name(), path))
			times = append(times, time.Since(start))
		}
		reportTimes(b, times)
	})
}

// reportTimes reports the median and 99th percentile of times.
func reportTimes(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds()), "p99-ns")
}
