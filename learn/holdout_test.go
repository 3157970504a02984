package learn_test

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/feedback"
)

func manyRecords(n int) []feedback.Record {
	out := make([]feedback.Record, n)
	for i := range out {
		out[i] = feedback.Record{TS: t0.Add(time.Duration(i) * time.Minute), Session: fmt.Sprint("s", i%17),
			Query: fmt.Sprint("prompt ", i), Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindImplicit}
	}
	return out
}

func TestSplit(t *testing.T) {
	recs := manyRecords(2000)
	train, test := learn.Split(recs)
	assert.Len(t, append(train, test...), len(recs))
	share := float64(len(train)) / float64(len(recs))
	assert.InDelta(t, learn.TrainShare, share, 0.03, "about 70/30: %d/%d", len(train), len(test))

	// Deterministic: again, and in another order, each record lands on
	// the same side.
	train2, test2 := learn.Split(recs)
	assert.Equal(t, train, train2)
	assert.Equal(t, test, test2)
	side := map[string]bool{}
	for _, r := range train {
		side[r.Query] = true
	}
	shuffled := append([]feedback.Record(nil), recs...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	train3, test3 := learn.Split(shuffled)
	for _, r := range train3 {
		assert.True(t, side[r.Query], r.Query)
	}
	for _, r := range test3 {
		assert.False(t, side[r.Query], r.Query)
	}

	// What the hash covers decides the side; the routed skill, kind and
	// confidence do not (a duplicate report lands with the original).
	r := recs[0]
	dup := r
	dup.Routed, dup.Kind, dup.Confidence = "other", feedback.KindExplicit, 0.9
	var other feedback.Record // one from the other side, so neither share is empty
	for _, o := range recs {
		if side[o.Query] != side[r.Query] {
			other = o
			break
		}
	}
	a, _ := learn.Split([]feedback.Record{r, dup, other})
	together := 0
	for _, x := range a {
		if x.Query == r.Query {
			together++
		}
	}
	assert.True(t, together == 0 || together == 2, "the duplicate lands with the original")

	// Neither share is left empty when there are two records or more.
	same := []feedback.Record{r, dup}
	tr2, te2 := learn.Split(same)
	assert.Len(t, tr2, 1)
	assert.Len(t, te2, 1)

	tr, te := learn.Split(nil)
	assert.Empty(t, tr)
	assert.Empty(t, te)
}

func TestAccuracy(t *testing.T) {
	route := func(q string) string {
		return map[string]string{"a": "x", "b": "y", "c": ""}[q]
	}
	tests := []struct {
		name string
		test []feedback.Record
		want float64
	}{
		{"empty", nil, 0},
		{"correction matched", []feedback.Record{{Query: "a", Routed: "y", Corrected: "x"}}, 1},
		{"confirmation matched", []feedback.Record{{Query: "b", Routed: "y", Corrected: "y"}}, 1},
		{"abstaining was right", []feedback.Record{{Query: "c", Routed: "x", Corrected: ""}}, 1},
		{"half", []feedback.Record{{Query: "a", Corrected: "x"}, {Query: "b", Corrected: "x"}}, 0.5},
		{"routing the wrong skill again", []feedback.Record{{Query: "b", Routed: "y", Corrected: "x"}}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, learn.Accuracy(tt.test, route), 1e-12)
		})
	}
}

