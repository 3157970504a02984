// Package calibrate builds the tables that decide, per task category,
// whether injecting a skill pays for its tokens, and which. Routing a
// prompt to the right skill is one question; whether putting that skill in
// front of the model is worth its cost is another. Samples of (category,
// arm, cost, correct), an arm being a skill or "" for no injection, are
// aggregated into cells with mean cost, mean accuracy and the Wilson 95 %
// lower bound, and a preset picks one arm per category:
//
//   - minimize-cost: the cheapest arm within the tolerance of the best
//     accuracy (an exact 2-point gap is within a 2-point tolerance);
//   - balanced: the lowest cost per correct answer;
//   - maximize-accuracy: the most accurate arm, ties to the cheaper.
//
// The rules follow agentos's adaptive router with its inconsistencies
// fixed: one epsilon for every comparison, a caller's fallback table for
// both "no samples" and "too few samples", and "no arm has ever been
// right" meaning no injection under every preset. Each entry records
// whether it was calibrated, taken from the fallback table, or left to the
// static prior (the BM25 decision alone). Categories come from package
// category; samples from the feedback log (SamplesFromRecords).
package calibrate

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/skillroute/skillroute/learn/category"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/store"
)

// Presets: the rule that picks one arm per category.
const (
	// PresetMinimizeCost picks the cheapest arm whose mean accuracy is
	// within the tolerance of the best arm's.
	PresetMinimizeCost = "minimize-cost"
	// PresetBalanced picks the lowest cost per correct answer.
	PresetBalanced = "balanced"
	// PresetMaximizeAccuracy picks the most accurate arm, the cheaper of
	// equals.
	PresetMaximizeAccuracy = "maximize-accuracy"
)

// Calibration defaults.
const (
	// DefaultMinSamples is the samples a cell needs before its numbers
	// decide anything: below ten, one lucky answer moves the mean by more
	// than ten points (agentos's docs suggest 10 and more).
	DefaultMinSamples = 10
	// DefaultTolerance is how much accuracy minimize-cost gives up for a
	// cheaper arm: two points, agentos's default.
	DefaultTolerance = 0.02
	// Epsilon is the slack of every float comparison, so that 0.92 − 0.02
	// (0.9000000000000001) still counts 0.90 as within tolerance and equal
	// means computed along different paths tie.
	Epsilon = 1e-9
	// wilsonZ is the normal quantile of a two-sided 95 % interval.
	wilsonZ = 1.959963984540054
)

// TableVersion changes whenever the meaning of a Table changes; it is the
// version in the table file's header (store.Codec).
const TableVersion = 1

// tableCodec frames table files.
var tableCodec = store.Codec{Kind: "calibration", Version: TableVersion, Indent: true}

// Levels of a table entry: which source decided the category's arm.
const (
	// LevelCalibrated: at least one cell had MinSamples samples.
	LevelCalibrated = "calibrated"
	// LevelFallback: too few samples, and the caller's fallback table
	// names an arm for the category.
	LevelFallback = "fallback"
	// LevelPrior: too few samples and no fallback: the static prior, arm
	// "" (the BM25 decision alone).
	LevelPrior = "prior"
)

// Sample is one observed outcome: in a task category, an arm (a skill,
// "" for no injection) cost that many tokens and was right (Correct 1),
// wrong (0), or partly right (a score in between).
type Sample struct {
	Category string  `json:"category"`
	Arm      string  `json:"arm"`
	Cost     float64 `json:"cost"`
	Correct  float64 `json:"correct"`
}

// Cell aggregates the samples of one (category, arm): their number, mean
// cost and mean accuracy, and the Wilson 95 % lower bound of the accuracy.
type Cell struct {
	N            int     `json:"n"`
	MeanCost     float64 `json:"mean_cost"`
	MeanAccuracy float64 `json:"mean_accuracy"`
	Lower        float64 `json:"lower"`

	first int // index of the arm's first sample in its category, for stable ties
}

// Aggregate rolls samples up into cells, category -> arm -> cell. A
// negative or non-finite cost counts as 0; Correct is clamped to [0, 1]
// (NaN as 0). Each cell remembers where its arm was first seen in its
// category, which breaks exact ties between arms.
func Aggregate(samples []Sample) map[string]map[string]*Cell {
	out := map[string]map[string]*Cell{}
	for _, s := range samples {
		arms := out[s.Category]
		if arms == nil {
			arms = map[string]*Cell{}
			out[s.Category] = arms
		}
		c := arms[s.Arm]
		if c == nil {
			c = &Cell{first: len(arms)}
			arms[s.Arm] = c
		}
		cost, correct := s.Cost, s.Correct
		if !(cost > 0) || math.IsInf(cost, 0) {
			cost = 0
		}
		if !(correct > 0) {
			correct = 0
		}
		correct = math.Min(correct, 1)
		c.N++
		c.MeanCost += cost // sums until the end
		c.MeanAccuracy += correct
	}
	for _, arms := range out {
		for _, c := range arms {
			c.MeanCost /= float64(c.N)
			c.MeanAccuracy /= float64(c.N)
			c.Lower = Wilson(c.MeanAccuracy, c.N)
		}
	}
	return out
}

