package loader_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeSkill(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name, "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

// The places passed in are where skills are found: nothing is read from
// the environment, and a changed skill file invalidates the cached index.
func TestInstalledCatalogFromPlaces(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(home, ".claude", "skills"), "invoice-helper", "---\ndescription: customer invoices, VAT lines and credit notes\n---\n")
	path := writeSkill(t, filepath.Join(project, ".claude", "skills"), "fleet-deploy", "---\ndescription: ship the acme platform to the fleet\n---\n")
	cfg := loader.Config{Catalog: loader.Installed, Places: skills.Places{Home: home, ProjectDir: project}, CacheDir: t.TempDir()}

	assert.False(t, loader.Cached(cfg))
	r, err := loader.Open(cfg)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"invoice-helper", "fleet-deploy"}, r.Index.SkillNames())
	assert.True(t, loader.Cached(cfg), "opening compiles into the cache")
	assert.Equal(t, "invoice-helper", r.Route("the VAT lines on this invoice are wrong", router.Session{}).Skill)

	// An edited skill leaves the quick stamp (folders only) as it was:
	// the cache still answers, and the full check and the per-skill check
	// both see the edit.
	require.NoError(t, os.WriteFile(path, []byte("---\ndescription: roll out the acme platform to every region\n---\n"), 0o644))
	edited := time.Now()
	require.NoError(t, os.Chtimes(path, edited, edited))
	assert.True(t, loader.Cached(cfg))
	r, err = loader.Open(cfg)
	require.NoError(t, err)
	assert.False(t, loader.Fresh(cfg, r.Index))
	st, err := loader.TakeStamps(cfg)
	require.NoError(t, err)
	assert.False(t, loader.Current(cfg, st), "the stamp in the cached file's head is the old one")
	assert.Equal(t, []string{"fleet-deploy"}, loader.Changed(r.Index, "fleet-deploy", "invoice-helper"))
	ix, err := loader.CompileStamped(cfg, st)
	require.NoError(t, err)
	assert.True(t, loader.Fresh(cfg, ix))
	assert.True(t, loader.Current(cfg, st), "compiled from these stamps")
	assert.False(t, loader.Current(loader.Config{Catalog: cfg.Catalog, Places: cfg.Places}, st), "no cache folder, nothing current")
	assert.Empty(t, loader.Changed(ix, "fleet-deploy", "invoice-helper"))

	// A skill folder added moves the quick stamp. With OnStale, the last
	// index answers meanwhile and the caller is told to compile.
	writeSkill(t, filepath.Join(project, ".claude", "skills"), "release-notes", "---\ndescription: write release notes from the changelog\n---\n")
	stale := 0
	staleCfg := cfg
	staleCfg.OnStale = func() { stale++ }
	assert.False(t, loader.Cached(staleCfg))
	r, err = loader.Open(staleCfg)
	require.NoError(t, err)
	assert.Equal(t, 1, stale)
	assert.NotContains(t, r.Index.SkillNames(), "release-notes", "the last index, until the compile lands")
	r, err = loader.Open(cfg) // without OnStale: compiled at once
	require.NoError(t, err)
	assert.Contains(t, r.Index.SkillNames(), "release-notes")

	// Without the project, its skills are not there.
	cfg.Places.ProjectDir = ""
	r, err = loader.Open(cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"invoice-helper"}, r.Index.SkillNames())
	removed := filepath.Join(home, ".claude", "skills", "invoice-helper", "SKILL.md")
	require.NoError(t, os.Remove(removed))
	assert.Equal(t, []string{"invoice-helper"}, loader.Changed(r.Index, "invoice-helper"), "a removed file is a change")
}

