// Package index compiles a skill catalog into the structure BM25 walks.
//
// Each skill is a small document with five fields. Its curated keywords
// come in three tiers (core 1.0, strong 0.7, extended 0.4, or the weights a
// bookworm index gives); its description, when_to_use and triggers text, and its
// SKILL.md body, are weaker fields. Paraphrased prompts rarely contain a
// curated keyword, so the text fields catch the words people use to
// describe a problem; they are weighted low so that a curated keyword
// always decides when one is present (BM25F: field weights scale a term's
// frequency before saturation).
//
// At compile time every keyword's tier weight is multiplied by its smoothed
// IDF, ln((N+1)/(df+1)) + 1, into the posting's weight. BM25 then uses that
// weight as its term frequency and applies no IDF of its own: the seed's P0
// bug was applying it twice. Text-field terms get fieldWeight × (1 + ln tf)
// × their own IDF over the text fields (TextIDF, near zero for a word most
// skills' texts use), divided by the field's length normalisation
// (TextFieldB), so that a long playbook full of common words does not
// outvote a short skill that is about the prompt.
//
// A bilingual glossary (Options.Glossary, rules/glossary.yaml by default)
// is compiled in as weaker evidence than a direct match: only the
// translations that reach a term of this index are kept (1,833 words for
// the built-in catalog; tokenize.CompileGlossary), and the
// tokenizer adds them to a query at tokenize.GlossaryWeight, so that a
// Chinese prompt meets the keywords and body words of a skill written in
// English, and back.
//
// The index is flat: a sorted term table, postings in three parallel
// arrays, each term's cut into impact segments that carry the best score
// they can give and each posting's own score as a byte's share of it
// (bounds.go, for bm25.TopK), a trigram table over keyword terms for
// partial matching, the Chinese segmentation dictionary, the synonyms and
// the glossary, and the skills by column (skillfile.go). Lookups are
// binary searches, so loading builds nothing: the file is mapped into
// memory and its arrays used in place (file.go, BenchmarkLoad). That
// layout is meant to hold catalogs of 100,000 skills (BENCHMARKS.md).
package index

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/skillroute/skillroute/internal/table"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// Field says where in a skill a term was found.
type Field uint8

// Fields of a skill document. The keyword fields equal skills.Tier values.
const (
	FieldCore Field = iota
	FieldStrong
	FieldExtended
	FieldDescription // description, when_to_use and triggers
	FieldBody
)

// String names the field in explanations.
func (f Field) String() string {
	return [...]string{"core", "strong", "extended", "description", "body"}[f]
}

// IsKeyword reports whether the field is a curated keyword tier.
func (f Field) IsKeyword() bool { return f <= FieldExtended }

// Text-field weights. A description word should count for about as much as
// an extended keyword; a body word for less, since a 30-line playbook holds
// many words that are not what the skill is for. Tuned on dev.jsonl with
// `skillroute eval`: see the README's figures.
const (
	DescriptionWeight = 0.35
	BodyWeight        = 0.15
)

// TextFieldB is the length normalisation of each text field, BM25's
// classic b: a word of a body twice the catalog's average length counts
// 0.57 of the same word in an average one. Cross-validated over the dev
// sets (5-fold by query hash) among 0, 0.25, 0.5, 0.75 and 1: three folds
// chose 0.75, two 0.5.
const TextFieldB = 0.75

// lengthOfTextTerm is how much one distinct text-field term adds to a
// skill's document length, against 1 for a keyword: long bodies should not
// push a skill's keyword matches down much.
const lengthOfTextTerm = 0.1

// maxTermGrams bounds the trigrams of one query term that partial matching
// looks up: the rarest of the first few filters as well as any.
const maxTermGrams = 24

// MinPartial is the shortest query term (in characters) that may match
// inside a longer keyword. Shorter ones ("ui", "上线" inside "上线流程")
// match too much by accident.
const MinPartial = 3

