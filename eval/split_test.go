package eval

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFoldIsStableAndSpreads(t *testing.T) {
	// The split must not depend on the run: a held-out half is the same
	// prompts for everyone who checks the figures.
	assert.Equal(t, Fold("React 页面加载慢", 2), Fold("React 页面加载慢", 2))
	assert.Equal(t, 0, Fold("anything", 1))
	counts := make([]int, 5)
	for i := 0; i < 1000; i++ {
		counts[Fold(string(rune('a'+i%26))+string(rune('A'+i/26)), 5)]++
	}
	for f, n := range counts {
		assert.InDelta(t, 200, n, 60, "fold %d holds about a fifth", f)
	}
}

func TestSplitKeepsGroupsTogether(t *testing.T) {
	var outs []Outcome
	for i := 0; i < 40; i++ {
		outs = append(outs, Outcome{Case: Case{Query: string(rune('a' + i)), Expected: "x"}, Routed: "x", Ranked: []string{"x"}, Group: "session-1"})
	}
	parts := Split(outs, 4)
	require.Len(t, parts, 4)
	nonEmpty := 0
	for _, p := range parts {
		if p.N > 0 {
			nonEmpty++
			assert.Equal(t, 40, p.N, "one session's turns land in one part")
		}
	}
	assert.Equal(t, 1, nonEmpty)
}

func TestCalibrationAndHighPrecision(t *testing.T) {
	outs := []Outcome{
		{Case: Case{Query: "a", Expected: "x", Lang: "en"}, Routed: "x", Ranked: []string{"x"}, Confidence: 0.95, High: true},
		{Case: Case{Query: "b", Expected: "x", Lang: "en"}, Routed: "y", Ranked: []string{"y", "x"}, Confidence: 0.91, High: true},
		{Case: Case{Query: "c", Expected: "none", Lang: "zh"}, Routed: "", Ranked: []string{"y"}, Confidence: 0.2},
		{Case: Case{Query: "d", Expected: "none", Lang: "zh"}, Routed: "y", Ranked: []string{"y"}, Confidence: 0.99, High: true},
		{Case: Case{Query: "e", Expected: "x", Lang: "zh"}, Routed: "", Ranked: nil},
	}
	s := Summarize(outs).Summary
	assert.Equal(t, 3, s.HighN, "HIGH counts none prompts routed HIGH too")
	assert.InDelta(t, 1.0/3, s.HighPrecision, 1e-9)
	require.Len(t, s.Calibration, 2, "empty buckets are left out; a prompt with no candidate is in none")
	assert.Equal(t, Bucket{From: 0.2, To: 0.3, N: 1, Precision: 0}, s.Calibration[0])
	assert.Equal(t, 0.9, s.Calibration[1].From)
	assert.Equal(t, 3, s.Calibration[1].N)
	assert.InDelta(t, 1.0/3, s.Calibration[1].Precision, 1e-9)
	require.Contains(t, s.ByLang, "zh")
	assert.Equal(t, 1, s.ByLang["zh"].N)
	assert.Equal(t, 2, s.ByLang["zh"].NoneN)
	assert.Nil(t, s.ByKind, "no kind labels, no breakdown")
	assert.Nil(t, s.ByLang["zh"].ByLang, "a breakdown is not broken down again")
}
