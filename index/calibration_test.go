package index_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/skills"
)

func TestQuantilesAndAt(t *testing.T) {
	var samples []float64
	for i := 100; i >= 0; i-- {
		samples = append(samples, float64(i))
	}
	qs := index.Quantiles(samples)
	require.Len(t, qs, index.CalibrationPoints)
	assert.Equal(t, float32(0), qs[0])
	assert.Equal(t, float32(100), qs[len(qs)-1])
	assert.InDelta(t, 50, index.At(qs, 0.5), 1e-4)
	assert.InDelta(t, 90, index.At(qs, 0.9), 1e-4)
	assert.InDelta(t, 91.25, index.At(qs, 0.9125), 1e-3, "between stored points, interpolated")
	assert.Equal(t, 100.0, index.At(qs, 2), "q is clamped")
	assert.Nil(t, index.Quantiles(nil))
	assert.Equal(t, 0.0, index.At(nil, 0.5))
}

// The calibration travels with the index file, and a damaged one is an
// error naming the file, never a misread line.
func TestCalibrationSavedAndChecked(t *testing.T) {
	ix := index.Compile(catalog(skills.Skill{Name: "a", Keywords: kw(skills.Core, "alpha")}), nil, index.Options{})
	assert.False(t, ix.Calibration.Calibrated())
	ix.Calibration = index.Calibration{Generic: index.Quantiles([]float64{0.5, 1, 2}), Foreign: index.Quantiles([]float64{1, 3, 5, 8}), GenericN: 3, ForeignN: 4}
	path := filepath.Join(t.TempDir(), "index.bin")
	require.NoError(t, ix.Save(path))
	got, err := index.Load(path)
	require.NoError(t, err)
	assert.True(t, got.Calibration.Calibrated())
	assert.Equal(t, ix.Calibration, got.Calibration)

	ix.Calibration.Foreign[3], ix.Calibration.Foreign[4] = 9, 1 // out of order
	require.NoError(t, ix.Save(path))
	_, err = index.Load(path)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "calibration")

	ix.Calibration = index.Calibration{Generic: []float32{1, 2}, Foreign: nil}
	require.NoError(t, ix.Save(path))
	_, err = index.Load(path)
	require.Error(t, err, "a calibration of the wrong size")
}

// TestSaveCacheLate protects a compile that writes its index while it
// calibrates: the file is the one SaveCache writes once the calibration
// is set; a calibration that is not a whole one writes nothing, and says
// so, for the caller to save again.
func TestSaveCacheLate(t *testing.T) {
	ix := index.Compile(catalog(skills.Skill{Name: "a", Keywords: kw(skills.Core, "alpha")}, skills.Skill{Name: "b", Keywords: kw(skills.Strong, "beta")}), nil, index.Options{})
	c := index.Calibration{Generic: index.Quantiles([]float64{0.5, 1, 2}), Foreign: index.Quantiles([]float64{1, 3, 5, 8}), GenericN: 3, ForeignN: 4}
	dir := t.TempDir()
	late := filepath.Join(dir, "late.bin")
	cal := make(chan index.Calibration, 1)
	cal <- c
	require.NoError(t, ix.SaveCacheLate(late, cal))
	ix.Calibration = c
	whole := filepath.Join(dir, "whole.bin")
	require.NoError(t, ix.SaveCache(whole))
	want, err := os.ReadFile(whole)
	require.NoError(t, err)
	got, err := os.ReadFile(late)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	none := filepath.Join(dir, "none.bin")
	cal <- index.Calibration{}
	require.ErrorIs(t, ix.SaveCacheLate(none, cal), index.ErrLateCalibration)
	assert.NoFileExists(t, none)
}
