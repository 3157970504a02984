package learn_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/store"
	"github.com/skillroute/skillroute/tokenize"
)

const day = 24 * time.Hour

func TestDecay(t *testing.T) {
	tests := []struct {
		name string
		age  time.Duration
		kind string
		want float64
	}{
		{"fresh explicit", 0, feedback.KindExplicit, 0.1},
		{"one half-life", 5 * day, feedback.KindExplicit, 0.05},
		{"two half-lives", 10 * day, feedback.KindExplicit, 0.025},
		{"fresh implicit", 0, feedback.KindImplicit, 0.05},
		{"implicit one half-life", 5 * day, feedback.KindImplicit, 0.025},
		{"future counts as fresh", -3 * day, feedback.KindExplicit, 0.1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, learn.Decay(tt.age, tt.kind), 1e-12)
		})
	}
}

// TestLearnArithmetic pins the exact deltas of single records.
func TestLearnArithmetic(t *testing.T) {
	ix := testIndex()
	redis, latency := tokenize.Normalize("redis"), tokenize.Normalize("latency")
	rec := func(age time.Duration, kind, routed, corrected string) feedback.Record {
		return feedback.Record{TS: t0.Add(-age), Query: "redis latency", Routed: routed, Corrected: corrected, Kind: kind}
	}
	type delta struct{ skill, term string }
	tests := []struct {
		name     string
		rec      feedback.Record
		keywords map[delta]float64 // every expected keyword delta
		skill    map[string]float64
	}{
		{"explicit correction, age 0",
			rec(0, feedback.KindExplicit, "cache-expert", "perf-expert"),
			map[delta]float64{{"perf-expert", latency}: 0.1, {"cache-expert", redis}: -0.1},
			map[string]float64{"perf-expert": 0.1, "cache-expert": -0.1}},
		{"explicit correction, age 5 days",
			rec(5*day, feedback.KindExplicit, "cache-expert", "perf-expert"),
			map[delta]float64{{"perf-expert", latency}: 0.05, {"cache-expert", redis}: -0.05},
			map[string]float64{"perf-expert": 0.05, "cache-expert": -0.05}},
		{"implicit correction, age 0: half",
			rec(0, feedback.KindImplicit, "cache-expert", "perf-expert"),
			map[delta]float64{{"perf-expert", latency}: 0.05, {"cache-expert", redis}: -0.05},
			map[string]float64{"perf-expert": 0.05, "cache-expert": -0.05}},
		// A confirmation reinforces the routed skill at half a correction.
		{"implicit confirmation, age 0",
			rec(0, feedback.KindImplicit, "perf-expert", "perf-expert"),
			map[delta]float64{{"perf-expert", latency}: 0.025},
			map[string]float64{}}, // confirmations move words, not skills
		{"explicit confirmation, age 0",
			rec(0, feedback.KindExplicit, "cache-expert", "cache-expert"),
			map[delta]float64{{"cache-expert", redis}: 0.05},
			map[string]float64{}},
		{"router abstained: only the corrected side",
			rec(0, feedback.KindExplicit, "", "perf-expert"),
			map[delta]float64{{"perf-expert", latency}: 0.1},
			map[string]float64{"perf-expert": 0.1}},
		{"no skill was right: only the routed side",
			rec(0, feedback.KindExplicit, "cache-expert", ""),
			map[delta]float64{{"cache-expert", redis}: -0.1},
			map[string]float64{"cache-expert": -0.1}},
		{"abstention confirmed: nothing",
			rec(0, feedback.KindImplicit, "", ""),
			map[delta]float64{}, map[string]float64{}},
		{"corrected skill matched nothing: skill delta only",
			feedback.Record{TS: t0, Query: "redis", Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindExplicit},
			map[delta]float64{{"cache-expert", redis}: -0.1},
			map[string]float64{"perf-expert": 0.1, "cache-expert": -0.1}},
		{"negated term is not learned",
			feedback.Record{TS: t0, Query: "latency, without redis", Routed: "perf-expert", Corrected: "cache-expert", Kind: feedback.KindExplicit},
			map[delta]float64{{"perf-expert", latency}: -0.1},
			map[string]float64{"cache-expert": 0.1, "perf-expert": -0.1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := learn.Learn([]feedback.Record{tt.rec}, ix, t0)
			got := map[delta]float64{}
			for skill, terms := range w.Keyword {
				for term, d := range terms {
					got[delta{skill, term}] = d
				}
			}
			require.Len(t, got, len(tt.keywords), "keyword deltas: %v", got)
			for k, want := range tt.keywords {
				assert.InDelta(t, want, got[k], 1e-12, "%v", k)
				assert.InDelta(t, want, w.KeywordDelta(k.skill, k.term), 1e-12)
			}
			require.Len(t, w.Skill, len(tt.skill), "skill deltas: %v", w.Skill)
			for skill, want := range tt.skill {
				assert.InDelta(t, want, w.SkillDelta(skill), 1e-12, skill)
			}
			assert.Equal(t, t0, w.Learned)
		})
	}
}

