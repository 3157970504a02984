// Package synth writes synthetic skill catalogs and labelled prompts, so
// that routing and compiling can be measured at 1,000, 10,000 or 100,000
// skills when the real catalogs at hand hold fifty.
//
// A synthetic catalog is built from the built-in skills' own material, so
// that its text has the shape the tokenizer and the index meet in real
// use:
//
//   - Each skill belongs to a theme, one of the built-in skills, chosen
//     with a Zipf-like spread (a few themes, like "frontend", hold many
//     skills, as public registries do). Most of its keywords come from
//     the theme's tiers, the rest from the whole built-in vocabulary,
//     ranked so that generic words (the built-ins' extended keywords)
//     are the frequent ones and drawn with a Zipf-like spread: the
//     commonest words reach half the catalog or more, most words a few
//     skills.
//   - Each skill also has what real skills have and themes cannot give: a
//     name and two keywords of its own, an English one made of the name's
//     two words ("kafka lighthouse") and a Chinese one joining two Chinese
//     keywords ("缓存首屏"), both core. They are the skill's alone as a
//     router matches them (stemmed: "naming users" is taken once "naming
//     user" is), and made of content words: no stop word ("readability
//     where") and no conversational word ("看看前端"). Catalogs written
//     before that held such names: at 100,000 skills 4 of the 20 prompts
//     top-1 missed named a skill whose name another's stems alike
//     ("review cpu", "reviewing cpu"), and 5 opened "帮我看看" before a
//     compound a "看看…" name crossed.
//   - Tier sizes follow a built-in skill's (about 25 core, 45 strong, 24
//     extended), and bodies of 1–3 KB are made of lines of the built-in
//     playbooks, mostly the theme's.
//
// The labelled prompts name a skill the way users name a tool: by one of
// its own keywords, in a Chinese or English sentence with one or two of its
// other keywords; a share of them are small talk labelled "none". They are
// the eval format ({"query","expected"} lines), so
//
//	skillroute bench gen --skills 10000 --seed 1 -o /tmp/c10k
//	skillroute eval --catalog /tmp/c10k /tmp/c10k/queries.jsonl
//
// measures accuracy at that size.
//
// Output is a function of the options and of the built-in skills only: the
// same seed gives the same bytes (TestDeterministic). The random source is
// PCG, whose output the standard library specifies, read through this
// package's own reductions, so a Go release cannot change a catalog.
package synth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// DefaultQueries is how many labelled prompts a catalog gets when the
// options do not say: enough that one miss moves top-1 by a third of a
// point, few enough to route in a second at 100,000 skills.
const DefaultQueries = 300

// Body sizes, in bytes: the built-in playbooks' bodies range over about
// the same (1.5–3 KB).
const (
	MinBody = 1024
	MaxBody = 3072
)

// Zipf exponents. themeSkew spreads skills over the 50 themes so that the
// first holds about 10 % of the catalog and the last about 0.6 %;
// wordSkew is the classic exponent of word frequencies in text.
const (
	themeSkew = 0.8
	wordSkew  = 1.0
)

// Shares of a tier drawn from the whole vocabulary rather than the theme
// (the rest come from the theme's own tier). Extended keywords are the
// generic ones, so half of them are; core keywords stay mostly the theme's.
const (
	globalCore     = 0.15
	globalStrong   = 0.25
	globalExtended = 0.5
)

// NoneShare is the share of prompts that are small talk, labelled "none".
const NoneShare = 0.08

// enhancesShare is the share of skills that name skills they enhance.
const enhancesShare = 0.3

// Options say what to generate.
type Options struct {
	Skills  int    // how many skills (at least 1)
	Seed    uint64 // the same seed gives the same catalog
	Queries int    // labelled prompts; 0 means DefaultQueries
}

// File is one generated skill file.
type File struct {
	Name string // the skill's name, also its folder
	Data []byte // the SKILL.md
}

// Query is one labelled prompt, an eval case.
type Query struct {
	Query    string `json:"query"`
	Expected string `json:"expected"` // a skill name, or "none"
}

// Set is a generated catalog with its prompts.
type Set struct {
	Files   []File
	Queries []Query
}

// MaxSkills and MaxQueries bound what Generate makes, in memory: ten times
// the largest catalog measured (BENCHMARKS.md, 100,000 skills). A count of
// a hundred million ran out of memory.
const (
	MaxSkills  = 1_000_000
	MaxQueries = 1_000_000
)

