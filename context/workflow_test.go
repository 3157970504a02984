package context_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sctx "github.com/skillroute/skillroute/context"
)

// obs is one observed transition: the previous skills and the next one.
type obs struct {
	prev []string
	next string
}

// times repeats a transition.
func times(n int, prev []string, next string) []obs {
	out := make([]obs, n)
	for i := range out {
		out[i] = obs{prev, next}
	}
	return out
}

func observed(lists ...[]obs) *sctx.Workflow {
	w := &sctx.Workflow{}
	for _, l := range lists {
		for _, o := range l {
			w.Observe(o.prev, o.next)
		}
	}
	return w
}

func TestWorkflowPredict(t *testing.T) {
	ab := []string{"a", "b"}
	tests := []struct {
		name   string
		w      *sctx.Workflow
		recent []string
		want   map[string]float64
	}{
		{"nil workflow", nil, []string{"a"}, nil},
		{"zero workflow", &sctx.Workflow{}, []string{"a"}, nil},
		{"no recent skills", observed(times(5, []string{"a"}, "b")), nil, nil},
		{"bigram seen once is below MinCount", observed(times(1, []string{"a"}, "b")), []string{"a"}, nil},
		{"bigram at MinCount", observed(times(2, []string{"a"}, "b")), []string{"a"}, map[string]float64{"b": 1}},
		{"bigram proportions",
			observed(times(3, []string{"a"}, "b"), times(1, []string{"a"}, "c")),
			[]string{"a"}, map[string]float64{"b": 0.75, "c": 0.25}},
		{"only the last skill is the bigram context",
			observed(times(3, []string{"a"}, "b"), times(1, []string{"a"}, "c")),
			[]string{"z", "q", "a"}, map[string]float64{"b": 0.75, "c": 0.25}},
		{"interpolated when the trigram is known",
			// bigram a: b 2, c 2; trigram x|a: b 2.
			observed(times(2, []string{"x", "a"}, "b"), times(2, []string{"y", "a"}, "c")),
			[]string{"x", "a"}, map[string]float64{"b": 0.7*1 + 0.3*0.5, "c": 0.3 * 0.5}},
		{"interpolated, other context",
			observed(times(2, []string{"x", "a"}, "b"), times(2, []string{"y", "a"}, "c")),
			[]string{"y", "a"}, map[string]float64{"b": 0.3 * 0.5, "c": 0.7*1 + 0.3*0.5}},
		{"unknown trigram falls back to the bigram",
			observed(times(2, []string{"x", "a"}, "b"), times(2, []string{"y", "a"}, "c")),
			[]string{"z", "a"}, map[string]float64{"b": 0.5, "c": 0.5}},
		{"trigram below MinCount falls back to the bigram",
			observed(times(1, []string{"x", "a"}, "b"), times(3, []string{"y", "a"}, "c")),
			[]string{"x", "a"}, map[string]float64{"b": 0.25, "c": 0.75}},
		{"unknown skill", observed(times(5, ab, "c")), []string{"q"}, nil},
		{"repeat uses are transitions too",
			observed(times(2, []string{"golang-pro"}, "golang-pro"), times(2, []string{"golang-pro"}, "tester-expert")),
			[]string{"golang-pro"}, map[string]float64{"golang-pro": 0.5, "tester-expert": 0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.w.Predict(tt.recent)
			if tt.want == nil {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, len(tt.want), "got %v", got)
			sum := 0.0
			for k, v := range tt.want {
				assert.InDelta(t, v, got[k], 1e-12, k)
			}
			for _, v := range got {
				assert.True(t, v >= 0 && v <= 1)
				sum += v
			}
			assert.InDelta(t, 1, sum, 1e-9, "probabilities sum to 1")
		})
	}
}

