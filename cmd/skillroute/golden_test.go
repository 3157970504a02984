package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/router"
	"github.com/stretchr/testify/require"
)

// updateGolden rewrites testdata/route.golden from the current router:
// run it, and review the diff, when routing is meant to change.
var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/route.golden")

// goldenSet is one labelled file routed with one choice of data.
type goldenSet struct {
	name string
	file string   // JSON lines under ../shared
	args []string // data flags
}

const shared = "../../../shared"

var goldenSets = []goldenSet{
	{"dev", "eval/dev.jsonl", []string{"--catalog", "builtin"}},
	{"sessions", "eval/sessions-dev.jsonl", []string{"--catalog", "builtin"}},
	{"actions", "eval/actions/prompts.jsonl", []string{"--catalog", "builtin"}},
	{"real-dev", "eval/real-dev/prompts.jsonl", []string{"--catalog", shared + "/eval/real-dev/skills"}},
	{"bookworm", "bookworm/golden-dev.jsonl", []string{"--catalog", shared + "/bookworm/skills-index.json",
		"--rules", shared + "/bookworm/disambiguation-rules.json", "--synonyms", shared + "/bookworm/synonyms.json"}},
}

// TestRouteGolden pins `route --json` over every dev prompt, and the
// accuracy figures of `eval --json`, to a recorded file. The file holds
// hashes only: the prompts stay in ../shared. A change to routing shows up
// here first; re-record with -update-golden when it is intended.
func TestRouteGolden(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared (design data) is absent")
	}
	a := isolate(t)
	var got []string
	for _, set := range goldenSets {
		for _, q := range goldenQueries(t, filepath.Join(shared, set.file)) {
			var out, errb strings.Builder
			args := append(append([]string{"route", "--json"}, set.args...), q)
			code := run(a, args, &out, &errb)
			require.Equal(t, 0, code, "%s: %q: %s", set.name, q, errb.String())
			got = append(got, fmt.Sprintf("route %s %s %s", set.name, digest(q), digest(routing(t, out.String()))))
		}
		var out, errb strings.Builder
		args := append(append([]string{"eval", "--json"}, set.args...), filepath.Join(shared, set.file))
		require.Equal(t, 0, run(a, args, &out, &errb), errb.String())
		got = append(got, fmt.Sprintf("eval %s %s", set.name, accuracyLine(t, out.String())))
	}
	path := filepath.Join("testdata", "route.golden")
	if *updateGolden {
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644))
		return
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	want := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	require.Equal(t, len(want), len(got), "number of recorded lines")
	var diffs []string
	for i := range want {
		if want[i] != got[i] {
			diffs = append(diffs, fmt.Sprintf("line %d: want %s\n         got  %s", i+1, want[i], got[i]))
		}
	}
	require.Empty(t, diffs, "routing changed (%d lines):\n%s", len(diffs), strings.Join(diffs[:min(len(diffs), 20)], "\n"))
}

// routing keeps the router's part of `route --json`, encoded as route
// encodes it: the action layer's fields ("action", "steps", "breakdown")
// come after the router and must never change what it routes, which is
// what this test pins.
func routing(t *testing.T, out string) string {
	var d struct {
		router.Decision
		Explain string `json:"explain,omitempty"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(d))
	return b.String()
}

// goldenQueries reads every prompt of a JSON-lines file, session turns
// included, in file order.
func goldenQueries(t *testing.T, path string) []string {
	f, err := eval.Read(path)
	require.NoError(t, err)
	return f.Prompts()
}

// accuracyLine keeps the accuracy fields of eval's JSON summary (the last
// line), sorted by key; latencies vary from run to run and are dropped,
// in the breakdowns by label too.
func accuracyLine(t *testing.T, out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &m))
	var keys []string
	for k := range m {
		if !strings.HasSuffix(k, "_us") && !strings.HasPrefix(k, "action_") {
			keys = append(keys, k)
		}
	}
	for _, by := range []string{"by_lang", "by_kind"} {
		groups, _ := m[by].(map[string]any)
		for _, g := range groups {
			for k := range g.(map[string]any) {
				if strings.HasSuffix(k, "_us") {
					delete(g.(map[string]any), k)
				}
			}
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		v, _ := json.Marshal(m[k])
		fmt.Fprintf(&b, "%s=%s ", k, v)
	}
	return strings.TrimSpace(b.String())
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}
