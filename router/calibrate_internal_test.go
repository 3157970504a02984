package router

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/skills"
)

// plainCatalog is a small catalog of plain skills (no keywords), as users
// have them.
func plainCatalog() *skills.Catalog {
	return &skills.Catalog{Skills: []skills.Skill{
		{Name: "grafana-dashboards", Description: "Build Grafana dashboards: panels, variables, templating and alert views for Prometheus metrics.",
			Body: "# Grafana\n\nCreate a dashboard per service. Use template variables for environment and instance.\n- Keep panels for latency, errors and saturation.\n- Link alerts to runbooks.\n"},
		{Name: "postmortem-writing", Description: "Write blameless postmortems after an incident: timeline, root cause, action items.",
			Body: "# Postmortems\n\nWrite the timeline first. Ask why five times to reach the root cause.\n- Every action item has an owner and a date.\n- Share it with the whole team.\n"},
		{Name: "polars", Description: "Fast dataframes with Polars: lazy queries, expressions, reading parquet and CSV files.",
			Body: "# Polars\n\nPrefer lazy frames and collect at the end. Use expressions rather than apply.\n```python\nimport polars as pl\n```\n- Scan parquet files instead of reading them whole.\n"},
		{Name: "cold-email", Description: "Cold outreach emails to prospects who never heard of you: subject lines, follow-ups, sequences.",
			Body: "# Cold email\n\nOpen with the prospect's problem, not your product. Keep it under 120 words.\n- Follow up three times, a few days apart.\n"},
	}}
}

func calibrated(t *testing.T) *index.Index {
	t.Helper()
	cat := plainCatalog()
	ix := index.Compile(cat, nil, index.Options{})
	ix.Calibration = Calibrate(ix, func(i int) (string, string) {
		s := &cat.Skills[i]
		return s.Description + "\n" + s.WhenToUse, s.Body
	})
	return ix
}

func TestCalibrateMeasuresTheCatalog(t *testing.T) {
	ix := calibrated(t)
	require.True(t, ix.Calibration.Calibrated())
	s := scaleOf(ix)
	require.True(t, s.calibrated)
	assert.Greater(t, s.abstain, 0.0)
	assert.GreaterOrEqual(t, s.high, s.abstain*(1+minLineGap), "HIGH sits above the abstain line")
	assert.Contains(t, s.String(), "abstains below score")
}

// The lines mean the same on every catalog: a score at the abstain line
// reads AbstainBelow, one at the HIGH line HighFrom, whatever the
// catalog's scale; confidence grows with the score and shrinks with a
// close rival.
func TestConfidenceThroughTheLines(t *testing.T) {
	for _, s := range []scale{{abstain: 1.2, high: 3.5, calibrated: true}, {abstain: 3, high: 9, calibrated: true}} {
		clear := func(score float64) float64 { return s.confidence(score, 0) }
		assert.InDelta(t, AbstainBelow, clear(s.abstain), 1e-9)
		assert.InDelta(t, HighFrom, clear(s.high), 1e-9)
		assert.Equal(t, Low, LevelOf(clear(s.abstain*0.99)))
		assert.Equal(t, High, LevelOf(clear(s.high)))
		prev := 0.0
		for x := 0.05; x < 4*s.high; x += s.high / 50 {
			c := clear(x)
			assert.Greater(t, c, prev, "rises with the score at %v", x)
			assert.Less(t, c, 1.0)
			prev = c
		}
		// Continuous at the lines.
		assert.InDelta(t, clear(s.high-1e-6), clear(s.high+1e-6), 1e-5)
		assert.InDelta(t, clear(s.abstain-1e-6), clear(s.abstain+1e-6), 1e-5)
		// A tie discounts the score to MarginFloor of it.
		assert.InDelta(t, clear(s.high*MarginFloor), s.confidence(s.high, s.high), 1e-9)
		assert.Equal(t, 0.0, s.confidence(0, 0))
	}
	// A near tie is never HIGH, however strong: which of the two is
	// meant is not sure. A clear margin is.
	for _, s := range []scale{{abstain: 1.2, high: 3.5, calibrated: true}, {}} {
		assert.Equal(t, Medium, LevelOf(s.confidence(100, 100*(1-TieMargin)+0.01)))
		assert.Equal(t, High, LevelOf(s.confidence(100, 100*(1-TieMargin)-0.01)))
		assert.Equal(t, High, LevelOf(s.confidence(100, 0)))
	}
	// Uncalibrated, the reading is ScoreScale's, as before calibration.
	assert.InDelta(t, 0.632*MarginFloor, scale{}.confidence(ScoreScale, ScoreScale), 1e-3)
	assert.Equal(t, Confidence(3, 1), scale{}.confidence(3, 1))
}

func TestPieces(t *testing.T) {
	desc := "Fast dataframes with Polars: lazy queries and expressions. Short one."
	body := "# Polars\n\nPrefer lazy frames and collect them at the end of the pipeline.\n```python\nimport polars as pl; df = pl.scan_parquet('a')\n```\n| a | b | c | d | e |\n- Scan parquet files instead of reading them whole into memory.\n"
	got := Pieces(desc, body, 8)
	require.NotEmpty(t, got)
	assert.Equal(t, "Fast dataframes with Polars: lazy queries and expressions", got[0], "the description first")
	for _, p := range got {
		assert.NotContains(t, p, "import", "never code")
		assert.NotContains(t, p, "|", "never tables")
		assert.GreaterOrEqual(t, pieceWords(p), MinPieceWords)
		assert.LessOrEqual(t, pieceWords(p), MaxPieceWords)
	}
	assert.Len(t, Pieces(desc, body, 1), 1)
	long := strings.Repeat("word ", 60)
	assert.Equal(t, MaxPieceWords, len(strings.Fields(Pieces(long, "", 1)[0])))
}

