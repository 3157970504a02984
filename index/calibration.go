package index

import (
	"errors"
	"math"
	"sort"
)

// Calibration says what a score means on this catalog. Scores are on no
// fixed scale: a catalog with written keywords scores a clear prompt at
// 5, a catalog of plain skills at 2, and one stray word may reach 1.5 on
// either. So at compile time the router scores text that no skill of the
// catalog fits, and the index keeps where those scores fall:
//
//   - Generic: the best score of each prompt of the project's generic
//     developer text (GenericPrompts) that meets any skill at all: how
//     high a score reaches when the prompt needs no skill;
//   - Foreign: the best score of pieces of each skill's own text with that
//     skill left out, where another skill scores at all: how high a wrong
//     skill reaches on text about this catalog's own subjects, a
//     neighbour's score on your words.
//
// Text that meets no skill scores 0 and is left out: how much of it there
// is says how many words the catalog holds, not where its lines lie.
//
// Each is kept as CalibrationPoints quantiles, sorted. The router reads
// its abstain line and its HIGH line from them (router/calibrate.go).
type Calibration struct {
	Generic []float32
	Foreign []float32
	// GenericN and ForeignN are how many scores each distribution was
	// measured on: a catalog of four skills gives few, and the router
	// then trusts its lines less (router/calibrate.go).
	GenericN, ForeignN int
}

// CalibrationPoints is how many quantiles of each distribution the index
// keeps: every 2.5 %, fine enough to place a line between 80 % and 97.5 %.
const CalibrationPoints = 41

// Quantiles returns CalibrationPoints evenly spaced quantiles of samples
// (nil for none), the samples sorted in place.
func Quantiles(samples []float64) []float32 {
	if len(samples) == 0 {
		return nil
	}
	sort.Float64s(samples)
	out := make([]float32, CalibrationPoints)
	for i := range out {
		out[i] = float32(quantile(samples, float64(i)/float64(CalibrationPoints-1)))
	}
	return out
}

// quantile interpolates linearly between the sorted samples.
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	return sorted[lo] + (pos-float64(lo))*(sorted[hi]-sorted[lo])
}

// At returns the q-quantile (q in [0, 1]) of stored quantiles,
// interpolated; 0 when there are none.
func At(quantiles []float32, q float64) float64 {
	if len(quantiles) == 0 {
		return 0
	}
	q = min(1, max(0, q))
	pos := q * float64(len(quantiles)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(quantiles)-1)
	a, b := float64(quantiles[lo]), float64(quantiles[hi])
	return a + (pos-float64(lo))*(b-a)
}

// Calibrated reports whether the index holds a calibration.
func (c *Calibration) Calibrated() bool {
	return len(c.Generic) == CalibrationPoints && len(c.Foreign) == CalibrationPoints
}

// check verifies a loaded calibration: none, or both distributions whole
// and sorted.
func (c *Calibration) check() error {
	if len(c.Generic) == 0 && len(c.Foreign) == 0 && c.GenericN == 0 && c.ForeignN == 0 {
		return nil
	}
	if !c.Calibrated() || c.GenericN <= 0 || c.ForeignN <= 0 {
		return errors.New("calibration has the wrong number of quantiles or samples")
	}
	for _, qs := range [][]float32{c.Generic, c.Foreign} {
		for i := range qs {
			if math.IsNaN(float64(qs[i])) || qs[i] < 0 || i > 0 && qs[i] < qs[i-1] {
				return errors.New("calibration quantiles out of order")
			}
		}
	}
	return nil
}

// The calibration's part of the index file: its own section after every
// other array, two float32 arrays (see Save and Load).

func (w writer) calibration(c Calibration) {
	w.f32(c.Generic)
	w.f32(c.Foreign)
	w.num(uint64(c.GenericN))
	w.num(uint64(c.ForeignN))
}

func (r *reader) calibration() Calibration {
	c := Calibration{Generic: r.f32(), Foreign: r.f32()}
	c.GenericN, c.ForeignN = int(r.num()), int(r.num())
	if len(c.Generic) == 0 && len(c.Foreign) == 0 && c.GenericN == 0 && c.ForeignN == 0 {
		return Calibration{} // none stored
	}
	return c
}