func TestLearnClamp(t *testing.T) {
	ix := testIndex()
	latency := tokenize.Normalize("latency")
	for _, n := range []int{4, 5, 8, 20} {
		t.Run(fmt.Sprint(n, " corrections"), func(t *testing.T) {
			var recs []feedback.Record
			for i := range n {
				recs = append(recs, feedback.Record{TS: t0, Session: fmt.Sprint(i), Query: "redis latency",
					Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindExplicit})
			}
			w := learn.Learn(recs, ix, t0)
			want := min(0.1*float64(n), learn.MaxDelta)
			assert.InDelta(t, want, w.KeywordDelta("perf-expert", latency), 1e-9)
			assert.InDelta(t, -want, w.KeywordDelta("cache-expert", tokenize.Normalize("redis")), 1e-9)
			skill := min(0.1*float64(n), learn.MaxSkillDelta)
			assert.InDelta(t, skill, w.SkillDelta("perf-expert"), 1e-9)
			assert.InDelta(t, -skill, w.SkillDelta("cache-expert"), 1e-9)
			assert.Equal(t, n, w.Records)
		})
	}
	// The clamp applies to the sum, so the order of records does not
	// matter: 10 corrections then 3 the other way give min(1.0 − 0.3, 0.5),
	// where clamping as they come would give 0.5 − 0.3.
	var recs []feedback.Record
	for i := range 13 {
		r := feedback.Record{TS: t0, Session: fmt.Sprint(i), Query: "redis latency", Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindExplicit}
		if i >= 10 {
			r.Routed, r.Corrected = r.Corrected, r.Routed
		}
		recs = append(recs, r)
	}
	assert.InDelta(t, 0.5, learn.Learn(recs, ix, t0).KeywordDelta("perf-expert", latency), 1e-9)
}

// TestOldFeedbackLeavesNoWeights: what the hook reads on every prompt
// holds about a month of feedback, however long the log: a correction
// past its deltas' floor (33 days for an explicit one, 28 for an implicit
// one) leaves nothing, one within it all its deltas.
func TestOldFeedbackLeavesNoWeights(t *testing.T) {
	ix := testIndex()
	latency := tokenize.Normalize("latency")
	for _, tc := range []struct {
		age  time.Duration
		kind string
		kept bool
	}{
		{30 * day, feedback.KindExplicit, true},
		{35 * day, feedback.KindExplicit, false},
		{25 * day, feedback.KindImplicit, true},
		{30 * day, feedback.KindImplicit, false},
	} {
		rec := feedback.Record{TS: t0.Add(-tc.age), Query: "redis latency", Routed: "cache-expert", Corrected: "perf-expert", Kind: tc.kind}
		w := learn.Learn([]feedback.Record{rec}, ix, t0)
		assert.Equal(t, tc.kept, w.KeywordDelta("perf-expert", latency) > 0, "%s %v", tc.kind, tc.age)
		assert.Equal(t, tc.kept, len(w.Keyword) > 0, "%s %v", tc.kind, tc.age)
	}
}