// Wilson returns the lower bound of the Wilson score interval (95 %) of an
// accuracy p observed over n samples; 0 for no samples.
func Wilson(p float64, n int) float64 {
	if n <= 0 {
		return 0
	}
	z2 := wilsonZ * wilsonZ
	nf := float64(n)
	centre := p + z2/(2*nf)
	spread := wilsonZ * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return math.Max(0, (centre-spread)/(1+z2/nf))
}

// Entry is a table's decision for one category.
type Entry struct {
	Arm   string          `json:"arm"`   // "" means no injection (the BM25 decision alone)
	Level string          `json:"level"` // LevelCalibrated, LevelFallback or LevelPrior
	Cells map[string]Cell `json:"cells,omitempty"`
}

// Table is a calibration table: per category, the arm a preset picked
// from the samples, with its provenance.
type Table struct {
	Preset     string           `json:"preset"`
	MinSamples int              `json:"min_samples"`
	Tolerance  float64          `json:"tolerance"`
	Built      time.Time        `json:"built"`
	Samples    int              `json:"samples"`
	Categories map[string]Entry `json:"categories"`
	// Provenance, filled in by the caller: the catalog the outcomes were
	// routed over (an index's SourceHash) and the window of the samples.
	// A table built for another catalog says nothing about this one.
	Catalog string    `json:"catalog,omitempty"`
	From    time.Time `json:"from,omitempty"`
	To      time.Time `json:"to,omitempty"`
}

// Lookup returns the entry of a category; a category the table does not
// know (or a nil table) gets the static prior.
func (t *Table) Lookup(cat string) Entry {
	if t != nil {
		if e, ok := t.Categories[cat]; ok {
			return e
		}
	}
	return Entry{Level: LevelPrior}
}

// Build aggregates samples and picks an arm per category with the preset.
// minSamples below 1 means DefaultMinSamples; a negative tolerance means
// DefaultTolerance. The table covers every category of
// category.Categories(), every
// category in the samples, and every category of fallback (category ->
// arm). Only cells with at least minSamples samples are eligible; a
// category with none (no samples, or too few) takes fallback's arm if it
// has one (LevelFallback), else the prior, "" (LevelPrior). Arms are opaque
// names: unknown ones pass through. An unknown preset is an error.
//
// When every eligible cell has accuracy 0, no arm has ever been right, and
// every preset picks "" (no injection, LevelCalibrated): balanced cannot
// divide by zero, and minimize-cost and maximize-accuracy must not pay for
// an arm that has only been wrong (agentos's minimize-cost picked the
// cheapest such arm; its balanced fell back: one meaning now).
func Build(samples []Sample, preset string, minSamples int, tolerance float64, fallback map[string]string, now time.Time) (*Table, error) {
	switch preset {
	case PresetMinimizeCost, PresetBalanced, PresetMaximizeAccuracy:
	default:
		return nil, fmt.Errorf("calibrate: unknown preset %q (want %s, %s or %s)", preset, PresetMinimizeCost, PresetBalanced, PresetMaximizeAccuracy)
	}
	if minSamples < 1 {
		minSamples = DefaultMinSamples
	}
	if tolerance < 0 || math.IsNaN(tolerance) {
		tolerance = DefaultTolerance
	}
	agg := Aggregate(samples)
	t := &Table{
		Preset: preset, MinSamples: minSamples, Tolerance: tolerance,
		Built: now.UTC(), Samples: len(samples), Categories: map[string]Entry{},
	}
	cats := category.Categories()
	for c := range agg {
		cats = append(cats, c)
	}
	for c := range fallback {
		cats = append(cats, c)
	}
	for _, cat := range cats {
		if _, done := t.Categories[cat]; done {
			continue
		}
		var e Entry
		if arms := agg[cat]; len(arms) > 0 {
			e.Cells = make(map[string]Cell, len(arms))
			for arm, c := range arms {
				cc := *c
				cc.first = 0 // order only matters while selecting; not stored
				e.Cells[arm] = cc
			}
		}
		if arm, ok := Select(agg[cat], preset, minSamples, tolerance); ok {
			e.Arm, e.Level = arm, LevelCalibrated
		} else if arm, ok := fallback[cat]; ok {
			e.Arm, e.Level = arm, LevelFallback
		} else {
			e.Arm, e.Level = "", LevelPrior
		}
		t.Categories[cat] = e
	}
	return t, nil
}