func TestTrial(t *testing.T) {
	ix := testIndex()
	var recs []feedback.Record
	for i := range 40 {
		recs = append(recs, feedback.Record{TS: t0.Add(-time.Duration(i) * time.Hour), Session: fmt.Sprint("s", i),
			Query: "redis latency", Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindImplicit})
	}
	route := func(w *learn.Weights) func(string) string { return router(ix, w) }
	tests := []struct {
		name    string
		records []feedback.Record
		route   func(*learn.Weights) func(string) string
		adopted bool
		before  float64
		after   float64
	}{
		{"learning fixes the route", recs, route, true, 0, 1},
		{"no change is adopted", recs, func(*learn.Weights) func(string) string { return router(ix, (*learn.Weights)(nil)) }, true, 0, 0},
		{"worse is rejected", recs, func(w *learn.Weights) func(string) string {
			if w == nil {
				return func(string) string { return "perf-expert" }
			}
			return func(string) string { return "cache-expert" }
		}, false, 1, 0},
		{"nothing held out: not adopted", nil, route, false, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, o := learn.Trial(tt.records, ix, t0, nil, tt.route)
			require.NotNil(t, w)
			assert.Equal(t, tt.adopted, o.Adopted)
			assert.Equal(t, len(tt.records), o.Records)
			assert.Equal(t, o.Records, o.Train+o.Test)
			assert.InDelta(t, tt.before, o.Before, 1e-12)
			assert.InDelta(t, tt.after, o.After, 1e-12)
		})
	}
}

// Update is the adoption policy of `skillroute learn`: weights are
// replaced only when the held-out trial allows it and not on a dry run;
// what is adopted is learned from every record, the held-out ones too;
// the weights replaced are snapshotted first.
func TestUpdate(t *testing.T) {
	ix := testIndex()
	var recs []feedback.Record
	for i := range 12 {
		recs = append(recs, feedback.Record{TS: t0.Add(-time.Duration(i) * time.Hour), Session: fmt.Sprint("s", i),
			Query: "redis latency", Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindExplicit})
	}
	train, test := learn.Split(recs)
	require.NotEmpty(t, test)
	route := func(w *learn.Weights) func(string) string { return router(ix, w) }
	worse := func(w *learn.Weights) func(string) string {
		if w == nil {
			return func(string) string { return "perf-expert" }
		}
		return func(string) string { return "cache-expert" }
	}
	weights := func(dir string) *learn.Weights {
		w, err := learn.LoadWeights(filepath.Join(dir, learn.WeightsFile))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		require.NoError(t, err)
		return w
	}

	tests := []struct {
		name     string
		route    func(*learn.Weights) func(string) string
		dryRun   bool
		adopted  bool
		written  bool
		snapshot int
	}{
		{"adopted and written", route, false, true, true, 1},
		{"dry run: adopted, nothing written", route, true, true, false, 0},
		{"worse: refused, nothing written", worse, false, false, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out, err := learn.Update(dir, recs, ix, t0, tt.route, tt.dryRun)
			require.NoError(t, err)
			assert.Equal(t, tt.adopted, out.Adopted)
			assert.Equal(t, len(recs), out.Records)
			w := weights(dir)
			assert.Equal(t, tt.written, w != nil)
			snaps, err := learn.Snapshots(dir)
			require.NoError(t, err)
			assert.Len(t, snaps, tt.snapshot, "the weights replaced are snapshotted")
			if w != nil {
				assert.Equal(t, len(recs), w.Records, "learned from every record, the held-out share too")
				assert.NotEqual(t, len(train), w.Records)
				assert.Equal(t, learn.Learn(recs, ix, t0), w)
			}
		})
	}

	// A second adoption snapshots the first; a damaged current file is
	// judged as no weights and kept aside, not lost.
	dir := t.TempDir()
	_, err := learn.Update(dir, recs, ix, t0, route, false)
	require.NoError(t, err)
	_, err = learn.Update(dir, recs, ix, t0.Add(time.Hour), route, false)
	require.NoError(t, err)
	snaps, _ := learn.Snapshots(dir)
	assert.Len(t, snaps, 2)
	require.NoError(t, os.WriteFile(filepath.Join(dir, learn.WeightsFile), []byte("{torn"), 0o600))
	out, err := learn.Update(dir, recs, ix, t0, route, false)
	require.NoError(t, err)
	assert.True(t, out.Adopted)
	assert.NotNil(t, weights(dir))
	baks, _ := filepath.Glob(filepath.Join(dir, "snapshots", "*.bak"))
	assert.Len(t, baks, 1)
}