// FormatVersion changes whenever the encoded layout changes, so that an
// index written by another version is rebuilt, never misread.
//
// Changes: 3, the first layout (gob); 4, flat string tables and raw arrays;
// 5, the rules filter's literal groups beside the index; 6, the header
// without gob, in the store's checksummed frame; 7, the glossary section;
// 8, the calibration section; 9, impact segments with score bounds
// (bounds.go), the skills by column (skillfile.go) and each term's text
// document frequency (TextDF); 10, the same layout, with each term's
// segments cut where they waste least bound (bounds.go, cutScores), not
// at fixed shares: an index of 9 prunes less, and is compiled again; 11,
// each posting's own exact and partial score as a level of its segment's
// bounds (PostExact, PostPartial), which bm25.TopK sums in place of the
// segment bounds, the skill table's flags (names sorted, a plugin's
// namespace in some name) in one number, and the source hash made of
// each skill's name and ContentSum (SourceHash), which a recompile has
// without reading the skills it did not change: what is keyed by the
// hash of an index of 10 (the calibration table, the prompt memory's
// weights) is built again once, as after any edit, and the skills'
// names hashed apart (NamesHash), which keys the rules cache; 12, the
// skills' titles (a header's name where the folder names the skill), a
// column of the skill table, with a flag, so that Resolve knows a skill
// by either name; 13, a table of contents: every number after the
// header (each array's length, the flags, the calibration's counts) lies
// in a table at the file's end, whose offset follows the header, so that
// loading reads the header's page and the table's, not a page of each
// array (file.go), and the synonym groups' ids a string table; 14, each
// skill's paths globs, a column of the skill table with a flag, so that
// the router knows the skills Claude Code loads only for some files; 15,
// the same layout, with exact bounds that count a core or strong
// keyword's TierBoost: an index of 14 bounds them too low, and is
// compiled again.
const FormatVersion = 15

// SkillInfo is what the router needs to know about a skill at route
// time: one skill of a SkillTable.
type SkillInfo struct {
	Name        string
	Description string
	Source      string
	Title       string // the header's name, where the folder's name is the skill's (skills.Skill.Title)
	Enhances    []string
	Conflicts   []string
	Paths       []string // globs Claude Code loads the skill for (skills.Skill.Paths); nil for most
	Keywords    int      // keyword count
	Derived     bool     // keywords derived from the text, not written
	Length      float64  // BM25 document length
}