func TestLearnWhitelist(t *testing.T) {
	ix := testIndex()
	recs := []feedback.Record{
		{TS: t0, Query: "redis latency", Routed: "cache-expert", Corrected: "ghost-expert", Kind: feedback.KindExplicit},
		{TS: t0, Query: "redis latency", Routed: "removed-skill", Corrected: "perf-expert", Kind: feedback.KindExplicit},
		{TS: t0, Query: "redis latency", Routed: "cache-expert", Corrected: "perf-expert", Kind: "rumour"}, // invalid: ignored
		{TS: t0, Query: "redis latency", Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindExplicit},
	}
	w := learn.Learn(recs, ix, t0)
	assert.Equal(t, 2, w.Skipped)
	assert.Equal(t, 1, w.Records)
	require.Len(t, w.Skill, 2)
	assert.InDelta(t, 0.1, w.SkillDelta("perf-expert"), 1e-12)
	assert.InDelta(t, -0.1, w.SkillDelta("cache-expert"), 1e-12)
	assert.NotContains(t, w.Keyword, "ghost-expert")
	assert.NotContains(t, w.Skill, "removed-skill")
}

// TestLearnChangesRoute: corrections move a tied route; confirmations of
// the current route keep it.
func TestLearnChangesRoute(t *testing.T) {
	ix := testIndex()
	assert.Equal(t, "cache-expert", router(ix, (*learn.Weights)(nil))("redis latency"))
	corr := feedback.Record{TS: t0, Query: "redis latency", Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindImplicit}
	w := learn.Learn([]feedback.Record{corr}, ix, t0)
	assert.Equal(t, "perf-expert", router(ix, w)("redis latency"))
	conf := feedback.Record{TS: t0, Query: "redis latency", Routed: "cache-expert", Corrected: "cache-expert", Kind: feedback.KindImplicit}
	w = learn.Learn([]feedback.Record{conf}, ix, t0)
	assert.Equal(t, "cache-expert", router(ix, w)("redis latency"))
	assert.Positive(t, w.KeywordDelta("cache-expert", "redi"), "a confirmation reinforces the words")
	assert.Zero(t, w.SkillDelta("cache-expert"), "not the skill as a whole")
}

func TestWeightsNil(t *testing.T) {
	var w *learn.Weights
	assert.Zero(t, w.KeywordDelta("a", "b"))
	assert.Zero(t, w.SkillDelta("a"))
	empty := &learn.Weights{}
	assert.Zero(t, empty.KeywordDelta("a", "b"))
	assert.Zero(t, empty.SkillDelta("a"))
}

func TestWeightsSaveLoad(t *testing.T) {
	dir := t.TempDir()
	ix := testIndex()
	w := learn.Learn([]feedback.Record{{TS: t0, Query: "redis latency", Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindExplicit}}, ix, t0)
	path := filepath.Join(dir, learn.WeightsFile)
	require.NoError(t, w.Save(path))
	got, err := learn.LoadWeights(path)
	require.NoError(t, err)
	assert.Equal(t, w, got)

	tests := []struct {
		name    string
		content string
		check   func(t *testing.T, w *learn.Weights, err error)
	}{
		{"hand edit beyond the clamp", `{"version":1,"keyword":{"a":{"x":7,"y":-9,"z":0}},"skill":{"a":2.5}}`,
			func(t *testing.T, w *learn.Weights, err error) {
				require.NoError(t, err)
				assert.Equal(t, map[string]float64{"x": 0.5, "y": -0.5}, w.Keyword["a"])
				assert.Equal(t, learn.MaxSkillDelta, w.SkillDelta("a"))
			}},
		{"other version", `{"version":99}`,
			func(t *testing.T, w *learn.Weights, err error) {
				assert.ErrorContains(t, err, "version 99")
				assert.ErrorIs(t, err, store.ErrVersion)
				assert.Nil(t, w)
			}},
		{"newer version, with header", `{"skillroute":"weights","version":2,"data":{}}`,
			func(t *testing.T, w *learn.Weights, err error) {
				assert.ErrorContains(t, err, "newer skillroute")
				assert.ErrorIs(t, err, store.ErrVersion)
				assert.Nil(t, w)
			}},
		{"corrupt", `{"version":`,
			func(t *testing.T, w *learn.Weights, err error) {
				assert.ErrorIs(t, err, store.ErrDamaged)
				assert.ErrorContains(t, err, "corrupt.json", "the error names the file")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name+".json")
			require.NoError(t, os.WriteFile(p, []byte(tt.content), 0o644))
			w, err := learn.LoadWeights(p)
			tt.check(t, w, err)
		})
	}
	_, err = learn.LoadWeights(filepath.Join(dir, "missing.json"))
	assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
}