func TestWorkflowObserve(t *testing.T) {
	tests := []struct {
		name     string
		prev     []string
		next     string
		bigrams  map[string]map[string]int
		trigrams map[string]map[string]int
	}{
		{"no previous skill", nil, "a", nil, nil},
		{"empty next", []string{"a"}, "", nil, nil},
		{"one previous: bigram only", []string{"a"}, "b", map[string]map[string]int{"a": {"b": 1}}, nil},
		{"two previous: both", []string{"x", "a"}, "b",
			map[string]map[string]int{"a": {"b": 1}}, map[string]map[string]int{"x|a": {"b": 1}}},
		{"longer history: last two", []string{"p", "q", "x", "a"}, "b",
			map[string]map[string]int{"a": {"b": 1}}, map[string]map[string]int{"x|a": {"b": 1}}},
		{"separator in a name is not observed", []string{"x|y"}, "b", nil, nil},
		{"separator before the last: bigram only", []string{"x|y", "a"}, "b", map[string]map[string]int{"a": {"b": 1}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var w sctx.Workflow
			w.Observe(tt.prev, tt.next)
			assert.Equal(t, tt.bigrams, w.Bigrams)
			assert.Equal(t, tt.trigrams, w.Trigrams)
		})
	}
}

func TestWorkflowFading(t *testing.T) {
	a := []string{"a"}
	tests := []struct {
		name  string
		w     *sctx.Workflow
		check func(t *testing.T, w *sctx.Workflow)
	}{
		{"no halving up to MaxContextTotal",
			observed(times(sctx.MaxContextTotal, a, "b")),
			func(t *testing.T, w *sctx.Workflow) {
				assert.Equal(t, map[string]int{"b": sctx.MaxContextTotal}, w.Bigrams["a"])
			}},
		{"halved before the next one, which is kept",
			observed(times(sctx.MaxContextTotal, a, "b"), times(1, a, "c")),
			func(t *testing.T, w *sctx.Workflow) {
				assert.Equal(t, map[string]int{"b": sctx.MaxContextTotal / 2, "c": 1}, w.Bigrams["a"])
			}},
		{"one-off transitions vanish",
			observed(times(1, a, "x"), times(sctx.MaxContextTotal, a, "b")),
			func(t *testing.T, w *sctx.Workflow) {
				assert.NotContains(t, w.Bigrams["a"], "x")
			}},
		{"a changed habit takes over sooner",
			// Without fading c would have 150 of 350 (0.43).
			observed(times(sctx.MaxContextTotal, a, "b"), times(150, a, "c")),
			func(t *testing.T, w *sctx.Workflow) {
				p := w.Predict(a)
				assert.Greater(t, p["c"], 0.6)
				assert.InDelta(t, 1, p["b"]+p["c"], 1e-9)
			}},
		{"trigram contexts fade too",
			observed(times(3*sctx.MaxContextTotal, []string{"x", "a"}, "b")),
			func(t *testing.T, w *sctx.Workflow) {
				assert.LessOrEqual(t, w.Trigrams["x|a"]["b"], sctx.MaxContextTotal)
				assert.LessOrEqual(t, w.Bigrams["a"]["b"], sctx.MaxContextTotal)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for ctx, m := range tt.w.Bigrams {
				total := 0
				for _, c := range m {
					total += c
				}
				assert.LessOrEqual(t, total, sctx.MaxContextTotal, ctx)
			}
			tt.check(t, tt.w)
		})
	}
}

func TestWorkflowPredictWithoutBigram(t *testing.T) {
	// A state file edited by hand or cut short may hold a trigram whose
	// bigram context is gone: the trigram estimate then stands alone.
	w := &sctx.Workflow{Trigrams: map[string]map[string]int{"x|a": {"b": 3, "c": 1}}}
	got := w.Predict([]string{"x", "a"})
	assert.InDelta(t, 0.75, got["b"], 1e-12)
	assert.InDelta(t, 0.25, got["c"], 1e-12)
}

func TestWorkflowJSON(t *testing.T) {
	w := observed(times(2, []string{"x", "a"}, "b"), times(3, []string{"a"}, "c"))
	data, err := json.Marshal(w)
	require.NoError(t, err)
	var back sctx.Workflow
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, w, &back)
	assert.Equal(t, w.Predict([]string{"x", "a"}), back.Predict([]string{"x", "a"}))
	assert.JSONEq(t, `{"bigrams":{"a":{"b":2,"c":3}},"trigrams":{"x|a":{"b":2}}}`, string(data))
}
