package loader_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/skills"
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

	// An edited skill changes the stamp: the cache no longer matches.
	require.NoError(t, os.WriteFile(path, []byte("---\ndescription: roll out the acme platform to every region\n---\n"), 0o644))
	later := time.Now().Add(time.Second)
	require.NoError(t, os.Chtimes(path, later, later))
	assert.False(t, loader.Cached(cfg))

	// Without the project, its skills are not there.
	cfg.Places.ProjectDir = ""
	r, err = loader.Open(cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"invoice-helper"}, r.Index.SkillNames())
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
	write("security-expert", "---\nname: skillroute:security-expert\ndescription: application security, pentests, XSS, SQL injection\n---\n")
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
	require.Len(t, files, 2, "an index and a rules cache")
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

	stamps := map[string]bool{}
	for _, g := range []string{"", loader.NoGlossary, own} {
		s, err := loader.Stamp(loader.Config{Catalog: dir, Glossary: g})
		require.NoError(t, err)
		stamps[s] = true
	}
	assert.Len(t, stamps, 3)
	_, err := loader.Open(loader.Config{Catalog: dir, Glossary: filepath.Join(dir, "missing.yaml")})
	assert.ErrorContains(t, err, "glossary")
}
