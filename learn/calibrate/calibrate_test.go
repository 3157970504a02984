package calibrate_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/learn/calibrate"
	"github.com/skillroute/skillroute/learn/category"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/store"
)

// t0 is the "now" of the calibration tests.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestWilson(t *testing.T) {
	tests := []struct {
		p    float64
		n    int
		want float64
	}{
		{0, 0, 0},
		{1, 10, 0.7225},
		{0.5, 100, 0.4038},
		{0.9, 50, 0.7864},
		{0, 10, 0},
	}
	for _, tt := range tests {
		assert.InDelta(t, tt.want, calibrate.Wilson(tt.p, tt.n), 1e-4, "p %v n %v", tt.p, tt.n)
	}
}

// cell returns n samples of one arm with the given mean accuracy (k of n
// right) and cost.
func cell(cat, arm string, n, right int, cost float64) []calibrate.Sample {
	out := make([]calibrate.Sample, n)
	for i := range out {
		out[i] = calibrate.Sample{Category: cat, Arm: arm, Cost: cost}
		if i < right {
			out[i].Correct = 1
		}
	}
	return out
}

func cat(parts ...[]calibrate.Sample) []calibrate.Sample {
	var out []calibrate.Sample
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestAggregate(t *testing.T) {
	agg := calibrate.Aggregate(cat(
		cell("debug", "a", 4, 3, 100),
		[]calibrate.Sample{{Category: "debug", Arm: "b", Cost: -5, Correct: 2}, {Category: "debug", Arm: "b", Cost: 10, Correct: 0.5}},
		cell("docs", "a", 1, 0, 7),
	))
	require.Len(t, agg, 2)
	a := agg["debug"]["a"]
	assert.Equal(t, 4, a.N)
	assert.InDelta(t, 100, a.MeanCost, 1e-12)
	assert.InDelta(t, 0.75, a.MeanAccuracy, 1e-12)
	assert.InDelta(t, calibrate.Wilson(0.75, 4), a.Lower, 1e-12)
	b := agg["debug"]["b"]
	assert.InDelta(t, 5, b.MeanCost, 1e-12, "negative cost counts as 0")
	assert.InDelta(t, 0.75, b.MeanAccuracy, 1e-12, "correct clamped to 1")
	assert.Empty(t, calibrate.Aggregate(nil))
}

func TestSelect(t *testing.T) {
	const mc, bal, ma = calibrate.PresetMinimizeCost, calibrate.PresetBalanced, calibrate.PresetMaximizeAccuracy
	tests := []struct {
		name      string
		samples   []calibrate.Sample
		preset    string
		tolerance float64
		want      string
		ok        bool
	}{
		// 46/50 = 0.92 and 45/50 = 0.90: 0.92 − 0.02 is 0.9000000000000001
		// in floats; the epsilon keeps the exact 2-point gap inside.
		{"exact tolerance boundary: cheaper qualifies", cat(cell("c", "full", 50, 46, 900), cell("c", "summary", 50, 45, 300)), mc, 0.02, "summary", true},
		{"just outside tolerance", cat(cell("c", "full", 50, 46, 900), cell("c", "summary", 50, 45, 300)), mc, 0.019, "full", true},
		{"no cheaper arm within tolerance: the best", cat(cell("c", "full", 50, 48, 900), cell("c", "summary", 50, 30, 300)), mc, 0.02, "full", true},
		{"minimize-cost equal cost: the more accurate", cat(cell("c", "a", 50, 45, 300), cell("c", "b", 50, 46, 300)), mc, 0.02, "b", true},
		{"minimize-cost full tie: first seen", cat(cell("c", "zz", 20, 18, 300), cell("c", "aa", 20, 18, 300)), mc, 0.02, "zz", true},
		{"minimize-cost zero-cost arm within tolerance", cat(cell("c", "skill", 20, 18, 500), cell("c", "", 20, 18, 0)), mc, 0.02, "", true},

		{"balanced: cost per correct", cat(cell("c", "full", 20, 20, 1000), cell("c", "summary", 20, 10, 300)), bal, 0.02, "summary", true},
		{"balanced: zero-cost arm with accuracy wins", cat(cell("c", "full", 20, 20, 1000), cell("c", "free", 20, 2, 0)), bal, 0.02, "free", true},
		{"balanced: zero-cost arm never right cannot win", cat(cell("c", "full", 20, 20, 1000), cell("c", "free", 20, 0, 0)), bal, 0.02, "full", true},
		{"balanced: two free arms, the more accurate", cat(cell("c", "free1", 20, 5, 0), cell("c", "free2", 20, 15, 0)), bal, 0.02, "free2", true},
		{"balanced: equal ratio and accuracy: first seen", cat(cell("c", "b", 20, 10, 100), cell("c", "a", 20, 10, 100)), bal, 0.02, "b", true},

		{"maximize-accuracy", cat(cell("c", "cheap", 20, 15, 10), cell("c", "best", 20, 19, 1000)), ma, 0.02, "best", true},
		{"maximize-accuracy tie: the cheaper", cat(cell("c", "dear", 20, 19, 1000), cell("c", "cheap", 20, 19, 10)), ma, 0.02, "cheap", true},
		{"maximize-accuracy full tie: first seen", cat(cell("c", "second", 20, 19, 10), cell("c", "first", 20, 19, 10)), ma, 0.02, "second", true},

		// Nothing was ever right: no injection, whatever the preset.
		{"all zero: balanced injects nothing", cat(cell("c", "a", 20, 0, 100), cell("c", "b", 20, 0, 0)), bal, 0.02, "", true},
		{"all zero: minimize-cost injects nothing", cat(cell("c", "a", 20, 0, 100), cell("c", "b", 20, 0, 5)), mc, 0.02, "", true},
		{"all zero: maximize-accuracy injects nothing", cat(cell("c", "a", 20, 0, 100), cell("c", "b", 20, 0, 5)), ma, 0.02, "", true},

		{"cells under the minimum are not eligible", cat(cell("c", "lucky", 5, 5, 0), cell("c", "steady", 20, 10, 100)), bal, 0.02, "steady", true},
		{"no cell has the minimum", cat(cell("c", "a", 9, 9, 1)), ma, 0.02, "", false},
		{"no cells", nil, ma, 0.02, "", false},
		{"unknown arm names pass through", cat(cell("c", "plugin:some-new-skill", 20, 19, 5)), ma, 0.02, "plugin:some-new-skill", true},
		{"unknown preset", cat(cell("c", "a", 20, 19, 5)), "fastest", 0.02, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arm, ok := calibrate.Select(calibrate.Aggregate(tt.samples)["c"], tt.preset, 10, tt.tolerance)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, arm)
		})
	}
}

