package router

import (
	"bufio"
	"encoding/json"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/learn"
)

const shared = "../../shared"

// sharedPrompts reads every prompt of a JSON-lines eval file, session
// turns included.
func sharedPrompts(t *testing.T, file string) []string {
	f, err := os.Open(filepath.Join(shared, file))
	require.NoError(t, err)
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var line struct {
			Query string `json:"query"`
			Turns []struct {
				Query string `json:"query"`
			} `json:"turns"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		if line.Query != "" {
			out = append(out, line.Query)
		}
		for _, turn := range line.Turns {
			out = append(out, turn.Query)
		}
	}
	require.NoError(t, sc.Err())
	return out
}

func pick(s string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32() % uint32(n))
}

// TestNeedsExact protects routing through pruned scoring: on every dev
// prompt, with rules firing, session signals, learned weights and a
// calibration table whose arm BM25 ranks anywhere, the decision (with its
// explanations) is the one scoring every skill gives.
func TestNeedsExact(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared (design data) is absent")
	}
	sets := []struct {
		name  string
		opt   Options
		files []string
	}{
		{"builtin", Options{Catalog: Builtin}, []string{"eval/dev.jsonl", "eval/sessions-dev.jsonl", "eval/actions/prompts.jsonl"}},
		{"real-dev", Options{Catalog: filepath.Join(shared, "eval/real-dev/skills")}, []string{"eval/real-dev/prompts.jsonl"}},
		{"bookworm", Options{Catalog: filepath.Join(shared, "bookworm/skills-index.json"), Rules: filepath.Join(shared, "bookworm/disambiguation-rules.json"),
			Synonyms: filepath.Join(shared, "bookworm/synonyms.json")}, []string{"bookworm/golden-dev.jsonl"}},
	}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			r, err := Open(set.opt)
			require.NoError(t, err)
			r.Explain = true
			names := r.Index.SkillNames()
			weights := &learn.Weights{Keyword: map[string]map[string]float64{}, Skill: map[string]float64{}}
			table := &learn.Table{Categories: map[string]learn.Entry{}}
			for i, name := range names {
				switch i % 3 {
				case 0:
					weights.Skill[name] = 0.3
				case 1:
					weights.Skill[name] = -0.4
				}
			}
			for _, c := range learn.Categories() {
				table.Categories[c] = learn.Entry{Arm: names[pick(c, len(names))], Level: learn.LevelCalibrated}
			}
			var prompts []string
			for _, f := range set.files {
				prompts = append(prompts, sharedPrompts(t, f)...)
			}
			for i, p := range prompts {
				if i%4 == 0 { // learned keyword deltas on what the prompt reaches
					for _, tm := range r.Index.Tokenizer().Tokenize(p).Terms {
						name := names[pick(tm.Text, len(names))]
						if weights.Keyword[name] == nil {
							weights.Keyword[name] = map[string]float64{}
						}
						weights.Keyword[name][tm.Text] = 0.5
					}
				}
				variants := []struct {
					sig     Signals
					weights bool
					table   bool
				}{
					{},
					{sig: Signals{Recent: []string{names[pick(p, len(names))], names[pick(p+"x", len(names))]}}},
					{sig: Signals{Recent: []string{names[pick(p, len(names))]}, Project: map[string]float64{names[pick(p+"p", len(names))]: 1},
						Workflow: map[string]float64{names[pick(p+"w", len(names))]: 0.7}}, weights: true},
					{weights: true, table: true},
				}
				for v, variant := range variants {
					rr := *r
					if variant.weights {
						rr.Weights = weights
					}
					if variant.table {
						rr.Table = table
					}
					scoreEverySkill = true
					want := rr.RouteWith(p, variant.sig)
					scoreEverySkill = false
					got := rr.RouteWith(p, variant.sig)
					require.Equal(t, want, got, "variant %d: %q", v, p)
				}
			}
		})
	}
}