// The built-in rules fit any catalog: rules about skills that are not
// installed drop out instead of failing, and names match plugin skills.
func TestBuiltinRulesFitAnyCatalog(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name, "SKILL.md")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	// A folder's skill is named by its folder: this one stands for the
	// plugin skill Claude Code invokes as skillroute:security-expert.
	write("skillroute:security-expert", "---\ndescription: application security, pentests, XSS, SQL injection\n---\n")
	write("invoice-helper", "---\ndescription: invoices and VAT\n---\n")
	r, err := loader.Open(loader.Config{Catalog: dir})
	require.NoError(t, err, "rules naming absent skills must not stop the router")
	for _, rule := range r.Rules.Rules {
		assert.Equal(t, "skillroute:security-expert", rule.Boost, "only rules about installed skills stay, by their catalog name")
	}
	require.NotEmpty(t, r.Rules.Rules)
	d := r.Route("plan a pentest of the login page: XSS and SQL injection first", router.Session{})
	assert.Equal(t, "skillroute:security-expert", d.Skill)
	assert.Contains(t, d.Rules, "test-pentest", "the built-in rule fired for the plugin's skill")
}

// A cache damaged on disk is rebuilt or, where its checks pass, routes
// without a panic: the hook must never crash on a bad file.
func TestDamagedCacheNeverPanics(t *testing.T) {
	cache := t.TempDir()
	opt := loader.Config{Catalog: loader.Builtin, CacheDir: cache}
	_, err := loader.Open(opt)
	require.NoError(t, err)
	files, _ := filepath.Glob(filepath.Join(cache, "*.bin"))
	require.Len(t, files, 5, "an index, a rules cache, the skills' words (cuts) and sums, and the project table")
	originals := map[string][]byte{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		originals[f] = data
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for round := 0; round < 25; round++ {
		for f, data := range originals {
			damaged := append([]byte(nil), data...)
			for k := 0; k < 4; k++ {
				damaged[rng.IntN(len(damaged))] ^= byte(1 + rng.IntN(255))
			}
			require.NoError(t, os.WriteFile(f, damaged, 0o644))
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("round %d: panic: %v", round, p)
				}
			}()
			r, err := loader.Open(opt)
			if err != nil {
				return
			}
			for _, p := range []string{"React 页面加载慢", "渗透测试报告怎么写", "git rebase conflict", "继续"} {
				r.Route(p, router.Session{})
			}
		}()
	}
}

// The built-in glossary carries a Chinese prompt to a skill written in
// English; "none" and a file of one's own replace it, and each choice
// keys its own cached index.
func TestGlossaryChoice(t *testing.T) {
	dir := t.TempDir()
	writeSkill(t, dir, "log-search", "---\nname: log-search\ndescription: search application logs for errors and warnings\n---\n")
	writeSkill(t, dir, "invoice-helper", "---\nname: invoice-helper\ndescription: customer invoices, VAT lines and credit notes\n---\n")
	own := filepath.Join(t.TempDir(), "glossary.yaml")
	require.NoError(t, os.WriteFile(own, []byte("entries:\n  发票: [invoice]\n"), 0o644))
	cache := t.TempDir()
	reach := func(glossary, prompt string) []string {
		r, err := loader.Open(loader.Config{Catalog: dir, Glossary: glossary, CacheDir: cache})
		require.NoError(t, err)
		var out []string
		for _, c := range r.Route(prompt, router.Session{}).Candidates {
			out = append(out, c.Skill)
		}
		return out
	}
	assert.Equal(t, []string{"log-search"}, reach("", "翻一下日志"), "built-in: 日志 is log")
	assert.Empty(t, reach(loader.NoGlossary, "翻一下日志"))
	assert.Equal(t, []string{"invoice-helper"}, reach(own, "发票"))
	assert.Empty(t, reach(own, "翻一下日志"), "a file of one's own replaces the built-in glossary")

	// Each choice has its own quick and full stamps, with a binary (which
	// holds the built-in glossary) and without.
	binary := filepath.Join(t.TempDir(), "skillroute")
	require.NoError(t, os.WriteFile(binary, []byte("binary"), 0o755))
	stamps := func(cfg loader.Config) (quick, full string) {
		t.Helper()
		quick, err := loader.Stamp(cfg)
		require.NoError(t, err)
		full, err = loader.FullStamp(cfg)
		require.NoError(t, err)
		return quick, full
	}
	for _, bin := range []string{"", binary} {
		seen := map[string]bool{}
		for _, g := range []string{"", loader.NoGlossary, own} {
			quick, full := stamps(loader.Config{Catalog: dir, Glossary: g, Binary: bin})
			seen[quick], seen[full] = true, true
		}
		assert.Len(t, seen, 6, "binary %q", bin)
	}

	// An edited glossary file moves both stamps, so the cached index is
	// compiled afresh, and no other choice's index stands in meanwhile.
	cfg := loader.Config{Catalog: dir, Glossary: own, Binary: binary, CacheDir: cache}
	quick, full := stamps(cfg)
	require.NoError(t, os.WriteFile(own, []byte("entries:\n  发票: [invoice]\n  日志: [logs]\n"), 0o644))
	later := time.Now().Add(time.Second)
	require.NoError(t, os.Chtimes(own, later, later))
	quick2, full2 := stamps(cfg)
	assert.NotEqual(t, quick, quick2)
	assert.NotEqual(t, full, full2)
	_, err := loader.Open(loader.Config{Catalog: dir, Glossary: loader.NoGlossary, Binary: binary, CacheDir: cache})
	require.NoError(t, err)
	stale := 0
	cfg.OnStale = func() { stale++ }
	r, err := loader.Open(cfg)
	require.NoError(t, err)
	assert.Zero(t, stale, "the index of another glossary is not this one's last")
	assert.True(t, loader.Fresh(cfg, r.Index))
	var found []string
	for _, c := range r.Route("翻一下日志", router.Session{}).Candidates {
		found = append(found, c.Skill)
	}
	assert.Equal(t, []string{"log-search"}, found, "the edit is in")

	_, err = loader.Open(loader.Config{Catalog: dir, Glossary: filepath.Join(dir, "missing.yaml")})
	assert.ErrorContains(t, err, "glossary")
}

