package router_test

import (
	"hash/fnv"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/calibrate"
	"github.com/skillroute/skillroute/learn/category"
	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

const shared = "../../shared"

// sharedPrompts reads every prompt of an eval file of ../shared, session
// turns included.
func sharedPrompts(t *testing.T, file string) []string {
	f, err := eval.Read(filepath.Join(shared, file))
	require.NoError(t, err)
	return f.Prompts()
}

// pick is a skill number chosen by a hash of s: spread over the catalog,
// the same on every run.
func pick(s string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int(h.Sum32() % uint32(n))
}

// TestPrunedRoutingExact protects routing through pruned scoring
// (bm25.TopK): on every dev prompt, with rules firing, session signals
// (recent skills, project types, workflow), learned weights and learned
// keywords, the prompt memory and a calibration table whose arms BM25
// ranks anywhere, the decision (with its explanations) is the one
// scoring every skill gives.
func TestPrunedRoutingExact(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared (design data) is absent")
	}
	sets := []struct {
		name  string
		cfg   loader.Config
		files []string
	}{
		{"builtin", loader.Config{Catalog: loader.Builtin}, []string{"eval/dev.jsonl", "eval/sessions-dev.jsonl", "eval/actions/prompts.jsonl"}},
		{"real-dev", loader.Config{Catalog: filepath.Join(shared, "eval/real-dev/skills")}, []string{"eval/real-dev/prompts.jsonl"}},
		{"bookworm", loader.Config{Catalog: filepath.Join(shared, "bookworm/skills-index.json"), Rules: filepath.Join(shared, "bookworm/disambiguation-rules.json"),
			Synonyms: filepath.Join(shared, "bookworm/synonyms.json")}, []string{"bookworm/golden-dev.jsonl"}},
	}
	for _, set := range sets {
		t.Run(set.name, func(t *testing.T) {
			r, err := loader.Open(set.cfg)
			require.NoError(t, err)
			r.Explain = true
			names := r.Index.SkillNames()
			var prompts []string
			for _, f := range set.files {
				prompts = append(prompts, sharedPrompts(t, f)...)
			}
			// Learned weights: skill deltas both ways, keyword deltas on
			// what every fourth prompt reaches, and learned keywords (a
			// correction's words added to another skill).
			weights := &learn.Weights{Keyword: map[string]map[string]float64{}, Skill: map[string]float64{}}
			for i, name := range names {
				switch i % 3 {
				case 0:
					weights.Skill[name] = 0.3
				case 1:
					weights.Skill[name] = -0.4
				}
			}
			tok := r.Index.Tokenizer()
			for i, p := range prompts {
				if i%4 != 0 {
					continue
				}
				for _, tm := range tok.Tokenize(p).Terms {
					name := names[pick(tm.Text, len(names))]
					if weights.Keyword[name] == nil {
						weights.Keyword[name] = map[string]float64{}
					}
					weights.Keyword[name][tm.Text] = 0.5
				}
			}
			var recs []feedback.Record
			now := time.Now()
			for i, p := range prompts {
				if i%9 == 0 {
					recs = append(recs, feedback.Record{TS: now.Add(-time.Duration(i) * time.Minute), Session: "t", Query: p,
						Routed: names[pick(p+"r", len(names))], Corrected: names[pick(p+"c", len(names))], Kind: feedback.KindExplicit})
				}
			}
			learned := learn.Learn(recs, r.Index, now)
			// A memory of corrections to skills BM25 ranks anywhere.
			mem := &memory.Set{}
			for _, rec := range recs {
				mem.Add(memory.Vectorize(r.Index, tok.Tokenize(rec.Query)), memory.EventOf(rec))
			}
			path := filepath.Join(t.TempDir(), memory.File)
			require.NoError(t, mem.Save(path))
			m, err := memory.Load(path)
			require.NoError(t, err)
			table := &calibrate.Table{Preset: calibrate.PresetMaximizeAccuracy, Categories: map[string]calibrate.Entry{}}
			for _, c := range category.Categories() {
				table.Categories[c] = calibrate.Entry{Arm: names[pick(c, len(names))], Level: calibrate.LevelCalibrated}
			}
			flow := &sctx.Workflow{}
			for i := range names {
				flow.Observe([]string{names[i]}, names[pick(names[i], len(names))])
			}
			projects := sctx.ProjectFavours{"go": {names[pick("go", len(names))]: 1}, "node": {names[pick("node", len(names))]: 0.8}}
			for _, p := range prompts {
				recent := []string{names[pick(p, len(names))], names[pick(p+"x", len(names))]}
				variants := []struct {
					session  router.Session
					weights  bool
					learned  bool
					table    bool
					memory   bool
					projects bool
				}{
					{},
					{session: router.Session{Recent: recent, LastSkill: recent[1], LastConfidence: 0.7}},
					{session: router.Session{Recent: recent[:1], Project: []string{"go", "node"}, Workflow: flow}, weights: true, projects: true},
					{weights: true, table: true},
					{learned: true, memory: true},
					{session: router.Session{Recent: recent}, learned: true, memory: true, table: true},
				}
				for v, variant := range variants {
					rr := *r
					if variant.weights {
						rr.Weights = weights
					}
					if variant.learned {
						rr.Weights = learned
					}
					if variant.table {
						rr.Table = table
					}
					if variant.memory {
						rr.Memory = m
					}
					if variant.projects {
						rr.Projects = projects
					}
					router.ScoreEverySkill(true)
					want := rr.Route(p, variant.session)
					router.ScoreEverySkill(false)
					got := rr.Route(p, variant.session)
					require.Equal(t, want, got, "variant %d: %q", v, p)
				}
			}
		})
	}
}