// Index is a compiled catalog.
type Index struct {
	Format     int
	SourceHash string // sha256 of the catalog and synonyms it was built from
	// NamesHash is the sha256 of the skills' names and titles, in order:
	// what a check of rules against the catalog depends on (the loader's
	// rules cache is keyed by it, so that an edit that renames nothing
	// keeps the checked rules, and no hook reads every name to tell).
	NamesHash string
	// Built is when the sources of the index were read (the loader sets
	// it: the cache file's modification time); not stored in the file.
	Built     time.Time
	Stamp     string // the loader's cheap fingerprint of the same sources
	Skills    SkillTable
	AvgLength float64

	Terms      table.Strings // sorted
	Starts     []uint32      // postings of term i are [Starts[i], Starts[i+1]), a run per skill
	PostSkill  []uint32
	PostWeight []float32 // tf-idf weight, IDF included
	PostField  []uint8   // Field

	// TextDF is, per term, how many skills have it in a text field
	// (description or body).
	TextDF []uint32

	// Impact segments (see Segment): term i's are [TermSegs[i],
	// TermSegs[i+1]); segment j's postings are [SegStart[j], SegStart[j+1])
	// and its bounds ExactBound[j] and PartialBound[j].
	TermSegs     []uint32
	SegStart     []uint32
	ExactBound   []float32
	PartialBound []float32

	// PostExact and PostPartial are, per posting that starts a skill's
	// run of a term, the score those postings give as an exact and as a
	// partial match, as Segment's bounds are (query weight 1, nothing
	// learned), in ImpactLevels of the segment's bound, rounded up; 0 on
	// the run's other postings, and where a partial match counts nothing.
	// A walk over a term's postings thus meets each skill once.
	PostExact   []uint8
	PostPartial []uint8

	Grams      table.Strings // sorted trigrams of keyword terms
	GramStarts []uint32
	GramTerms  []uint32 // term ids

	Dict     table.Strings      // Han words for segmentation
	Synonyms *tokenize.Synonyms // may be nil
	Glossary *tokenize.Glossary // translations that reach this index's terms; may be nil

	// Calibration says what scores mean on this catalog; empty until the
	// router measures it (router.Calibrate) after Compile.
	Calibration Calibration

	tokOnce sync.Once
	tok     *tokenize.Tokenizer

	pluginOnce sync.Once
	plugins    map[string]int // namespaced skills by bare name (pluginSkills)
	titleOnce  sync.Once
	titles     map[string]int // skills by lower-cased title (titleSkills)
	toolOnce   sync.Once
	tools      map[string]int // versioned skills by the tool's name, in a table out of order (versioned)

	lookups   atomic.Int64                     // TermID calls so far
	termMap   atomic.Pointer[map[string]int32] // built once a process routes many prompts
	buildOnce sync.Once

	gramMap  atomic.Pointer[map[string]int32] // as termMap, for Grams, built after it
	gramOnce sync.Once

	// What the next compile needs to reuse this one's postings (SaveSums),
	// set by a compile with a cut cache: each skill's ContentSum and what
	// cutting depended on (compileContext).
	sums    []skills.Sum
	context string
	reused  int // terms this compile copied from the last (Reused)
}

// Posting is one (term, skill, field) entry.
type Posting struct {
	Skill  int
	Field  Field
	Weight float64 // tf-idf weight
}

// TermIDF returns the IDF that term id carries in keyword fields (keyword
// true) or in text fields: the factor that Compile multiplied in. The text
// one is read off TextDF: a partial match reads it for every prompt word
// (bm25's rarity), and counting a common word's postings grew with the
// catalog.
func (ix *Index) TermIDF(id int, keyword bool) float64 {
	if !keyword && len(ix.TextDF) == ix.Terms.Len() {
		return TextIDF(ix.Skills.Len(), int(ix.TextDF[id]))
	}
	df, last := 0, -1
	ix.Postings(id, func(p Posting) {
		if p.Field.IsKeyword() == keyword && p.Skill != last {
			df, last = df+1, p.Skill
		}
	})
	if !keyword {
		return TextIDF(ix.Skills.Len(), df)
	}
	return IDF(ix.Skills.Len(), df)
}

// Options control compilation.
type Options struct {
	// DeriveKeywords ignores written keyword tiers and derives them from
	// name, description and body, as for plain Claude Code skills.
	DeriveKeywords bool
	// Glossary, when set, is compiled in: the translations whose target
	// is a term of this index (tokenize.CompileGlossary).
	Glossary *tokenize.GlossaryFile
	// Release lets Compile empty each skill of the catalog once it is
	// compiled, keeping only what the index refers to (name, description,
	// source, title, enhances, conflicts), so that a large catalog is not held
	// whole next to its postings: at 100,000 skills the catalog is half a
	// gigabyte. The caller must not use the catalog's skills afterwards,
	// but those Keep (may be nil) reports, which stay whole.
	Release bool
	Keep    func(skill int) bool
	// Cuts, when set, supplies the words or terms of skills a compile
	// before cut, and keeps this compile's for the next (cutcache.go).
	Cuts *CutCache
	// Previous, when set with Cuts, is the last compile of the catalog:
	// the postings of the terms no changed skill uses are copied from it
	// (reuse.go). Compile drops its pages from memory when done.
	Previous *Previous
}