func TestBuild(t *testing.T) {
	samples := cat(
		cell("debug", "debugger-expert", 30, 27, 800), // calibrated
		cell("debug", "", 30, 12, 0),
		cell("test", "tester-expert", 5, 5, 600),      // too few, fallback has it
		cell("docs", "tech-writer-expert", 3, 3, 400), // too few, no fallback
		cell("astrology", "star-expert", 12, 12, 50),  // an unknown category passes through
	)
	fallback := map[string]string{"test": "tester-expert", "deploy": "devops-expert", "custom": "x"}
	tb, err := calibrate.Build(samples, calibrate.PresetMaximizeAccuracy, 0, -1, fallback, t0)
	require.NoError(t, err)
	assert.Equal(t, calibrate.DefaultMinSamples, tb.MinSamples, "0 means the default")
	assert.Equal(t, calibrate.DefaultTolerance, tb.Tolerance, "negative means the default")
	assert.Equal(t, len(samples), tb.Samples)
	assert.Equal(t, t0, tb.Built)

	tests := []struct {
		category string
		arm      string
		level    string
		cells    int
	}{
		{"debug", "debugger-expert", calibrate.LevelCalibrated, 2},
		{"test", "tester-expert", calibrate.LevelFallback, 1},   // too few samples -> fallback table
		{"deploy", "devops-expert", calibrate.LevelFallback, 0}, // no samples -> fallback table
		{"docs", "", calibrate.LevelPrior, 1},                   // too few, no fallback -> prior
		{"design", "", calibrate.LevelPrior, 0},                 // nothing at all -> prior
		{"astrology", "star-expert", calibrate.LevelCalibrated, 1},
		{"custom", "x", calibrate.LevelFallback, 0},
		{"other", "", calibrate.LevelPrior, 0},
	}
	for _, tt := range tests {
		t.Run(tt.category, func(t *testing.T) {
			e, ok := tb.Categories[tt.category]
			require.True(t, ok)
			assert.Equal(t, tt.arm, e.Arm)
			assert.Equal(t, tt.level, e.Level)
			assert.Len(t, e.Cells, tt.cells)
			assert.Equal(t, e, tb.Lookup(tt.category))
		})
	}
	for _, c := range category.Categories() {
		assert.Contains(t, tb.Categories, c, "every category has an entry")
	}
	assert.Equal(t, calibrate.Entry{Level: calibrate.LevelPrior}, tb.Lookup("never-heard-of"))
	assert.Equal(t, calibrate.Entry{Level: calibrate.LevelPrior}, (*calibrate.Table)(nil).Lookup("debug"))

	// The cells keep their numbers for provenance.
	assert.Equal(t, 30, tb.Categories["debug"].Cells["debugger-expert"].N)
	assert.InDelta(t, 0.9, tb.Categories["debug"].Cells["debugger-expert"].MeanAccuracy, 1e-12)

	// Save and load.
	path := filepath.Join(t.TempDir(), "calibration.json")
	require.NoError(t, tb.Save(path))
	got, err := calibrate.LoadTable(path)
	require.NoError(t, err)
	assert.Equal(t, tb, got)

	_, err = calibrate.Build(samples, "cheapest", 10, 0.02, nil, t0)
	assert.ErrorContains(t, err, `unknown preset "cheapest"`)
}

