package action_test

import (
	"bufio"
	"encoding/json"
	"hash/fnv"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/recall"
	"github.com/skillroute/skillroute/router"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The action dev set (../shared/eval/actions) was split once, before the
// feature router's weights, bars and cues were set: a prompt whose
// FNV-1a hash is 0, 1 or 2 modulo 5 is in the tuning half (68 prompts),
// the others are held out (52), each half with all six actions. Only the
// tuning half's misses were studied; the held half is reported beside it.
// testdata/tidepool is a second project (its own 15 facts, 11 tools and
// 49 prompts), written for these tests from the label guidelines before
// the routers were run on it.

const sharedActions = "../../shared/eval/actions"

type labelled struct {
	Query  string        `json:"query"`
	Action string        `json:"action"`
	Steps  []action.Step `json:"steps"`
}

func tuning(query string) bool {
	h := fnv.New64a()
	h.Write([]byte(query))
	return h.Sum64()%5 < 3
}

var (
	routerOnce sync.Once
	builtin    *router.Router
	routerErr  error
)

func builtinRouter(t *testing.T) *router.Router {
	routerOnce.Do(func() { builtin, routerErr = loader.Open(loader.Config{Catalog: loader.Builtin}) })
	require.NoError(t, routerErr)
	return builtin
}

// accuracy runs both routers over a labelled set and returns, per router,
// the share right on the tuning half, the held half and the whole.
func accuracy(t *testing.T, dir string) map[string][3]float64 {
	t.Helper()
	mems, err := recall.ReadMemories(filepath.Join(dir, "memories.jsonl"))
	require.NoError(t, err)
	tools, err := recall.ReadTools(filepath.Join(dir, "tools.yaml"))
	require.NoError(t, err)
	l, err := action.NewLayer(mems, tools)
	require.NoError(t, err)
	r := builtinRouter(t)
	f, err := os.Open(filepath.Join(dir, "prompts.jsonl"))
	require.NoError(t, err)
	defer f.Close()
	type tally struct{ ok, n [3]int }
	got := map[string]*tally{"feature": {}, "rule": {}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c labelled
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c))
		in := l.Input(c.Query, r.Route(c.Query, router.Session{}), action.Context{Now: time.Unix(0, 0)})
		half := 1
		if tuning(c.Query) {
			half = 0
		}
		for _, ar := range []action.Router{action.Feature{}, action.Rule{}} {
			tl := got[ar.Name()]
			right := ar.Decide(in).Action == c.Action
			for _, k := range []int{half, 2} {
				tl.n[k]++
				if right {
					tl.ok[k]++
				}
			}
		}
	}
	require.NoError(t, sc.Err())
	out := map[string][3]float64{}
	for name, tl := range got {
		var acc [3]float64
		for k := range acc {
			acc[k] = float64(tl.ok[k]) / float64(tl.n[k])
		}
		out[name] = acc
		t.Logf("%s: %s router: tuning half %.1f%% (%d), held half %.1f%% (%d), all %.1f%% (%d)", filepath.Base(dir), name,
			100*acc[0], tl.n[0], 100*acc[1], tl.n[1], 100*acc[2], tl.n[2])
	}
	return out
}

func TestActionAccuracyDevSet(t *testing.T) {
	if _, err := os.Stat(sharedActions); err != nil {
		t.Skip("../shared (design data) is absent")
	}
	acc := accuracy(t, sharedActions)
	feature, rule := acc["feature"], acc["rule"]
	assert.GreaterOrEqual(t, feature[2], 0.85, "the feature router's action accuracy on the dev set")
	assert.GreaterOrEqual(t, feature[1], 0.75, "and on its held-out half")
	for k, half := range []string{"tuning half", "held half", "whole set"} {
		assert.Greater(t, feature[k], rule[k]+0.2, "the feature router is well ahead of the rule baseline on the %s", half)
	}
}

func TestActionAccuracySecondProject(t *testing.T) {
	acc := accuracy(t, "testdata/tidepool")
	assert.GreaterOrEqual(t, acc["feature"][2], 0.8, "another project's facts, tools and prompts")
	assert.Greater(t, acc["feature"][2], acc["rule"][2]+0.2)
}