// The warning about a rules file's unusable rules counts rules, not
// problems, and says the same when the rules come from the cache.
func TestRulesWarningCountsRules(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rules.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"rules": [
    {"id": "R1", "trigger": "(bad", "boost": "ghost", "penalty": ["ghost2"], "weight": 0.3},
    {"id": "R2", "trigger": "pentest", "boost": "security-expert", "penalty": ["ghost", "ghost2"], "weight": 0.3},
    {"id": "R3", "trigger": "(?<!vue)路由", "boost": "security-expert", "weight": 0.3}
  ]}`), 0o644))
	ix, err := loader.OpenIndex(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	cache := t.TempDir()
	for _, pass := range []string{"parsed", "cached"} {
		var warn strings.Builder
		set, err := loader.LoadRules(loader.Config{Rules: path, Warn: &warn, CacheDir: cache}, ix)
		require.NoError(t, err, pass)
		assert.Len(t, set.Rules, 2, pass)
		assert.Contains(t, warn.String(), "3 rules: 2 loaded (1 of them trimmed), 1 skipped", pass)
	}
}

// The project table is parsed from its YAML once, then read from the
// cache as the same value.
func TestProjectFavoursCached(t *testing.T) {
	cache := t.TempDir()
	cfg := loader.Config{Catalog: loader.Builtin, CacheDir: cache}
	first, err := loader.Open(cfg)
	require.NoError(t, err)
	files, _ := filepath.Glob(filepath.Join(cache, "projects-*.bin"))
	require.Len(t, files, 1)
	again, err := loader.Open(cfg)
	require.NoError(t, err)
	assert.Equal(t, first.Projects, again.Projects)
	assert.Equal(t, 1.0, again.Projects["go"]["golang-pro"])

	// A damaged cache file is parsed afresh, whatever the damage.
	raw, err := os.ReadFile(files[0])
	require.NoError(t, err)
	for _, bad := range [][]byte{[]byte("{"), raw[:len(raw)/2], append(raw[:len(raw)-1:len(raw)-1], raw[len(raw)-1]^0x40)} {
		require.NoError(t, os.WriteFile(files[0], bad, 0o644))
		damaged, err := loader.Open(cfg)
		require.NoError(t, err)
		assert.Equal(t, first.Projects, damaged.Projects)
	}
}

// BenchmarkOpenCached opens the built-in catalog from a warm cache:
// what a hook call pays for the index, the rules and the project table.
func BenchmarkOpenCached(b *testing.B) {
	cfg := loader.Config{Catalog: loader.Builtin, CacheDir: b.TempDir()}
	if _, err := loader.Open(cfg); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loader.Open(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRecompileIsColdCompile protects incremental compiles end to end:
// with the last compile's words and headers cached, a compile after a
// body edit and a header edit writes, calibration included, the index a
// compile with no cache writes, byte for byte.
func TestRecompileIsColdCompile(t *testing.T) {
	set, err := synth.Generate(synth.Options{Skills: 300, Seed: 5, Queries: 1})
	require.NoError(t, err)
	dir := t.TempDir()
	for _, f := range set.Files {
		writeSkill(t, dir, f.Name, string(f.Data))
	}
	saved := func(ix *index.Index) []byte {
		path := filepath.Join(t.TempDir(), "index.bin")
		require.NoError(t, ix.Save(path))
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		return data
	}
	compile := func(cache string) []byte { // "": no cache at all
		ix, err := loader.Compile(loader.Config{Catalog: dir, CacheDir: cache})
		require.NoError(t, err)
		require.True(t, ix.Calibration.Calibrated())
		return saved(ix)
	}
	cache := t.TempDir()
	assert.Equal(t, compile(""), compile(cache), "a cold compile with caches is a plain one")

	body := filepath.Join(dir, set.Files[7].Name, "SKILL.md")
	data, err := os.ReadFile(body)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(body, append(data, "\nAlso check the flaky retry logic.\n"...), 0o644))
	header := filepath.Join(dir, set.Files[40].Name, "SKILL.md")
	data, err = os.ReadFile(header)
	require.NoError(t, err)
	edited := strings.Replace(string(data), "core: [", "core: [\"retry storm guard\", ", 1)
	require.NotEqual(t, string(data), edited)
	require.NoError(t, os.WriteFile(header, []byte(edited), 0o644))

	assert.Equal(t, compile(""), compile(cache), "the recompile writes the cold compile's index")
}

// emptied edits n files from the first one on: each body cut to two
// words.
func emptied(first, n int) map[int]func(string) string {
	out := map[int]func(string) string{}
	for k := first; k < first+n; k++ {
		out[k] = func(s string) string { return s[:strings.Index(s, "\n---\n")+5] + "# Short\n\nOnly this.\n" }
	}
	return out
}

// TestRecompileReusesPostings protects the recompile that copies the
// postings of every term no edited skill uses from the last index
// (index.Previous): after each kind of edit, the index is the one a cold
// compile writes, byte for byte, and the recompile did copy terms; one
// that adds a skill (other names) copies none, and is still the cold one.
func TestRecompileReusesPostings(t *testing.T) {
	set, err := synth.Generate(synth.Options{Skills: 300, Seed: 9, Queries: 1})
	require.NoError(t, err)
	edit := func(old string) func(string) string {
		return func(s string) string { return strings.Replace(s, old, "", 1) }
	}
	cases := []struct {
		name  string
		edits map[int]func(string) string // by file number: the file's new text
		add   bool                        // a skill added
		reuse bool
	}{
		{name: "a line appended to a body", reuse: true, edits: map[int]func(string) string{
			7: func(s string) string { return s + "\nAlso check the flaky retry logic.\n" }}},
		{name: "a word no skill used", reuse: true, edits: map[int]func(string) string{
			11: func(s string) string { return s + "\nSee zyxwvutsrq first.\n" }}},
		{name: "a line removed", reuse: true, edits: map[int]func(string) string{
			13: func(s string) string {
				from := strings.Index(s, "\n1. ")
				return s[:from] + s[from+1+strings.IndexByte(s[from+1:], '\n'):]
			}}},
		{name: "a keyword added", reuse: true, edits: map[int]func(string) string{
			40: func(s string) string { return strings.Replace(s, "core: [", "core: [\"retry storm guard\", ", 1) }}},
		// Among 300 skills, ten bodies cut to two words move the bodies'
		// average by some 3 %, to another point of the grid: nothing is
		// copied.
		{name: "ten bodies emptied", edits: emptied(3, 10)},
		{name: "two skills edited", reuse: true, edits: map[int]func(string) string{
			5:  func(s string) string { return s + "\nMind the cache warmup.\n" },
			99: edit("## Playbook"),
		}},
		{name: "a skill added", add: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range set.Files {
				writeSkill(t, dir, f.Name, string(f.Data))
			}
			compile := func(cache string) (*index.Index, []byte) { // "": no cache at all
				ix, err := loader.Compile(loader.Config{Catalog: dir, CacheDir: cache})
				require.NoError(t, err)
				path := filepath.Join(t.TempDir(), "index.bin")
				require.NoError(t, ix.Save(path))
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				return ix, data
			}
			cache := t.TempDir()
			compile(cache)
			for k, fn := range c.edits {
				path := filepath.Join(dir, set.Files[k].Name, "SKILL.md")
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				edited := fn(string(data))
				require.NotEqual(t, string(data), edited)
				require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))
			}
			if c.add {
				writeSkill(t, dir, "zz-new-skill", "---\ndescription: Tune the retry storm guard of the queue workers.\n---\n# Retry\n\nCheck the backoff first.\n")
			}
			ix, recompiled := compile(cache)
			_, cold := compile("")
			assert.Equal(t, cold, recompiled, "the recompile writes the cold compile's index")
			if c.reuse {
				assert.Greater(t, ix.Reused(), ix.Terms.Len()/2, "most terms are copied")
			} else {
				assert.Zero(t, ix.Reused())
			}
		})
	}
}

// TestRecompileReadsOnlyChanged protects the recompile of a large
// catalog: a skill file of the size and modification time the last
// compile read is not read again (one rewritten to the same size, its time
// put back, still compiles as it was), unless calibration samples it; an
// edited one is; the index is the one a cold compile of what was read
// writes. A full check (ReadAll) reads every file.
func TestRecompileReadsOnlyChanged(t *testing.T) {
	dir := t.TempDir()
	n := router.PieceBudgetFrom + 50 // past it, calibration reads a sample only
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("topic-%04d", i)
		writeSkill(t, dir, names[i], fmt.Sprintf("---\ndescription: Work on topic %d, its reports and its alerts.\nkeywords:\n  core: [topic%d]\n---\n# Topic %d\n\nCheck the reports for topic %d before changing alerts.\n", i, i, i, i))
	}
	sampled, _ := router.Sample(names) // the names are in catalog order
	var unsampled []int
	for i := range names {
		if !slices.Contains(sampled, i) {
			unsampled = append(unsampled, i)
		}
	}
	require.GreaterOrEqual(t, len(unsampled), 2)
	saved := func(cfg loader.Config) []byte {
		ix, err := loader.Compile(cfg)
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "index.bin")
		require.NoError(t, ix.Save(path))
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		return data
	}
	cached := loader.Config{Catalog: dir, CacheDir: t.TempDir()}
	cold := loader.Config{Catalog: dir}
	saved(cached)

	// A file rewritten to the same size, with its old time: unchanged by
	// every measure the loader takes, and not read.
	swapped := filepath.Join(dir, names[unsampled[0]], "SKILL.md")
	orig, err := os.ReadFile(swapped)
	require.NoError(t, err)
	info, err := os.Stat(swapped)
	require.NoError(t, err)
	other := strings.Replace(string(orig), "before changing", "zorblaxing with", 1)
	require.Len(t, other, len(orig))
	put := func(data string) {
		require.NoError(t, os.WriteFile(swapped, []byte(data), 0o644))
		require.NoError(t, os.Chtimes(swapped, info.ModTime(), info.ModTime()))
	}
	put(other)
	edited := filepath.Join(dir, names[unsampled[1]], "SKILL.md")
	data, err := os.ReadFile(edited)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(edited, append(data, "Also check the flaky retry logic.\n"...), 0o644))

	got := saved(cached)
	put(string(orig))
	assert.Equal(t, saved(cold), got, "the recompile read the edited file, not the other")

	put(other)
	full := cached
	full.ReadAll = true
	got = saved(full)
	assert.Equal(t, saved(cold), got, "a full check reads every file")
	ix, err := index.Load(writeIndex(t, got))
	require.NoError(t, err)
	assert.GreaterOrEqual(t, ix.Terms.Find("zorblax"), 0, "the rewritten file's words are in the index")
}

// writeIndex writes an index file's bytes to a file of its own.
func writeIndex(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.bin")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

// The project table is part of the binary: with one, the binary's
// stamp names the table's cache, and a rebuilt binary (another size or
// time) reads the table afresh into a cache of its own.
func TestProjectFavoursCachedByBinary(t *testing.T) {
	cache, bin := t.TempDir(), filepath.Join(t.TempDir(), "skillroute")
	require.NoError(t, os.WriteFile(bin, []byte("build 1"), 0o755))
	cfg := loader.Config{Catalog: loader.Builtin, CacheDir: cache, Binary: bin}
	projectFiles := func() []string {
		files, err := filepath.Glob(filepath.Join(cache, "projects-*.bin"))
		require.NoError(t, err)
		return files
	}
	first, err := loader.Open(cfg)
	require.NoError(t, err)
	require.Len(t, projectFiles(), 1)
	_, err = loader.Open(cfg)
	require.NoError(t, err)
	require.Len(t, projectFiles(), 1, "the same binary reads its cache")

	require.NoError(t, os.WriteFile(bin, []byte("build 2, longer"), 0o755))
	again, err := loader.Open(cfg)
	require.NoError(t, err)
	assert.Len(t, projectFiles(), 2, "a rebuilt binary keys a cache of its own")
	assert.Equal(t, first.Projects, again.Projects)
}

// TestRulesCacheKeptAcrossEdits protects recompiles: the checked rules
// are cached by the skills' names and the binary, so a skill edited but
// not renamed loads them from the cache; a renamed one checks them again.
func TestRulesCacheKeptAcrossEdits(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	bin, err := os.Executable()
	require.NoError(t, err)
	body := "---\ndescription: Postgres slow queries and indexes.\nkeywords:\n  core: [postgres]\n---\nUse EXPLAIN ANALYZE.\n"
	writeSkill(t, dir, "db-tuning", body)
	writeSkill(t, dir, "frontend-expert", "---\ndescription: React pages and CSS.\n---\nMeasure first.\n")
	cfg := loader.Config{Catalog: dir, CacheDir: cache, Binary: bin}
	rulesFiles := func() []string {
		files, err := filepath.Glob(filepath.Join(cache, "rules-*.bin"))
		require.NoError(t, err)
		return files
	}
	_, err = loader.Open(cfg)
	require.NoError(t, err)
	first := rulesFiles()
	require.Len(t, first, 1)

	writeSkill(t, dir, "db-tuning", body+"\nCheck the index hit rate.\n")
	_, err = loader.Compile(cfg)
	require.NoError(t, err)
	_, err = loader.Open(cfg)
	require.NoError(t, err)
	assert.Equal(t, first, rulesFiles(), "an edited skill keeps the checked rules")

	require.NoError(t, os.Rename(filepath.Join(dir, "db-tuning"), filepath.Join(dir, "postgres-tuning")))
	_, err = loader.Open(cfg)
	require.NoError(t, err)
	assert.Len(t, rulesFiles(), 2, "a renamed skill checks them again")
}

// A rule may name a skill by its title (the header's name where the
// folder names the skill): a recompile after a header's name moved from
// one skill to another, or was dropped, checks the rules again, as a cold
// compile would, instead of boosting by the old title from the rules cache.
func TestRulesCacheFollowsTitles(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "rules.yaml")
	require.NoError(t, os.WriteFile(rules, []byte("rules:\n  - id: zoo\n    trigger: 'zoo'\n    boost: Zebra Helper\n    penalty: [alpha, beta]\n    weight: 0.5\n"), 0o644))
	skill := func(title, desc, core string) string {
		return "---\nname: " + title + "\ndescription: " + desc + "\nkeywords:\n  core: [" + core + "]\n---\n"
	}
	for _, tc := range []struct {
		name        string
		alpha, beta string // the titles after the edit
		want        string // where "zoo trains" routes; "": the rule names no skill, an error
	}{
		{"the title moves to the other skill", "alpha", "Zebra Helper", "beta"},
		{"the title is dropped", "alpha", "beta", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin, err := os.Executable()
			require.NoError(t, err)
			cfg := loader.Config{Catalog: dir, Rules: rules, CacheDir: t.TempDir(), Binary: bin}
			writeSkill(t, dir, "alpha", skill("Zebra Helper", "Feed and groom animals at the zoo", "zoo, animals"))
			writeSkill(t, dir, "beta", skill("beta", "Repair bicycles and zoo trains", "bicycle, zoo, trains"))
			r, err := loader.Open(cfg)
			require.NoError(t, err)
			require.Equal(t, "alpha", r.Route("zoo trains", router.Session{}).Skill, "the rule boosts alpha, titled Zebra Helper")

			writeSkill(t, dir, "alpha", skill(tc.alpha, "Feed and groom animals at the zoo", "zoo, animals"))
			writeSkill(t, dir, "beta", skill(tc.beta, "Repair bicycles and zoo trains", "bicycle, zoo, trains"))
			_, err = loader.Compile(cfg)
			require.NoError(t, err)
			cold := cfg
			cold.CacheDir = t.TempDir()
			for _, c := range []struct {
				name string
				cfg  loader.Config
			}{{"cold", cold}, {"recompiled", cfg}} {
				r, err := loader.Open(c.cfg)
				if tc.want == "" {
					require.Error(t, err, c.name)
					assert.Contains(t, err.Error(), `boost names unknown skill "Zebra Helper"`, c.name)
					continue
				}
				require.NoError(t, err, c.name)
				assert.Equal(t, tc.want, r.Route("zoo trains", router.Session{}).Skill, c.name)
			}
		})
	}
}

// Changed sees a removed or edited skill file whatever its folder is
// called: a "#" in the path (a c#-helper skill, a project in ~/src/C#)
// was taken for a catalog file's "FILE#NAME" and never checked, so the
// hook went on naming a removed skill. Built-in skills and a catalog
// file's entries, which the quick stamp covers, are never reported.
func TestChangedWhateverTheFolderName(t *testing.T) {
	for _, tc := range []struct {
		name   string
		folder string
		edit   func(t *testing.T, path string)
	}{
		{"removed", "c#-helper", func(t *testing.T, path string) { require.NoError(t, os.RemoveAll(filepath.Dir(path))) }},
		{"edited", "c#-helper", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte("---\ndescription: F# scripts\n---\n"), 0o644))
			later := time.Now().Add(time.Minute)
			require.NoError(t, os.Chtimes(path, later, later))
		}},
		{"removed, under a folder with # and spaces", "notes #2", func(t *testing.T, path string) { require.NoError(t, os.RemoveAll(filepath.Dir(path))) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "src", "C#")
			path := writeSkill(t, dir, tc.folder, "---\ndescription: C# code with LINQ\n---\n")
			writeSkill(t, dir, "go-helper", "---\ndescription: Go code with goroutines\n---\n")
			ix, err := loader.Compile(loader.Config{Catalog: dir})
			require.NoError(t, err)
			assert.Empty(t, loader.Changed(ix, tc.folder, "go-helper"))
			tc.edit(t, path)
			assert.Equal(t, []string{tc.folder}, loader.Changed(ix, tc.folder, "go-helper"))
		})
	}

	// Never reported: the built-in skills, and a catalog file's entries.
	ix, err := loader.Compile(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	assert.Empty(t, loader.Changed(ix, "tester-expert"))
	file := filepath.Join(t.TempDir(), "skills-index.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"skills":[{"name":"alpha","description":"zoo animals","keywords":[{"keyword":"zoo","weight":1,"tier":"core"}]},{"name":"beta","description":"bicycles","keywords":[{"keyword":"bicycle","weight":1,"tier":"core"}]}]}`), 0o644))
	ix, err = loader.Compile(loader.Config{Catalog: file})
	require.NoError(t, err)
	assert.Empty(t, loader.Changed(ix, "alpha", "beta"))
}