func TestBuildPresets(t *testing.T) {
	// One category, three arms: each preset picks differently.
	samples := cat(
		cell("implement", "full", 40, 38, 2000),   // 0.95, 2105 per correct
		cell("implement", "summary", 40, 37, 400), // 0.925, 432 per correct
		cell("implement", "", 40, 20, 0),          // 0.5, free
	)
	tests := []struct {
		preset    string
		tolerance float64
		want      string
	}{
		{calibrate.PresetMaximizeAccuracy, 0.02, "full"},
		{calibrate.PresetMinimizeCost, 0.02, "full"},     // 0.925 is 2.5 points off
		{calibrate.PresetMinimizeCost, 0.025, "summary"}, // now within
		{calibrate.PresetMinimizeCost, 0.5, ""},          // anything goes: the free arm
		{calibrate.PresetBalanced, 0.02, ""},             // free and sometimes right
	}
	for _, tt := range tests {
		t.Run(tt.preset, func(t *testing.T) {
			tb, err := calibrate.Build(samples, tt.preset, 10, tt.tolerance, nil, t0)
			require.NoError(t, err)
			e := tb.Lookup("implement")
			assert.Equal(t, tt.want, e.Arm)
			assert.Equal(t, calibrate.LevelCalibrated, e.Level)
		})
	}
}

func TestLoadTableErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := calibrate.LoadTable(filepath.Join(dir, "missing.json"))
	assert.Error(t, err)
	assert.ErrorIs(t, err, fs.ErrNotExist)

	tests := []struct {
		name, content string
		is            error
		says          string
	}{
		{"newer.json", `{"skillroute":"calibration","version":42,"data":{}}`, store.ErrVersion, "version 42, written by a newer skillroute"},
		{"legacy-newer.json", `{"version":42,"preset":"balanced"}`, store.ErrVersion, "version 42"},
		{"damaged.json", `{"skillroute":"calibration","version":1,"data":{"preset":`, store.ErrDamaged, "damaged calibration file"},
		{"other-kind.json", `{"skillroute":"weights","version":1,"data":{}}`, store.ErrDamaged, `a "weights" file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name)
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o600))
			_, err := calibrate.LoadTable(path)
			assert.ErrorIs(t, err, tt.is)
			assert.ErrorContains(t, err, tt.says)
			assert.ErrorContains(t, err, path, "the error names the file")
		})
	}
}

// A table written before the header existed (version 1, flat) is still
// read: upgrading loses no calibration.
func TestLoadTableLegacy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "calibration.json")
	legacy := `{"version":1,"preset":"balanced","min_samples":10,"tolerance":0.02,"built":"2026-03-01T12:00:00Z","samples":12,` +
		`"categories":{"debug":{"arm":"debugger-expert","level":"calibrated"}},"catalog":"abc"}`
	require.NoError(t, os.WriteFile(path, []byte(legacy), 0o600))
	tb, err := calibrate.LoadTable(path)
	require.NoError(t, err)
	assert.Equal(t, calibrate.PresetBalanced, tb.Preset)
	assert.Equal(t, "abc", tb.Catalog)
	assert.Equal(t, calibrate.Entry{Arm: "debugger-expert", Level: calibrate.LevelCalibrated}, tb.Lookup("debug"))
}

func TestSamplesFromRecords(t *testing.T) {
	recs := []feedback.Record{
		{Query: "登录接口报错了", Routed: "debugger-expert", Corrected: "debugger-expert", Cost: 800},
		{Query: "write unit tests", Routed: "developer-expert", Corrected: "tester-expert", Cost: 600},
		{Query: "hello", Routed: "", Corrected: ""},
		{Query: "deploy to prod", Routed: "", Corrected: "devops-expert"},
	}
	want := []calibrate.Sample{
		{Category: category.Debug, Arm: "debugger-expert", Cost: 800, Correct: 1},
		{Category: category.Test, Arm: "developer-expert", Cost: 600, Correct: 0},
		{Category: category.Other, Arm: "", Cost: 0, Correct: 1},
		{Category: category.Deploy, Arm: "", Cost: 0, Correct: 0},
	}
	assert.Equal(t, want, calibrate.SamplesFromRecords(recs))
	assert.Empty(t, calibrate.SamplesFromRecords(nil))
}
