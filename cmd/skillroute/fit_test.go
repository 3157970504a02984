package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/loader"
	"github.com/stretchr/testify/require"
)

// fitRules runs TestFitClearLead, which is slow and only informs a
// constant: go test ./cmd/skillroute -run TestFitClearLead -fit-rules -v
var fitRules = flag.Bool("fit-rules", false, "fit disambig.ClearLead by cross-validation over the dev sets")

// devSets are the labelled sets the rules are fitted and judged on.
var devSets = []struct {
	name string
	cfg  loader.Config
	file string
}{
	{"dev", loader.Config{Catalog: loader.Builtin}, "eval/dev.jsonl"},
	{"bookworm", loader.Config{Catalog: shared + "/bookworm/skills-index.json", Rules: shared + "/bookworm/disambiguation-rules.json",
		Synonyms: shared + "/bookworm/synonyms.json"}, "bookworm/golden-dev.jsonl"},
	{"real-dev", loader.Config{Catalog: shared + "/eval/real-dev/skills"}, "eval/real-dev/prompts.jsonl"},
	{"fresh", loader.Config{Catalog: loader.Builtin}, "../skillroute/eval/testdata/fresh.jsonl"},
	{"sessions", loader.Config{Catalog: loader.Builtin}, "eval/sessions-dev.jsonl"},
}

// heldOut reports whether a labelled prompt belongs to the share held out
// from fitting: 30 % of each set, by hash of set and prompt.
func heldOut(set, query string) bool {
	h := sha256.Sum256([]byte(set + "\x00" + query))
	return h[0]%10 < 3
}

// fold is the cross-validation fold (of 5) of a prompt of the fitting share.
func fold(set, query string) int {
	h := sha256.Sum256([]byte(set + "\x00" + query))
	return int(h[1] % 5)
}

// TestFitClearLead fits disambig.ClearLead: for each candidate value, the
// mean over the dev sets of top-1 on the fitting share (70 % of each set),
// 5-fold cross-validated; the chosen value's top-1 on the held-out 30 % is
// printed beside the rules without a bound.
func TestFitClearLead(t *testing.T) {
	if !*fitRules {
		t.Skip("run with -fit-rules")
	}
	grid := []float64{1.1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 3, 3.5, 4, 5, 6, 8, math.Inf(1)}
	type row struct {
		set   int
		held  bool
		fold  int
		right []bool // per grid value
	}
	var rows []row
	for si, ds := range devSets {
		file := filepath.Join(shared, ds.file)
		if strings.HasPrefix(ds.file, "../") {
			file = filepath.Join("..", "..", strings.TrimPrefix(ds.file, "../skillroute/"))
		}
		f, err := eval.Read(file)
		require.NoError(t, err)
		r, err := loader.Open(ds.cfg)
		require.NoError(t, err)
		var queries []string
		for _, c := range f.Cases {
			queries = append(queries, c.Query)
		}
		for _, s := range f.Sessions {
			for _, turn := range s.Turns {
				queries = append(queries, s.ID+"\x00"+turn.Query)
			}
		}
		base := len(rows)
		for _, q := range queries {
			rows = append(rows, row{set: si, held: heldOut(ds.name, q), fold: fold(ds.name, q)})
		}
		for _, lead := range grid {
			r.Rules.Lead = lead
			single, turns, err := outcomes(r, f)
			require.NoError(t, err)
			for i, o := range append(single, turns...) {
				rows[base+i].right = append(rows[base+i].right, correct(o.Routed, o.Expected))
			}
		}
		r.Rules.Lead = 0
	}
	// score is the mean over sets of the share right, for grid value g, over
	// the rows keep selects.
	score := func(g int, keep func(row) bool) float64 {
		right, n := make([]float64, len(devSets)), make([]float64, len(devSets))
		for _, r := range rows {
			if keep(r) {
				n[r.set]++
				if r.right[g] {
					right[r.set]++
				}
			}
		}
		mean := 0.0
		for i := range devSets {
			mean += right[i] / n[i] / float64(len(devSets))
		}
		return mean
	}
	argmax := func(keep func(row) bool) int {
		best := 0
		for g := range grid {
			if score(g, keep) > score(best, keep)+1e-12 {
				best = g
			}
		}
		return best
	}
	for g, lead := range grid {
		var per []string
		for si, ds := range devSets {
			k, n := 0, 0
			for _, r := range rows {
				if !r.held && r.set == si {
					n++
					if r.right[g] {
						k++
					}
				}
			}
			per = append(per, fmt.Sprintf("%s %d/%d", ds.name, k, n))
		}
		fmt.Printf("lead %-6.2f fit share by set: %s\n", lead, strings.Join(per, "  "))
	}
	fmt.Printf("%-6s %-9s %s\n", "lead", "fit-share", "per fold (held from the choice)")
	for g, lead := range grid {
		var folds []string
		for k := range 5 {
			folds = append(folds, fmt.Sprintf("%.4f", score(g, func(r row) bool { return !r.held && r.fold == k })))
		}
		fmt.Printf("%-6.2f %.4f    %s\n", lead, score(g, func(r row) bool { return !r.held }), strings.Join(folds, " "))
	}
	cv := 0.0
	for k := range 5 {
		g := argmax(func(r row) bool { return !r.held && r.fold != k })
		s := score(g, func(r row) bool { return !r.held && r.fold == k })
		fmt.Printf("fold %d: chosen on the other folds %.2f, top-1 on this fold %.4f\n", k, grid[g], s)
		cv += s / 5
	}
	chosen := argmax(func(r row) bool { return !r.held })
	fmt.Printf("5-fold CV top-1 (mean of sets) %.4f; chosen on the whole fitting share: %.2f\n", cv, grid[chosen])
	for si, ds := range devSets {
		inSet := func(r row) bool { return r.set == si && r.held }
		right := func(g int) string {
			k, n := 0, 0
			for _, r := range rows {
				if inSet(r) {
					n++
					if r.right[g] {
						k++
					}
				}
			}
			return fmt.Sprintf("%d/%d", k, n)
		}
		fmt.Printf("held out %-9s lead %.2f: %s   unbounded: %s\n", ds.name, grid[chosen], right(chosen), right(len(grid)-1))
	}
	fmt.Printf("disambig.ClearLead is %.2f\n", disambig.ClearLead)
}
