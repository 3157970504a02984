package feedback_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/learn/feedback"
	"github.com/skillroute/skillroute/tokenize"
)

// t0 is the time of the records of these tests.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Environment of the helper process of TestLogConcurrentProcesses.
const (
	helperDirEnv = "LEARN_HELPER_DIR"
	helperIDEnv  = "LEARN_HELPER_ID"
	helperCount  = 200 // appends per process
	helperProcs  = 8
)

// TestHelperAppend is not a test: run by TestLogConcurrentProcesses as a
// child process (the test binary re-executed), it appends helperCount
// records to the log in $LEARN_HELPER_DIR and exits.
func TestHelperAppend(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		t.Skip("helper process for TestLogConcurrentProcesses")
	}
	id := os.Getenv(helperIDEnv)
	log := feedback.Log{Dir: dir}
	for i := range helperCount {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := log.Append(ctx, feedback.Record{
			Session: "proc-" + id, Decision: strconv.Itoa(i),
			Query:  strings.Repeat("React 页面加载慢 ", 1+i%7), // lines of varying length
			Routed: "frontend-expert", Corrected: "performance-expert", Kind: feedback.KindImplicit,
		})
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// TestLogConcurrentProcesses runs 8 real processes appending 200 records
// each to one log: exactly 1,600 lines, each a whole record, none lost.
func TestLogConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make([]error, helperProcs)
	outs := make([][]byte, helperProcs)
	for p := range helperProcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppend$", "-test.count=1")
			cmd.Env = append(os.Environ(), helperDirEnv+"="+dir, helperIDEnv+"="+strconv.Itoa(p))
			outs[p], errs[p] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for p := range helperProcs {
		require.NoError(t, errs[p], "process %d: %s", p, outs[p])
	}

	f, err := os.Open(filepath.Join(dir, feedback.LogFile))
	require.NoError(t, err)
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines++
		var r feedback.Record
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "line %d: %q", lines, sc.Text())
	}
	require.NoError(t, sc.Err())
	assert.Equal(t, helperProcs*helperCount, lines)

	recs, warns, err := (&feedback.Log{Dir: dir}).Read()
	require.NoError(t, err)
	assert.Empty(t, warns)
	require.Len(t, recs, helperProcs*helperCount)
	seen := map[string]bool{}
	last := map[string]int{}
	for _, r := range recs {
		key := r.Session + "/" + r.Decision
		assert.False(t, seen[key], "duplicate %s", key)
		seen[key] = true
		// Each process's records appear in the order it wrote them.
		n, _ := strconv.Atoi(r.Decision)
		if prev, ok := last[r.Session]; ok {
			assert.Greater(t, n, prev, r.Session)
		}
		last[r.Session] = n
	}
	assert.Len(t, last, helperProcs)
}

func TestLogAppendRead(t *testing.T) {
	dir := t.TempDir()
	log := &feedback.Log{Dir: dir}
	recs, warns, err := (&feedback.Log{Dir: filepath.Join(dir, "missing")}).Read()
	require.NoError(t, err)
	assert.Empty(t, recs)
	assert.Empty(t, warns)

	ctx := context.Background()
	in := feedback.Record{TS: t0.In(time.FixedZone("CST", 8*3600)), Session: "s", Decision: "d1", Query: "a\nb \"quoted\"",
		Routed: "x", Corrected: "y", Kind: feedback.KindExplicit, Confidence: 0.72, Cost: 1200}
	require.NoError(t, log.Append(ctx, in))
	require.NoError(t, log.Append(ctx, feedback.Record{Query: strings.Repeat("慢", tokenize.MaxInput+50), Routed: "x", Corrected: "x", Kind: feedback.KindImplicit}))
	assert.Error(t, log.Append(ctx, feedback.Record{Kind: "guess"}), "unknown kind")

	recs, warns, err = log.Read()
	require.NoError(t, err)
	assert.Empty(t, warns)
	require.Len(t, recs, 2)
	assert.True(t, in.TS.Equal(recs[0].TS))
	assert.Equal(t, time.UTC, recs[0].TS.Location(), "stored in UTC")
	in.TS = recs[0].TS
	assert.Equal(t, in, recs[0])
	assert.False(t, recs[1].TS.IsZero(), "a missing time is set")
	assert.Equal(t, tokenize.MaxInput, len([]rune(recs[1].Query)), "query cut to what routing reads")
	assert.True(t, recs[0].IsCorrection())
	assert.False(t, recs[1].IsCorrection())

	data, err := os.ReadFile(log.Path())
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(data), "\n"), "one line per record")
	assert.Contains(t, string(data), `"cost":1200`)
	assert.NotContains(t, strings.SplitN(string(data), "\n", 3)[1], `"cost"`, "cost omitted when zero")
}