// IDF is the smoothed inverse document frequency of a term found in df of
// n documents: never zero, so a word every skill lists still counts a
// little.
func IDF(n, df int) float64 {
	return math.Log(float64(n+1)/float64(df+1)) + 1
}

// TextIDF is the inverse document frequency of a word of the skills'
// texts (description, body), found in df of n skills: Lucene's BM25 form,
// ln(1 + (n − df + 0.5)/(df + 0.5)), about ln(n/df), so that a word most
// skills' texts use counts next to nothing. Unlike a keyword, which an
// author chose, such a word says nothing about which skill is meant.
func TextIDF(n, df int) float64 {
	return math.Log(1 + (float64(n-df)+0.5)/(float64(df)+0.5))
}

// reaches reports whether a query term would meet anything in the index:
// a term of it, or (from MinPartial characters) a keyword that contains it.
func (ix *Index) reaches(term string) bool {
	if ix.Terms.Find(term) >= 0 {
		return true
	}
	found := false
	if utf8.RuneCountInString(term) >= MinPartial {
		ix.Containing(term, func(int) { found = true })
	}
	return found
}

// listed reports whether term is a keyword of some skill.
func (ix *Index) listed(term string) bool {
	id := ix.Terms.Find(term)
	if id < 0 {
		return false
	}
	keyword := false
	ix.Postings(id, func(p Posting) { keyword = keyword || p.Field.IsKeyword() })
	return keyword
}

// SourceHash fingerprints the content an index is built from: each
// skill's name and ContentSum, in catalog order, the options, the
// synonyms and the glossary. A skill's sum is computed when its file is
// read, and kept with the frontmatter cache's entry for the file
// (skills.FrontCache), so that a recompile hashes no unchanged skill
// again, nor reads it.
func SourceHash(cat *skills.Catalog, syn *tokenize.Synonyms, opt Options) string {
	h := newSourceHasher(opt)
	for i := range cat.Skills {
		h.skill(cat.Skills[i].Name, cat.Skills[i].ContentSum())
	}
	return h.sum(syn)
}

// sourceHasher computes SourceHash a skill at a time, so that a compile can
// hash skills as it merges them.
type sourceHasher struct {
	h        hash.Hash
	buf      []byte
	glossary *tokenize.GlossaryFile
}

func newSourceHasher(opt Options) *sourceHasher {
	h := &sourceHasher{h: sha256.New(), glossary: opt.Glossary}
	if opt.DeriveKeywords {
		h.h.Write([]byte("derive\x00"))
	}
	return h
}

func (h *sourceHasher) skill(name string, sum skills.Sum) {
	b := binary.AppendUvarint(h.buf[:0], uint64(len(name)))
	b = append(append(b, name...), sum[:]...)
	h.h.Write(b)
	h.buf = b
}

func (h *sourceHasher) sum(syn *tokenize.Synonyms) string {
	for _, w := range syn.WordList() {
		h.h.Write([]byte(w))
		h.h.Write([]byte{0})
	}
	if syn != nil {
		fmt.Fprintf(h.h, "%v %v %v", syn.Mates, syn.Weight, syn.Groups.All())
	}
	if h.glossary != nil {
		fmt.Fprintf(h.h, "\x00glossary %s", h.glossary.Hash)
	}
	return hex.EncodeToString(h.h.Sum(nil))
}

// Tokenizer returns the tokenizer that matches this index's terms.
func (ix *Index) Tokenizer() *tokenize.Tokenizer {
	ix.tokOnce.Do(func() { ix.tok = tokenize.NewWithTable(ix.Dict, ix.Synonyms, ix.Glossary) })
	return ix.tok
}

// SkillNames returns the names of the skills, in index order.
func (ix *Index) SkillNames() []string {
	out := make([]string, ix.Skills.Len())
	for i := range out {
		out[i] = ix.Skills.Name(i)
	}
	return out
}