func TestSnapshotsAndRollback(t *testing.T) {
	dir := t.TempDir()
	names, err := learn.Snapshots(dir)
	require.NoError(t, err)
	assert.Empty(t, names)
	require.NoError(t, learn.Snapshot(dir, nil)) // nothing to keep
	for i := 1; i <= 25; i++ {
		require.NoError(t, learn.Snapshot(dir, &learn.Weights{Records: i}))
	}
	names, err = learn.Snapshots(dir)
	require.NoError(t, err)
	require.Len(t, names, learn.MaxSnapshots)
	records := func(path string) int {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var w struct {
			Data learn.Weights `json:"data"`
		}
		require.NoError(t, json.Unmarshal(data, &w))
		return w.Data.Records
	}
	assert.Equal(t, 25, records(names[0]), "newest first")
	assert.Equal(t, 6, records(names[len(names)-1]), "the oldest five are gone")

	tests := []struct {
		n       int
		want    int
		wantErr bool
	}{
		{1, 25, false},
		{2, 24, false},
		{20, 6, false},
		{21, 0, true},
		{0, 0, true},
		{-1, 0, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint("rollback ", tt.n), func(t *testing.T) {
			w, err := learn.Rollback(dir, tt.n)
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, w.Records)
			cur, err := learn.LoadWeights(filepath.Join(dir, learn.WeightsFile))
			require.NoError(t, err)
			assert.Equal(t, tt.want, cur.Records)
		})
	}
	// Rollback does not snapshot: the count is unchanged.
	names, err = learn.Snapshots(dir)
	require.NoError(t, err)
	assert.Len(t, names, learn.MaxSnapshots)
}

func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, learn.WeightsFile)
	first := &learn.Weights{Records: 1}
	require.NoError(t, learn.Replace(dir, first)) // snapshots the empty state
	names, _ := learn.Snapshots(dir)
	require.Len(t, names, 1)
	empty, err := learn.LoadWeights(names[0])
	require.NoError(t, err)
	assert.Zero(t, empty.Records, "rolling back the first adoption returns to no learning")
	require.NoError(t, learn.Replace(dir, &learn.Weights{Records: 2}))
	names, _ = learn.Snapshots(dir)
	require.Len(t, names, 2)
	cur, err := learn.LoadWeights(path)
	require.NoError(t, err)
	assert.Equal(t, 2, cur.Records)
	back, err := learn.Rollback(dir, 1)
	require.NoError(t, err)
	assert.Equal(t, 1, back.Records)

	// An unreadable current file is kept aside, not lost.
	require.NoError(t, os.WriteFile(path, []byte("garbage"), 0o644))
	require.NoError(t, learn.Replace(dir, &learn.Weights{Records: 3}))
	baks, _ := filepath.Glob(filepath.Join(dir, "snapshots", "*.bak"))
	assert.Len(t, baks, 1)
}

// A correction adds the prompt's distinctive words that the corrected
// skill lacks as learned keywords of it (not the words it matched, not
// negated ones, not synonyms); a confirmation adds none.
func TestLearnAddsNewWords(t *testing.T) {
	ix := testIndex()
	recs := []feedback.Record{
		{TS: t0, Query: "paddle webhook latency, 不要 stripe", Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindExplicit},
		{TS: t0, Query: "paddle webhook latency, 不要 stripe", Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindImplicit},
		{TS: t0, Query: "redis hotkeys", Routed: "cache-expert", Corrected: "cache-expert", Kind: feedback.KindImplicit},
	}
	w := learn.Learn(recs, ix, t0)
	added := w.AddedTerms("perf-expert")
	assert.InDelta(t, 0.15, added[tokenize.Normalize("paddle")], 1e-9, "explicit 0.1 + implicit 0.05")
	assert.InDelta(t, 0.15, added["webhook"], 1e-9)
	assert.NotContains(t, added, tokenize.Normalize("latency"), "matched already: its delta is a keyword delta")
	assert.NotContains(t, added, "stripe", "negated")
	assert.Nil(t, w.AddedTerms("cache-expert"), "a confirmation adds nothing")
	assert.Len(t, w.Additions(), 1)
	assert.Nil(t, (*learn.Weights)(nil).Additions())
}