// Select applies a preset to one category's cells; ok is false when no
// cell has minSamples samples (or the preset is unknown), and the caller
// falls back. Ties are broken as documented on each rule, last by the
// order in which arms were first seen (Aggregate), then by name.
//
//   - minimize-cost: among cells whose mean accuracy is within tolerance
//     (+ Epsilon) of the best mean, the lowest mean cost; equal costs to
//     the higher accuracy.
//   - balanced: the lowest mean cost / mean accuracy, zero-accuracy cells
//     skipped; equal ratios (two zero-cost arms) to the higher accuracy.
//   - maximize-accuracy: the highest mean accuracy; accuracies within
//     Epsilon to the lower cost.
//
// If every eligible cell has zero accuracy, the pick is "" (no injection)
// under every preset.
func Select(cells map[string]*Cell, preset string, minSamples int, tolerance float64) (arm string, ok bool) {
	type cand struct {
		arm string
		c   *Cell
	}
	var cs []cand
	best := 0.0
	for a, c := range cells {
		if c.N >= minSamples {
			cs = append(cs, cand{a, c})
			best = math.Max(best, c.MeanAccuracy)
		}
	}
	if len(cs) == 0 {
		return "", false
	}
	if best <= 0 {
		return "", true // nothing was ever right: inject nothing
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].c.first != cs[j].c.first {
			return cs[i].c.first < cs[j].c.first
		}
		return cs[i].arm < cs[j].arm
	})
	// better reports whether x beats the pick so far, y; on a full tie the
	// earlier (y, first seen) stays.
	var better func(x, y *Cell) bool
	switch preset {
	case PresetMinimizeCost:
		keep := cs[:0]
		for _, c := range cs {
			if c.c.MeanAccuracy >= best-tolerance-Epsilon {
				keep = append(keep, c)
			}
		}
		cs = keep
		better = func(x, y *Cell) bool {
			if d := x.MeanCost - y.MeanCost; math.Abs(d) > Epsilon {
				return d < 0
			}
			return x.MeanAccuracy > y.MeanAccuracy+Epsilon
		}
	case PresetBalanced:
		keep := cs[:0]
		for _, c := range cs {
			if c.c.MeanAccuracy > 0 {
				keep = append(keep, c)
			}
		}
		cs = keep
		better = func(x, y *Cell) bool {
			if d := x.MeanCost/x.MeanAccuracy - y.MeanCost/y.MeanAccuracy; math.Abs(d) > Epsilon {
				return d < 0
			}
			return x.MeanAccuracy > y.MeanAccuracy+Epsilon
		}
	case PresetMaximizeAccuracy:
		better = func(x, y *Cell) bool {
			if d := x.MeanAccuracy - y.MeanAccuracy; math.Abs(d) > Epsilon {
				return d > 0
			}
			return x.MeanCost < y.MeanCost-Epsilon
		}
	default:
		return "", false
	}
	pick := cs[0]
	for _, c := range cs[1:] {
		if better(c.c, pick.c) {
			pick = c
		}
	}
	return pick.arm, true
}

// Save writes the table as JSON to path, atomically, in a header naming
// its kind and version.
func (t *Table) Save(path string) error {
	if err := tableCodec.Write(path, t); err != nil {
		return fmt.Errorf("calibrate: %w", err)
	}
	return nil
}

// LoadTable reads a table saved by Save (or by versions before the
// header). A missing file is an error wrapping fs.ErrNotExist; a damaged
// table, or one of another TableVersion, an error naming the file (rebuild
// it with `skillroute calibrate`).
func LoadTable(path string) (*Table, error) {
	var t Table
	if err := tableCodec.Read(path, &t); err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	return &t, nil
}

// SamplesFromRecords turns feedback into calibration samples, one per
// record: category category.Classify(Query), arm Routed ("" when the router
// abstained), cost the tokens injected, correct 1 when the routed skill
// was the right one (Corrected == Routed), else 0.
func SamplesFromRecords(records []feedback.Record) []Sample {
	out := make([]Sample, 0, len(records))
	for _, r := range records {
		s := Sample{Category: category.Classify(r.Query), Arm: r.Routed, Cost: float64(r.Cost)}
		if r.Corrected == r.Routed {
			s.Correct = 1
		}
		out = append(out, s)
	}
	return out
}