// TestSampleBudget protects the confidence lines: catalogs up to
// PieceBudgetFrom skills (every dev catalog) are sampled as before the
// budget shrank, every skill, at most MaxPieces pieces; larger ones
// measure one piece of each of fewer skills as they grow, down to
// MinPieces, and those count as MaxPieces against the reference line.
// The sample is drawn by name: the same skills whatever the catalog's
// order, and one skill added or removed changes one member at most.
func TestSampleBudget(t *testing.T) {
	names := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("skill-%06d", i)
		}
		return out
	}
	for _, c := range []struct{ n, want int }{
		{4, 32}, {44, 352}, {66, 528}, {100, 800}, {400, 800}, {1000, 500},
		{2000, 400}, {4000, 200}, {10000, 80}, {100000, MinPieces},
	} {
		ids, per := Sample(names(c.n))
		assert.Equal(t, c.want, per*len(ids), "%d skills", c.n)
		assert.True(t, slices.IsSorted(ids), "%d skills", c.n)
		assert.Len(t, slices.Compact(slices.Clone(ids)), len(ids), "%d skills: each skill once", c.n)
		if c.n > PieceBudgetFrom {
			assert.Equal(t, 1, per)
			// The HIGH line is drawn towards RefHigh as little as before
			// the budget shrank: pieces cut for cost count as MaxPieces
			// would.
			assert.Equal(t, MaxPieces, piecesCounted(c.n, len(ids)), "%d skills", c.n)
		} else {
			assert.Equal(t, per*len(ids), piecesCounted(c.n, per*len(ids)), "%d skills", c.n)
		}
	}

	all := names(5000)
	chosen := func(list []string) []string {
		ids, _ := Sample(list)
		var out []string
		for _, id := range ids {
			out = append(out, list[id])
		}
		slices.Sort(out)
		return out
	}
	base := chosen(all)
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	assert.Equal(t, base, chosen(reversed), "the same skills whatever the order")
	for _, other := range [][]string{append(slices.Clone(all), "skill-new"), all[1:]} {
		changed := chosen(other)
		kept := 0
		for _, name := range changed {
			if _, found := slices.BinarySearch(base, name); found {
				kept++
			}
		}
		assert.GreaterOrEqual(t, kept, len(base)-1, "one skill added or removed changes one member at most")
	}
}

// TestCalibrateSampledCatalog protects the lines of a large catalog,
// which calibration samples: the same lines on every run and on any
// number of cores, from one piece of each sampled skill; an edit to a
// skill outside the sample leaves the pieces as they were.
func TestCalibrateSampledCatalog(t *testing.T) {
	set, err := synth.Generate(synth.Options{Skills: PieceBudgetFrom + 200, Seed: 3, Queries: 1})
	require.NoError(t, err)
	cat := &skills.Catalog{}
	for _, f := range set.Files {
		sk, err := skills.Parse(f.Name+"/SKILL.md", f.Name, f.Data)
		require.NoError(t, err)
		cat.Skills = append(cat.Skills, sk)
	}
	var read []int
	texts := func(i int) (string, string) {
		read = append(read, i)
		return cat.Skills[i].Text(), cat.Skills[i].Body
	}
	ix := index.Compile(cat, nil, index.Options{})
	first := Calibrate(ix, texts)
	require.True(t, first.Calibrated())
	ids, per := Sample(cat.Names())
	assert.Equal(t, ids, read, "the sampled skills' texts, and no other's")
	assert.Equal(t, 1, per)
	assert.LessOrEqual(t, first.ForeignN, len(ids))
	assert.Greater(t, first.ForeignN, len(ids)*9/10, "a piece of nearly every sampled skill meets another skill")

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	read = nil
	assert.Equal(t, first, Calibrate(ix, texts), "the same lines on one core")

	outside := 0
	for slices.Contains(ids, outside) {
		outside++
	}
	cat.Skills[outside].Body += "\nA line about zorblax quuxification.\n"
	read = nil
	edited := Calibrate(index.Compile(cat, nil, index.Options{}), texts)
	assert.Equal(t, ids, read, "the same sample")
	assert.Equal(t, first.ForeignN, edited.ForeignN)
}

// BenchmarkSample measures drawing the calibration sample of a catalog
// of 100,000 skills, which every compile of one does.
func BenchmarkSample(b *testing.B) {
	names := make([]string, 100000)
	for i := range names {
		names[i] = fmt.Sprintf("skill-%06d-playbook", i)
	}
	for b.Loop() {
		Sample(names)
	}
}

// TestSampleFirstInOrder protects the sample's members as the catalog
// grows: past PieceBudgetFrom skills they are the first pieceBudget(n)
// names in sampleOrder (ties by name), as sorting every name gives them,
// though only the names hashing low are sorted.
func TestSampleFirstInOrder(t *testing.T) {
	for _, n := range []int{PieceBudgetFrom + 1, 1500, 4000, 20000, 100000} {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("s%d", i)
		}
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		slices.SortFunc(all, func(a, b int) int {
			return cmp.Or(cmp.Compare(sampleOrder(names[a]), sampleOrder(names[b])), strings.Compare(names[a], names[b]))
		})
		want := slices.Sorted(slices.Values(all[:pieceBudget(n)]))
		ids, _ := Sample(names)
		assert.Equal(t, want, ids, "%d skills", n)
	}
}