// SkillID returns the position of the named skill, or -1: a binary
// search, as catalogs come sorted by name (skills.Catalog), else a scan.
// At 100,000 skills a scan was a millisecond for each name a session or a
// rule file names.
func (ix *Index) SkillID(name string) int {
	t := &ix.Skills
	if t.sorted {
		i := sort.Search(t.Len(), func(i int) bool { return t.Name(i) >= name })
		if i < t.Len() && t.Name(i) == name {
			return i
		}
		return -1
	}
	for i := range t.Len() {
		if t.Name(i) == name {
			return i
		}
	}
	return -1
}

// Resolve finds a skill by the name a session used or a skill file wrote:
// its exact name, else without a "plugin:" prefix, else the one skill that
// a plugin namespaces under that name ("deploy" -> "acme:deploy"), else
// the one skill whose title it is, in any case ("Root Cause Tracing" ->
// root-cause-tracing), else the one skill named for a release of the tool
// it names ("pandas" -> pandas-3-0-3). -1 when none matches.
func (ix *Index) Resolve(name string) int {
	if id := ix.SkillID(name); id >= 0 {
		return id
	}
	if bare := skills.BareName(name); bare != name {
		return ix.SkillID(bare)
	}
	if id, ok := ix.pluginSkills()[name]; ok {
		return id // -1 when ambiguous between plugins
	}
	if ix.Skills.titled {
		if id, ok := ix.titleSkills()[strings.ToLower(name)]; ok {
			return id // -1 when two skills share the title
		}
	}
	return ix.versioned(name)
}

// titleSkills returns, worked out once, the skills that have a title by
// that title, lower-cased, each with its id or -1 when several skills
// share it: a skill may be named by its header's name ("Root Cause
// Tracing") as well as by its folder's (root-cause-tracing), in an eval
// label, a correction or a rule. Read only when a name is none of the
// skills', and the catalog has titles (a flag of the skill table).
func (ix *Index) titleSkills() map[string]int {
	ix.titleOnce.Do(func() {
		ix.titles = byKey(&ix.Skills, func(i int) string { return strings.ToLower(ix.Skills.Title(i)) })
	})
	return ix.titles
}

// Named returns the skill whose name, or bare name under a plugin, is
// word, or the one skill named for a release of the tool word names
// (versioned), or -1: a search of the sorted names, and the plugins' bare
// names only when the catalog has plugin skills.
func (ix *Index) Named(word string) int {
	if word == "" {
		return -1
	}
	if id := ix.SkillID(word); id >= 0 {
		return id
	}
	if ix.Skills.plugins {
		if id, ok := ix.pluginSkills()[word]; ok {
			return id
		}
	}
	return ix.versioned(word)
}

// versioned returns the skill whose name, without the version it ends in
// (skills.Unversioned), is word ("pandas" for pandas-3-0-3), or -1 when
// none is or two are ("node-18" and "node-20"). bm25 boosts such a skill
// as named by the tool (its isName), so TopK must score it whatever its
// bounds, as it does a skill named by its whole name. Names in order are
// searched for those that start with word, a hyphen and a version; a
// table out of order is mapped once.
func (ix *Index) versioned(word string) int {
	t := &ix.Skills
	if !t.sorted {
		ix.toolOnce.Do(func() {
			ix.tools = byKey(t, func(i int) string {
				if name := t.Name(i); skills.Unversioned(name) != name {
					return skills.Unversioned(name)
				}
				return ""
			})
		})
		if id, ok := ix.tools[word]; ok {
			return id
		}
		return -1
	}
	// A version starts with a digit or a "v": search those two ranges of
	// the names, not every name that starts with the word ("api-…").
	id := -1
	for _, r := range [2][2]string{{"-0", "-:"}, {"-v", "-w"}} { // ':' and 'w' sort right after '9' and 'v'
		lo, hi := word+r[0], word+r[1]
		for i := sort.Search(t.Len(), func(i int) bool { return t.Name(i) >= lo }); i < t.Len() && t.Name(i) < hi; i++ {
			if skills.Unversioned(t.Name(i)) == word {
				if id >= 0 {
					return -1
				}
				id = i
			}
		}
	}
	return id
}