// Generate builds a catalog and its prompts in memory.
func Generate(opt Options) (*Set, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	if opt.Queries == 0 {
		opt.Queries = DefaultQueries
	}
	v, err := loadVocabulary()
	if err != nil {
		return nil, err
	}
	g := &generator{v: v, rng: rand.NewPCG(opt.Seed, 0x736b696c6c726f75), usedNames: map[string]bool{}, usedKeys: map[string]bool{}}
	// Which themes are popular and which words common is the seed's
	// choice, so that neither follows the built-ins' alphabetical order.
	// Generic words come first: the built-ins' extended keywords are the
	// words several skills share, their core keywords the ones that name
	// a skill.
	g.themes = g.shuffledInts(len(v.themes))
	for _, tier := range []skills.Tier{skills.Extended, skills.Strong, skills.Core} {
		g.words = append(g.words, g.shuffled(v.byTier[tier])...)
	}
	for _, n := range v.builtinNames {
		g.usedNames[n] = true // never shadow a built-in skill
	}
	set := &Set{Files: make([]File, 0, opt.Skills)}
	gen := make([]generated, 0, opt.Skills)
	byTheme := make([][]string, len(v.themes))
	for i := 0; i < opt.Skills; i++ {
		s := g.skill(i, byTheme)
		byTheme[s.theme] = append(byTheme[s.theme], s.name)
		set.Files = append(set.Files, File{Name: s.name, Data: s.render()})
		gen = append(gen, s.forQueries())
	}
	for i := 0; i < opt.Queries; i++ {
		set.Queries = append(set.Queries, g.query(gen))
	}
	return set, nil
}

// check refuses counts Generate cannot make.
func (opt Options) check() error {
	switch {
	case opt.Skills < 1:
		return fmt.Errorf("synth: %d skills requested, need at least 1", opt.Skills)
	case opt.Skills > MaxSkills:
		return fmt.Errorf("synth: %d skills requested, at most %d", opt.Skills, MaxSkills)
	case opt.Queries < 0:
		return fmt.Errorf("synth: %d queries requested", opt.Queries)
	case opt.Queries > MaxQueries:
		return fmt.Errorf("synth: %d queries requested, at most %d", opt.Queries, MaxQueries)
	}
	return nil
}

// BenchCatalog is the catalog folder benchmarks run on: the one named by
// $SKILLROUTE_BENCH_CATALOG (written by `skillroute bench gen`), else n
// generated skills (seed 1) written into dir.
func BenchCatalog(dir string, n int) (string, error) {
	if env := os.Getenv("SKILLROUTE_BENCH_CATALOG"); env != "" {
		return env, nil
	}
	_, err := Write(dir, Options{Skills: n, Seed: 1})
	return dir, err
}

