package context_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	sctx "github.com/skillroute/skillroute/context"
)

// enhancesFrom turns a table into the lookup ContextScores takes.
func enhancesFrom(m map[string][]string) func(string) []string {
	return func(s string) []string { return m[s] }
}

func TestContextScores(t *testing.T) {
	ten := func(s string) []string {
		out := make([]string, 10)
		for i := range out {
			out[i] = s
		}
		return out
	}
	tests := []struct {
		name     string
		recent   []string
		enhances map[string][]string
		want     map[string]float64
	}{
		{name: "no history", recent: nil, want: map[string]float64{}},
		{
			name:     "decay arithmetic",
			recent:   []string{"a", "b"},
			enhances: map[string][]string{"b": {"c"}},
			// b is the latest use (decay 1), a one step back (0.85):
			// a = 0.5 × 0.85 = 0.425, rounded half up.
			want: map[string]float64{"a": 0.43, "b": 0.5, "c": 0.2},
		},
		{
			name:     "enhanced two steps back",
			recent:   []string{"a", "x", "y"},
			enhances: map[string][]string{"a": {"c"}},
			// c = 0.2 × 0.85² = 0.1445; a = 0.5 × 0.85² = 0.36125.
			want: map[string]float64{"a": 0.36, "c": 0.14, "x": 0.43, "y": 0.5},
		},
		{
			name:   "repeat uses add up",
			recent: []string{"a", "a"},
			// 0.5 + 0.425 = 0.925, which binary sums to 0.92499…
			want: map[string]float64{"a": 0.93},
		},
		{
			name:   "same skill and enhanced both count",
			recent: []string{"a", "b"}, enhances: map[string][]string{"a": {"b"}},
			// b: 0.5 (its own use) + 0.2 × 0.85 (a enhances it) = 0.67.
			want: map[string]float64{"a": 0.43, "b": 0.67},
		},
		{
			name:     "capped at 1",
			recent:   []string{"a", "a", "a"},
			enhances: map[string][]string{"a": {"c"}},
			// a = 0.5 × (1 + 0.85 + 0.7225) = 1.28625; c = 0.2 × 2.5725.
			want: map[string]float64{"a": 1, "c": 0.51},
		},
		{
			name:     "self and duplicate enhancements ignored",
			recent:   []string{"a"},
			enhances: map[string][]string{"a": {"a", "c", "c", ""}},
			want:     map[string]float64{"a": 0.5, "c": 0.2},
		},
		{
			name:   "only the last Window uses count",
			recent: append([]string{"old", "old"}, ten("x")...),
			want:   map[string]float64{"x": 1},
		},
		{
			name:   "oldest in the window still counts",
			recent: append([]string{"old"}, ten("x")[1:]...),
			// 0.5 × 0.85⁹ = 0.1158…
			want: map[string]float64{"old": 0.12, "x": 1},
		},
		{
			name:   "empty names skipped",
			recent: []string{"", "a"},
			want:   map[string]float64{"a": 0.5},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var enh func(string) []string
			if tt.enhances != nil {
				enh = enhancesFrom(tt.enhances)
			}
			got := sctx.ContextScores(tt.recent, enh)
			require.Len(t, got, len(tt.want), "got %v", got)
			for k, v := range tt.want {
				assert.InDelta(t, v, got[k], 1e-12, k)
			}
			for k, v := range got {
				assert.True(t, v > 0 && v <= 1, "%s = %v outside (0, 1]", k, v)
			}
		})
	}
}

func TestSessionUse(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		uses []string
		want []string
	}{
		{"one", []string{"a"}, []string{"a"}},
		{"repeats kept", []string{"a", "a", "b"}, []string{"a", "a", "b"}},
		{"empty ignored", []string{"a", ""}, []string{"a"}},
		{"exactly Window", []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
			[]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}},
		{"trimmed to Window", []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"},
			[]string{"2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s sctx.Session
			for i, u := range tt.uses {
				s.Use(u, t0.Add(time.Duration(i)*time.Second))
			}
			assert.Equal(t, tt.want, s.Recent)
			assert.LessOrEqual(t, len(s.Recent), sctx.Window)
			assert.False(t, s.Updated.IsZero())
		})
	}
}

func TestSessionLongRunKeepsWindow(t *testing.T) {
	var s sctx.Session
	now := time.Now()
	for i := 0; i < 1000; i++ {
		s.Use(fmt.Sprint(i), now)
	}
	assert.Equal(t, []string{"990", "991", "992", "993", "994", "995", "996", "997", "998", "999"}, s.Recent)
	assert.LessOrEqual(t, cap(s.Recent), 2*sctx.Window+2, "the backing array must not grow with the session")
}

func TestSessionJSON(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	s := sctx.Session{ID: "abc", Project: []string{"go"}, ProjectDir: "/src/x", ProjectAt: t0}
	s.Use("golang-pro", t0)
	data, err := json.Marshal(s)
	require.NoError(t, err)
	var keys map[string]any
	require.NoError(t, json.Unmarshal(data, &keys))
	for _, k := range []string{"id", "recent", "updated", "project", "project_dir", "project_at"} {
		assert.Contains(t, keys, k)
	}
	var back sctx.Session
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, s.ID, back.ID)
	assert.Equal(t, s.Recent, back.Recent)
	assert.True(t, s.Updated.Equal(back.Updated))
	assert.Equal(t, s.Project, back.Project)
	assert.Equal(t, s.ProjectDir, back.ProjectDir)
}

func TestSessionProjectFor(t *testing.T) {
	repo := tree(t, map[string]string{".git/": "", "go.mod": "module x\n", "sub/": ""})
	other := filepath.Join(repo, "sub")
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var s sctx.Session

	assert.Equal(t, []string{"go"}, s.ProjectFor(repo, "", t0))
	assert.Equal(t, repo, s.ProjectDir)
	require.NoError(t, os.WriteFile(filepath.Join(repo, "Cargo.toml"), nil, 0o644))

	tests := []struct {
		name     string
		dir      string
		at       time.Time
		want     []string
		detected bool
	}{
		{"cached within the TTL", repo, t0.Add(time.Minute), []string{"go"}, false},
		{"detected again after the TTL", repo, t0.Add(sctx.ProjectTTL), []string{"go", "rust"}, true},
		{"another folder is detected at once", other, t0.Add(sctx.ProjectTTL + time.Second), []string{"go", "rust"}, true},
		{"a clock gone back is not trusted", other, t0, []string{"go", "rust"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := s.ProjectAt
			assert.Equal(t, tt.want, s.ProjectFor(tt.dir, "", tt.at))
			if tt.detected {
				assert.Equal(t, tt.at, s.ProjectAt)
			} else {
				assert.Equal(t, before, s.ProjectAt)
			}
		})
	}
	assert.Equal(t, other, s.ProjectDir)
}