// NameStarts reports whether some skill's name, or bare name under a
// plugin, starts with prefix: one search of the sorted names, so that a
// prompt's words are looked up as a name only where one could begin.
func (ix *Index) NameStarts(prefix string) bool {
	t := &ix.Skills
	if t.sorted {
		i := sort.Search(t.Len(), func(i int) bool { return t.Name(i) >= prefix })
		if i < t.Len() && strings.HasPrefix(t.Name(i), prefix) {
			return true
		}
	} else {
		for i := range t.Len() {
			if strings.HasPrefix(t.Name(i), prefix) {
				return true
			}
		}
	}
	if t.plugins {
		for bare := range ix.pluginSkills() {
			if strings.HasPrefix(bare, prefix) {
				return true
			}
		}
	}
	return false
}

// pluginSkills returns, worked out once, the skills a plugin namespaces
// by their bare name ("acme:deploy" under "deploy"), each with its id or
// -1 when several plugins have a skill of that name. Resolve scanned every
// skill for such a suffix instead, for each name it did not find: the
// skills the built-in rules and project table name, in a catalog without
// them, cost 12 % of a hook process at 10,000 skills (perf record).
func (ix *Index) pluginSkills() map[string]int {
	ix.pluginOnce.Do(func() { ix.plugins = namespaced(&ix.Skills) })
	return ix.plugins
}

// namespaced maps the bare names of namespaced skills to their ids (-1
// for a bare name two or more share).
func namespaced(t *SkillTable) map[string]int {
	return byKey(t, func(i int) string {
		if name := t.Name(i); skills.BareName(name) != name {
			return skills.BareName(name)
		}
		return ""
	})
}

// byKey maps each skill's key to its id, or to -1 for a key two or more
// skills share; a skill whose key is "" has none.
func byKey(t *SkillTable, key func(i int) string) map[string]int {
	m := map[string]int{}
	for i := range t.Len() {
		k := key(i)
		if k == "" {
			continue
		}
		if _, dup := m[k]; dup {
			m[k] = -1
		} else {
			m[k] = i
		}
	}
	return m
}

// TermID returns the id of a term, or -1.
//
// The hook looks up a few dozen terms and exits: a binary search over the
// table costs nothing to set up. A process that routes many prompts (eval,
// a resident router) builds a hash map of the terms once it has done
// DocFreq returns how many skills have a term in any field (0 for a term
// the index lacks): postings of a term come in one run per skill, so this
// counts the runs.
func (ix *Index) DocFreq(term string) int {
	id := ix.TermID(term)
	if id < 0 {
		return 0
	}
	df, last := 0, -1
	for _, s := range ix.PostSkill[ix.Starts[id]:ix.Starts[id+1]] {
		if int(s) != last {
			df, last = df+1, int(s)
		}
	}
	return df
}

// hashAfter lookups, which halves lookup time (BenchmarkRouteBookworm).
func (ix *Index) TermID(term string) int {
	if m := ix.termMap.Load(); m != nil {
		if id, ok := (*m)[term]; ok {
			return int(id)
		}
		return -1
	}
	if ix.lookups.Add(1) == hashAfter {
		ix.buildOnce.Do(func() {
			m := make(map[string]int32, ix.Terms.Len())
			for i := 0; i < ix.Terms.Len(); i++ {
				m[ix.Terms.At(i)] = int32(i)
			}
			ix.termMap.Store(&m)
		})
	}
	return ix.Terms.Find(term)
}

// hashAfter is the number of term lookups after which a hash map pays for
// itself: about a hundred prompts.
const hashAfter = 4096