// Write generates a catalog into dir as dir/NAME/SKILL.md files and
// dir/queries.jsonl. dir must not exist or be empty: nothing is ever
// overwritten.
func Write(dir string, opt Options) (*Set, error) {
	// The folder first: generating takes seconds to minutes at scale.
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("%s: not empty; choose a new folder", dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	set, err := Generate(opt)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	for _, f := range set.Files {
		sub := filepath.Join(dir, f.Name)
		if err := os.Mkdir(sub, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(sub, "SKILL.md"), f.Data, 0o644); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, q := range set.Queries {
		if err := enc.Encode(q); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "queries.jsonl"), buf.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return set, nil
}

// theme is one built-in skill's material.
type theme struct {
	tiers       [3][]string // core, strong, extended keywords as written
	en          []string    // single plain English words among its keywords
	zh          []string    // all-Chinese keywords
	description string
	lines       []string // list items of its body, numbering removed
}

// vocabulary is everything generation draws from.
type vocabulary struct {
	themes       []theme
	themeCum     []float64   // Zipf over theme ranks
	byTier       [3][]string // every keyword, by its tier in the built-ins
	wordCum      []float64   // Zipf over word ranks
	en, zh       []string    // every plain English word, every Chinese keyword
	lines        []string    // every body line
	counts       [][3]int    // the built-ins' tier sizes
	builtinNames []string
}

func loadVocabulary() (*vocabulary, error) {
	cat, err := skills.Builtin()
	if err != nil {
		return nil, err
	}
	v := &vocabulary{}
	seen := map[string]bool{}
	var byTier [3][]string
	seenEn, seenZh := map[string]bool{}, map[string]bool{}
	for _, s := range cat.Skills {
		v.builtinNames = append(v.builtinNames, s.Name)
		var t theme
		var c [3]int
		for _, k := range s.Keywords {
			text := strings.TrimSpace(k.Text)
			t.tiers[k.Tier] = append(t.tiers[k.Tier], text)
			c[k.Tier]++
			low := strings.ToLower(text)
			if !seen[low] {
				seen[low] = true
				byTier[k.Tier] = append(byTier[k.Tier], text)
			}
			// Name parts are content words, as registries' names are: a
			// stop word ("where") is no word a router may match on, and
			// a conversational word ("看看", "问题") names nothing and
			// runs into the prompt's own ("帮我看看" + "看看前端").
			switch {
			case plainWord(low) && !tokenize.IsStopWord(low):
				t.en = append(t.en, low)
				if !seenEn[low] {
					seenEn[low] = true
					v.en = append(v.en, low)
				}
			case allHan(low) && !tokenize.IsFiller(low):
				t.zh = append(t.zh, low)
				if !seenZh[low] {
					seenZh[low] = true
					v.zh = append(v.zh, low)
				}
			}
		}
		t.description = firstSentences(s.Description, 240)
		t.lines = listItems(s.Body)
		v.lines = append(v.lines, t.lines...)
		if len(t.en) == 0 || len(t.zh) == 0 || len(t.lines) == 0 {
			continue // a theme must give names, Chinese words and a body
		}
		v.themes = append(v.themes, t)
		v.counts = append(v.counts, c)
	}
	if len(v.themes) == 0 {
		return nil, errors.New("synth: the built-in skills give no vocabulary")
	}
	v.byTier = byTier
	v.themeCum = zipf(len(v.themes), themeSkew)
	v.wordCum = zipf(len(byTier[0])+len(byTier[1])+len(byTier[2]), wordSkew)
	return v, nil
}

// zipf returns the cumulative weights of ranks 1..n with weight 1/rank^s,
// normalised to end at 1.
func zipf(n int, s float64) []float64 {
	cum := make([]float64, n)
	total := 0.0
	for i := range cum {
		total += 1 / math.Pow(float64(i+1), s)
		cum[i] = total
	}
	for i := range cum {
		cum[i] /= total
	}
	return cum
}

// generator holds the random source and what has been used.
type generator struct {
	v         *vocabulary
	rng       *rand.PCG
	usedNames map[string]bool
	usedKeys  map[string]bool // the skills' own keywords, as the index matches them (tokenize.Normalize)
	themes    []int           // theme numbers by popularity rank
	words     []string        // vocabulary by frequency rank
}

func (g *generator) intn(n int) int { return int(g.rng.Uint64() % uint64(n)) }

func (g *generator) float() float64 { return float64(g.rng.Uint64()>>11) / (1 << 53) }

func (g *generator) pick(list []string) string { return list[g.intn(len(list))] }

// rank draws a rank from cumulative weights.
func (g *generator) rank(cum []float64) int {
	u := g.float()
	i := sort.SearchFloat64s(cum, u)
	return min(i, len(cum)-1)
}

// generated is one skill being made.
type generated struct {
	name     string
	theme    int
	en, zh   string      // the skill's own keywords
	tiers    [3][]string // all its keywords by tier
	desc     string
	when     string
	body     string
	enhances []string
	maturity string
}

// suffixes end skill names as registries' names end.
var suffixes = []string{"expert", "helper", "kit", "guide", "toolkit", "playbook", "assistant", "pro", "advisor", "tuner", "doctor", "workflow"}

var maturities = []string{"stable", "stable", "stable", "beta", "experimental"}

func (g *generator) skill(i int, byTheme [][]string) generated {
	v := g.v
	ti := g.themes[g.rank(v.themeCum)]
	th := &v.themes[ti]
	s := generated{theme: ti, maturity: maturities[g.intn(len(maturities))]}

	// A name of two words, its first from the theme: the pair is also
	// the skill's English keyword, so it must be new.
	var w1, w2 string
	for try := 0; ; try++ {
		w1, w2 = g.pick(mostlyTheme(try, th.en, v.en)), g.pick(v.en)
		if w1 != w2 && !g.usedKeys[tokenize.Normalize(w1+" "+w2)] || try > maxTries {
			break
		}
	}
	s.en = w1 + " " + w2
	name := w1 + "-" + w2 + "-" + g.pick(suffixes)
	for n := 2; g.usedNames[name]; n++ {
		name = fmt.Sprintf("%s-%s-%s-%d", w1, w2, suffixes[i%len(suffixes)], n)
	}
	s.name = name
	g.usedNames[name] = true
	for try := 0; ; try++ {
		z1, z2 := g.pick(mostlyTheme(try, th.zh, v.zh)), g.pick(v.zh)
		s.zh = z1 + z2
		if z1 != z2 && utf8.RuneCountInString(s.zh) <= 10 && !g.usedKeys[s.zh] || try > maxTries {
			break
		}
	}
	g.usedKeys[tokenize.Normalize(s.en)], g.usedKeys[s.zh] = true, true

	// Tier sizes of a built-in skill, scaled by 0.7–1.0.
	c := v.counts[g.intn(len(v.counts))]
	scale := 0.7 + 0.3*g.float()
	have := map[string]bool{}
	add := func(tier int, kw string) {
		low := strings.ToLower(kw)
		if !have[low] {
			have[low] = true
			s.tiers[tier] = append(s.tiers[tier], kw)
		}
	}
	add(0, s.en)
	add(0, s.zh)
	for tier, global := range [3]float64{globalCore, globalStrong, globalExtended} {
		want := max(3, int(math.Round(float64(c[tier])*scale)))
		own := g.shuffled(th.tiers[tier])
		for tries := 0; len(s.tiers[tier]) < want && tries < 4*want; tries++ {
			if g.float() < global || len(own) == 0 {
				add(tier, g.words[g.rank(v.wordCum)])
				continue
			}
			add(tier, own[0])
			own = own[1:]
		}
	}

	s.desc = fmt.Sprintf("%s (%s): %s", title(s.en), s.zh, th.description)
	s.when = g.triggers(&s)
	s.body = g.body(&s, th)
	if mates := byTheme[ti]; len(mates) > 0 && g.float() < enhancesShare {
		s.enhances = append(s.enhances, mates[g.intn(len(mates))])
		if m := mates[g.intn(len(mates))]; len(mates) > 1 && m != s.enhances[0] {
			s.enhances = append(s.enhances, m)
		}
	}
	return s
}

// themeTries and maxTries bound the draws of a skill's own keyword: the
// first word comes from the theme for themeTries draws, then from the
// whole vocabulary, whose pairs a catalog of 100,000 skills does not use
// up, as a popular theme's can (10 % of the catalog on a few dozen
// words: "improve dashboard" drawn again as "improve dashboards").
const (
	themeTries = 50
	maxTries   = 5000
)

// mostlyTheme is where a name's first word is drawn from on the given try.
func mostlyTheme(try int, theme, all []string) []string {
	if try < themeTries {
		return theme
	}
	return all
}

// shuffled returns a shuffled copy of list.
func (g *generator) shuffled(list []string) []string {
	out := append([]string(nil), list...)
	for i := len(out) - 1; i > 0; i-- {
		j := g.intn(i + 1)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// shuffledInts returns a permutation of 0..n-1.
func (g *generator) shuffledInts(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := g.intn(i + 1)
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// triggers writes a when_to_use line: quoted phrases, as the built-ins
// write them.
func (g *generator) triggers(s *generated) string {
	phrases := []string{
		fmt.Sprintf("%q", s.zh+"怎么配置"),
		fmt.Sprintf("%q", "set up "+s.en),
		fmt.Sprintf("%q", g.pick(s.tiers[1])+" 出问题了"),
		fmt.Sprintf("%q", "fix "+g.pick(s.tiers[1])),
	}
	return strings.Join(phrases, ", ") + "."
}

// body writes a playbook of MinBody to MaxBody bytes from the built-ins'
// list items, two thirds of them from the theme.
func (g *generator) body(s *generated, th *theme) string {
	target := MinBody + g.intn(MaxBody-MinBody+1)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n## When this applies\n- Work on %s and %s: %s, %s.\n", title(strings.ReplaceAll(s.name, "-", " ")),
		s.en, s.zh, g.pick(s.tiers[1]), g.pick(s.tiers[2]))
	// The playbook starts at 30 % of the body, the closing list at 80 %.
	sections := []string{"\n## Playbook\n", "\n## Good output\n"}
	at := []int{target * 3 / 10, target * 8 / 10}
	step := 0
	used := map[string]bool{}
	for tries := 0; b.Len() < target && tries < 200; tries++ {
		line := g.pick(g.v.lines)
		if g.float() < 2.0/3 {
			line = g.pick(th.lines)
		}
		if used[line] {
			continue
		}
		used[line] = true
		if len(sections) > 0 && b.Len() > at[0] {
			b.WriteString(sections[0])
			sections, at, step = sections[1:], at[1:], 0
		}
		step++
		item := "- " + line + "\n"
		if len(sections) == 1 { // the playbook is numbered
			item = fmt.Sprintf("%d. %s\n", step, line)
		}
		if b.Len()+len(item) > MaxBody {
			continue // a shorter line may still fit
		}
		b.WriteString(item)
	}
	return b.String()
}

// render writes the SKILL.md.
func (s *generated) render() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\nwhen_to_use: %s\nkeywords:\n", s.name, quote(s.desc), quote(s.when))
	for t, label := range []string{"core", "strong", "extended"} {
		fmt.Fprintf(&b, "  %s: [%s]\n", label, quoteList(s.tiers[t]))
	}
	if len(s.enhances) > 0 {
		fmt.Fprintf(&b, "enhances: [%s]\n", strings.Join(s.enhances, ", "))
	}
	fmt.Fprintf(&b, "maturity: %s\n---\n%s", s.maturity, s.body)
	return b.Bytes()
}

// forQueries keeps what prompts need and drops the rest.
func (s generated) forQueries() generated {
	return generated{name: s.name, en: s.en, zh: s.zh, tiers: s.tiers}
}

// Prompt templates: {a} is the skill's own keyword in the sentence's
// language, {b} and {c} two of its other keywords.
var (
	zhTemplates = []string{
		"{a}一直报错，{b}也不对，怎么排查",
		"帮我看看{a}，顺便处理一下{b}",
		"{a} 的 {b} 怎么配置？",
		"我们在用{a}，{b}出问题了",
		"{b} 和 {a} 要怎么一起用",
		"用{a}做{b}，{c}要注意什么",
	}
	enTemplates = []string{
		"how do I set up {a} with {b}?",
		"{a} keeps failing after {b}, can you help",
		"review our {a} config, especially {b}",
		"what's the best way to handle {b} in {a}",
		"{a}: {b} and {c} need fixing",
		"帮我 review 一下 {a} 的 {b}",
	}
	// Small talk: no skill applies.
	noneQueries = []string{
		"你好", "谢谢，没有别的了", "今天天气怎么样", "讲个笑话吧", "晚安", "好的，明白了",
		"hello there", "thanks, that's all", "what's the weather like today", "good morning", "tell me a joke", "ok got it",
	}
)

func (g *generator) query(list []generated) Query {
	if g.float() < NoneShare {
		return Query{Query: g.pick(noneQueries), Expected: "none"}
	}
	s := &list[g.intn(len(list))]
	templates, own := enTemplates, s.en
	if g.intn(2) == 0 {
		templates, own = zhTemplates, s.zh
	}
	others := append(append([]string(nil), s.tiers[1]...), s.tiers[2]...)
	b, c := g.pick(others), g.pick(others)
	for tries := 0; c == b && tries < 5; tries++ {
		c = g.pick(others)
	}
	q := strings.NewReplacer("{a}", own, "{b}", b, "{c}", c).Replace(g.pick(templates))
	return Query{Query: q, Expected: s.name}
}

// quote writes a YAML double-quoted scalar (JSON's string syntax is one).
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

func quoteList(list []string) string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = quote(s)
	}
	return strings.Join(out, ", ")
}

// plainWord reports whether w is one lower-case ASCII word of 3–12
// letters: fit for a skill name.
func plainWord(w string) bool {
	if len(w) < 3 || len(w) > 12 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

func allHan(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !unicode.Is(unicode.Han, r) {
			return false
		}
	}
	return true
}

// listItems returns the texts of a Markdown body's list items, a wrapped
// item's lines joined.
func listItems(body string) []string {
	var out []string
	open := false // the last line was part of an item
	for _, line := range strings.Split(body, "\n") {
		trimmed := strings.TrimSpace(line)
		item := ""
		switch {
		case strings.HasPrefix(trimmed, "- "):
			item = trimmed[2:]
		case len(trimmed) > 3 && trimmed[0] >= '0' && trimmed[0] <= '9':
			if i := strings.Index(trimmed, ". "); i > 0 && i < 4 {
				item = trimmed[i+2:]
			}
		}
		switch {
		case item != "":
			out = append(out, strings.TrimSpace(item))
			open = true
		case open && trimmed != "" && line != trimmed: // an indented continuation
			out[len(out)-1] += " " + trimmed
		default:
			open = false
		}
	}
	return out
}

// firstSentences cuts text to whole sentences within limit bytes (at least
// the first sentence).
func firstSentences(text string, limit int) string {
	text = strings.Join(strings.Fields(text), " ")
	end := 0
	for i := 0; i < len(text); i++ {
		if text[i] == '.' && (i+1 == len(text) || text[i+1] == ' ') {
			if end > 0 && i+1 > limit {
				break
			}
			end = i + 1
		}
	}
	if end == 0 {
		end = len(text)
	}
	return text[:end]
}

// title capitalises the first letter.
func title(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