func TestLogCorruptLines(t *testing.T) {
	good := func(d string) string {
		b, _ := json.Marshal(feedback.Record{TS: t0, Decision: d, Routed: "x", Corrected: "y", Kind: feedback.KindExplicit})
		return string(b)
	}
	tests := []struct {
		name      string
		files     map[string]string // file -> content
		decisions []string          // expected records, in order
		warnings  []string          // substrings, one per warning, in order
	}{
		{"clean",
			map[string]string{feedback.LogFile: good("1") + "\n" + good("2") + "\n"},
			[]string{"1", "2"}, nil},
		{"garbage line in the middle",
			map[string]string{feedback.LogFile: good("1") + "\nnot json at all\n" + good("3") + "\n"},
			[]string{"1", "3"}, []string{"feedback.jsonl:2: corrupt line"}},
		{"torn last line",
			map[string]string{feedback.LogFile: good("1") + "\n" + good("2")[:20]},
			[]string{"1"}, []string{"feedback.jsonl:2: torn line"}},
		{"whole last line without newline is kept",
			map[string]string{feedback.LogFile: good("1") + "\n" + good("2")},
			[]string{"1", "2"}, nil},
		{"valid JSON, not a record",
			map[string]string{feedback.LogFile: `{"ts":"2026-03-01T00:00:00Z","kind":"maybe"}` + "\n" + `{}` + "\n" + good("3") + "\n"},
			[]string{"3"}, []string{"feedback.jsonl:1: not a feedback record", "feedback.jsonl:2: not a feedback record"}},
		{"blank lines are no records and no warnings",
			map[string]string{feedback.LogFile: "\n" + good("1") + "\n\n  \n" + good("2") + "\n"},
			[]string{"1", "2"}, nil},
		{"corrupt rotated file is named",
			map[string]string{
				"feedback-20260101T000000.000000000Z.jsonl": good("1") + "\n{oops\n",
				feedback.LogFile: good("3") + "\n",
			},
			[]string{"1", "3"}, []string{"feedback-20260101T000000.000000000Z.jsonl:2: corrupt line"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
			}
			recs, warns, err := (&feedback.Log{Dir: dir}).Read()
			require.NoError(t, err)
			var got []string
			for _, r := range recs {
				got = append(got, r.Decision)
			}
			assert.Equal(t, tt.decisions, got)
			require.Len(t, warns, len(tt.warnings), "%v", warns)
			for i, w := range tt.warnings {
				assert.Contains(t, warns[i].Error(), filepath.Join(dir, w))
			}
		})
	}
}

func TestLogRotation(t *testing.T) {
	dir := t.TempDir()
	log := &feedback.Log{Dir: dir, MaxBytes: 1000}
	ctx := context.Background()
	const n = 60
	for i := range n {
		require.NoError(t, log.Append(ctx, feedback.Record{Decision: fmt.Sprintf("%03d", i), Query: "redis latency",
			Routed: "cache-expert", Corrected: "perf-expert", Kind: feedback.KindExplicit}))
	}
	files, err := log.Files()
	require.NoError(t, err)
	require.Greater(t, len(files), 3, "rotated several times")
	assert.Equal(t, log.Path(), files[len(files)-1], "current file last")
	for _, f := range files[:len(files)-1] {
		assert.Regexp(t, `feedback-\d+\.jsonl$`, f, "numbered, not named by the clock")
		info, err := os.Stat(f)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, info.Size(), int64(1000), "rotated only once over the limit")
	}
	recs, warns, err := log.Read()
	require.NoError(t, err)
	assert.Empty(t, warns)
	require.Len(t, recs, n)
	for i, r := range recs {
		assert.Equal(t, fmt.Sprintf("%03d", i), r.Decision, "oldest first")
	}
}

// TestLogRotationConcurrent: appenders racing through rotations lose
// nothing and duplicate nothing.
func TestLogRotationConcurrent(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 6, 40
	var wg sync.WaitGroup
	for g := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			log := &feedback.Log{Dir: dir, MaxBytes: 2000}
			for i := range each {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				assert.NoError(t, log.Append(ctx, feedback.Record{Session: strconv.Itoa(g), Decision: strconv.Itoa(i),
					Routed: "x", Corrected: "x", Kind: feedback.KindImplicit}))
				cancel()
			}
		}()
	}
	// Reading while they write sees whole records only.
	for range 5 {
		_, warns, err := (&feedback.Log{Dir: dir}).Read()
		require.NoError(t, err)
		assert.Empty(t, warns)
	}
	wg.Wait()
	recs, warns, err := (&feedback.Log{Dir: dir}).Read()
	require.NoError(t, err)
	assert.Empty(t, warns)
	assert.Len(t, recs, writers*each)
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Session+"/"+r.Decision] = true
	}
	assert.Len(t, seen, writers*each)
}

// Files rotated by older versions (named by time) are read first, in
// time order, then the numbered ones, then the current file: upgrading
// keeps the whole history, in order.
func TestLogReadsOlderRotations(t *testing.T) {
	dir := t.TempDir()
	line := func(d string) string {
		b, _ := json.Marshal(feedback.Record{TS: t0, Decision: d, Routed: "x", Corrected: "y", Kind: feedback.KindExplicit})
		return string(b) + "\n"
	}
	for name, d := range map[string]string{
		"feedback-20260102T000000.000000000Z.jsonl": "2",
		"feedback-20260101T000000.000000000Z.jsonl": "1",
		"feedback-10.jsonl":                         "4",
		"feedback-9.jsonl":                          "3",
		feedback.LogFile:                            "5",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(line(d)), 0o600))
	}
	log := &feedback.Log{Dir: dir, MaxBytes: 10}
	require.NoError(t, log.Append(context.Background(), feedback.Record{TS: t0, Decision: "6", Routed: "x", Corrected: "x", Kind: feedback.KindImplicit}))
	recs, warns, err := log.Read()
	require.NoError(t, err)
	assert.Empty(t, warns)
	var got []string
	for _, r := range recs {
		got = append(got, r.Decision)
	}
	assert.Equal(t, []string{"1", "2", "3", "4", "5", "6"}, got)
	_, err = os.Stat(filepath.Join(dir, "feedback-11.jsonl"))
	assert.NoError(t, err, "the next rotation is numbered after the highest")
}