// gramID returns the number of a trigram in Grams, or -1: by binary search
// until the term map is built (TermID), then through a hash map of its
// own. A prompt looks up some forty trigrams; their binary searches were
// two thirds of Containing and 5 % of BenchmarkRoute.
func (ix *Index) gramID(g string) int {
	m := ix.gramMap.Load()
	if m == nil && ix.termMap.Load() != nil {
		ix.gramOnce.Do(func() {
			m := make(map[string]int32, ix.Grams.Len())
			for i := 0; i < ix.Grams.Len(); i++ {
				m[ix.Grams.At(i)] = int32(i)
			}
			ix.gramMap.Store(&m)
		})
		m = ix.gramMap.Load()
	}
	if m != nil {
		if id, ok := (*m)[g]; ok {
			return int(id)
		}
		return -1
	}
	return ix.Grams.Find(g)
}

// Term returns the text of term id.
func (ix *Index) Term(id int) string { return ix.Terms.At(id) }

// Postings calls fn for each posting of term id: a skill's postings come
// together, in field order; skills come by impact segment, then by id.
//
// Postings of a damaged file that name no skill or field are skipped, and
// a range beyond the postings yields none (see check).
func (ix *Index) Postings(id int, fn func(Posting)) {
	from, to := ix.Starts[id], ix.Starts[id+1]
	if from > to || int(to) > len(ix.PostSkill) {
		return
	}
	for p := from; p < to; p++ {
		if s, f := ix.PostSkill[p], Field(ix.PostField[p]); int(s) < ix.Skills.Len() && f <= FieldBody {
			fn(Posting{Skill: int(s), Field: f, Weight: float64(ix.PostWeight[p])})
		}
	}
}

// Containing calls fn with the id of every keyword term, other than term
// itself, that contains term; term must be at least MinPartial characters.
// An English term must be whole words of the keyword: "vue" is part of
// "vue router", but "ahead" is no part of "lookahead", nor "test" of
// "pytest", nor "conf" of "configmap". Chinese has no word boundaries, so
// any position counts.
func (ix *Index) Containing(term string, fn func(id int)) {
	// Scan the rarest trigram's list and verify each candidate. The
	// trigrams are cut in place: this runs for most query terms.
	best, bestLen := -1, math.MaxInt
	var offs [maxTermGrams + 3]int
	n := 0
	for i := range term {
		if n == len(offs) {
			break
		}
		offs[n] = i
		n++
	}
	if n < len(offs) {
		offs[n] = len(term)
		n++
	}
	for k := 0; k+3 < n; k++ {
		i := ix.gramID(term[offs[k]:offs[k+3]])
		if i < 0 {
			return // some trigram occurs in no keyword: nothing contains term
		}
		from, to := ix.GramStarts[i], ix.GramStarts[i+1]
		if from > to || int(to) > len(ix.GramTerms) {
			return // a damaged file (see check)
		}
		if l := int(to - from); l < bestLen {
			best, bestLen = i, l
		}
	}
	if best < 0 {
		return // shorter than a trigram
	}
	latin := term[0] < utf8.RuneSelf
	for _, id := range ix.GramTerms[ix.GramStarts[best]:ix.GramStarts[best+1]] {
		if int(id) >= ix.Terms.Len() {
			continue // a damaged file
		}
		if t := ix.Terms.At(int(id)); t != term && containsPart(t, term, latin) {
			fn(int(id))
		}
	}
}

// containsPart reports whether term occurs in keyword, as whole words
// when latin is set: "vue" is part of "vue router", "conf" no part of
// "configmap" nor "etc" of "etcd", which share letters, not meaning.
func containsPart(keyword, term string, latin bool) bool {
	for from := 0; ; {
		i := strings.Index(keyword[from:], term)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(term)
		// A Chinese character after the term ends its word ("mysql慢查询").
		if !latin || (i == 0 || !isWordByte(keyword[i-1])) && (end == len(keyword) || keyword[end] >= utf8.RuneSelf || !isWordByte(keyword[end])) {
			return true
		}
		from = i + 1
	}
}

func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b >= 0x80
}