// A catalog without a skill says where it looked: a --catalog folder
// one level off (a plugin's root, ~/.claude) is told from one that is
// empty only by the folder the error names.
func TestEmptyCatalogNamesWhereItLooked(t *testing.T) {
	home := t.TempDir()
	plugin := t.TempDir()
	writeSkill(t, filepath.Join(plugin, "skills"), "deploy", "---\ndescription: ship it\n---\n")
	for _, tc := range []struct {
		name string
		cfg  loader.Config
		says []string
	}{
		{"a plugin's root given for its skills folder", loader.Config{Catalog: plugin}, []string{plugin, "DIR/NAME/SKILL.md"}},
		{"no skills installed", loader.Config{Catalog: loader.Installed, Places: skills.Places{Home: home}},
			[]string{filepath.Join(home, ".claude", "skills")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loader.Compile(tc.cfg)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "no skills")
			for _, s := range tc.says {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

// TestCheckFilesSeesEditsInPlace: a skill file edited in place changes
// no folder's time, so the quick stamp still names the cached index. With
// CheckFiles (the commands a person runs) the edit is compiled at once;
// without it (the hook) the cached index answers until the skill is
// about to be named or the session starts (Changed, Fresh).
func TestCheckFilesSeesEditsInPlace(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	path := writeSkill(t, dir, "db-tuning", "---\ndescription: Postgres slow queries.\n---\nUse EXPLAIN.\n")
	writeSkill(t, dir, "frontend", "---\ndescription: React pages.\n---\nMeasure first.\n")
	cfg := loader.Config{Catalog: dir, CacheDir: cache}
	ix, err := loader.OpenIndex(cfg)
	require.NoError(t, err)
	require.Equal(t, "Postgres slow queries.", ix.Skills.Description(ix.SkillID("db-tuning")))

	dirInfo, err := os.Stat(filepath.Join(dir, "db-tuning"))
	require.NoError(t, err)
	later := time.Now().Add(2 * time.Second)
	require.NoError(t, os.WriteFile(path, []byte("---\ndescription: MySQL replication lag.\n---\nCheck the binlog.\n"), 0o644))
	require.NoError(t, os.Chtimes(path, later, later))
	require.NoError(t, os.Chtimes(filepath.Join(dir, "db-tuning"), dirInfo.ModTime(), dirInfo.ModTime())) // as an editor writing in place leaves it

	ix, err = loader.OpenIndex(cfg)
	require.NoError(t, err)
	assert.Equal(t, "Postgres slow queries.", ix.Skills.Description(ix.SkillID("db-tuning")), "without CheckFiles: the cached index")
	cfg.CheckFiles = true
	ix, err = loader.OpenIndex(cfg)
	require.NoError(t, err)
	assert.Equal(t, "MySQL replication lag.", ix.Skills.Description(ix.SkillID("db-tuning")), "with CheckFiles: the edit")
}

// TestBuiltinKeywordsMeetPrompts: every keyword of a built-in skill is one
// a prompt can be read as. One that never is meets prompts only through a
// word inside it, as a discounted partial match ("sign" in "sign in
// with"), which is not what its author wrote it for. A phrase of over
// three words, one that opens or closes on a stop word ("how to", "goes
// down"), or a path the noise stage reads as pasted material never is.
func TestBuiltinKeywordsMeetPrompts(t *testing.T) {
	cat, err := skills.Builtin()
	require.NoError(t, err)
	ix, err := loader.OpenIndex(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	tok := ix.Tokenizer()
	for i := range cat.Skills {
		s := &cat.Skills[i]
		s.ReadKeywords()
		for _, k := range s.Keywords {
			want := tokenize.ReadAs(k.Text)
			read := slices.ContainsFunc(tok.Tokenize(k.Text).Terms, func(t tokenize.Term) bool { return t.Text == want && t.From == "" })
			assert.True(t, read, "%s: keyword %q is never read from a prompt", s.Name, k.Text)
		}
	}
}
