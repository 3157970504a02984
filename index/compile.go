package index

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/skillroute/skillroute/internal/table"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// Compile builds an index from a catalog and synonyms (may be nil).
//
// It streams over the skills. Workers, one per core, cut each skill into
// its terms (keywords normalised, description and body tokenized and
// counted); the results are merged in skill order into a term dictionary
// and one flat list of (term, field, weight) entries, 8 bytes each; a
// counting sort by term then lays the postings out, and document
// frequencies, counted on the way, turn weights into tf-idf. No map is
// keyed by posting and nothing is sorted but the terms, so memory grows
// with the postings, not with a map's overhead on them, and the output is
// the same whatever the number of workers (TestCompileParallel). At
// 10,000 generated skills this takes a few seconds where a map of
// postings took half a minute and a gigabyte (BENCHMARKS.md).
func Compile(cat *skills.Catalog, syn *tokenize.Synonyms, opt Options) *Index {
	defer TightGC()()
	return compile(cat, syn, opt, runtime.GOMAXPROCS(0))
}

// compileGC is the garbage collector's percentage while compiling. A
// compile holds the catalog and the postings at once and makes garbage as
// fast as it tokenizes; at the default 100 the heap grows to twice that
// before a collection. At 50, compiling 10,000 generated skills peaked at
// 235 MiB instead of 349 MiB for the same CPU time, within the noise. At
// 100,000 skills the live heap is 840 MB when the postings are laid out,
// and at 50 the process peaked at 1.45–1.70 GiB on a loaded machine,
// where the collector falls behind; at 30, 1.13–1.33 GiB (two runs at
// load 4–5), for about 5 % more CPU at 10,000 skills (user time
// 6.55–8.10 s against 6.75–7.40 s, by turns at load 4).
const compileGC = 30

var gcTight struct {
	sync.Mutex
	users    int
	saved    int
	paused   int // PauseGC's callers not yet resumed
	unpaused int // the percentage the last of them puts back
}

// setPercent sets the collector's percentage, or, while it is paused
// (PauseGC), the one it runs at once resumed; it returns the one before.
// gcTight is held.
func setPercent(p int) int {
	if gcTight.paused > 0 {
		old := gcTight.unpaused
		gcTight.unpaused = p
		return old
	}
	return debug.SetGCPercent(p)
}

// TightGC sets the garbage collector's percentage to the one Compile
// uses (compileGC), unless it is lower already, and returns the function
// that restores it once no caller needs it any more: for what comes
// before a compile, reading a large catalog, which makes as much garbage.
func TightGC() (restore func()) {
	gcTight.Lock()
	defer gcTight.Unlock()
	if gcTight.users == 0 {
		gcTight.saved = setPercent(compileGC)
		if gcTight.saved < compileGC {
			setPercent(gcTight.saved) // the user asked for less, or for none (-1)
		}
	}
	gcTight.users++
	return func() {
		gcTight.Lock()
		defer gcTight.Unlock()
		if gcTight.users--; gcTight.users == 0 {
			setPercent(gcTight.saved)
		}
	}
}

// PauseGC turns the garbage collector off until the function it returns
// is called (by any goroutine, as often as it likes; the first call
// counts), for work that keeps what it allocates: a recompile making its
// skills from cached headers (loader), where at 100,000 skills about ten
// collections over a heap growing to 310 MB freed next to nothing, one
// of the two cores marking while they ran. Pauses may overlap, on any
// goroutines (two compiles in one process): the collector runs again
// once every caller has resumed, at the percentage it had (or TightGC
// gave it meanwhile).
func PauseGC() (resume func()) {
	gcTight.Lock()
	if gcTight.paused == 0 {
		gcTight.unpaused = debug.SetGCPercent(-1)
	}
	gcTight.paused++
	gcTight.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			gcTight.Lock()
			defer gcTight.Unlock()
			if gcTight.paused--; gcTight.paused == 0 {
				debug.SetGCPercent(gcTight.unpaused)
			}
		})
	}
}

// nonASCII reports whether s holds a byte outside ASCII: a keyword that
// starts in English may still end in Chinese ("docker镜像"), a word of the
// dictionary (tokenize.HanWords).
func nonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// dictPart is the fewest skills worth a worker of their own when the
// keywords are scanned for the dictionary.
const dictPart = 4096

// compile is Compile with a given number of workers.
func compile(cat *skills.Catalog, syn *tokenize.Synonyms, opt Options, workers int) *Index {
	n := len(cat.Skills)
	// The dictionary holds every Han keyword and synonym, so that body text
	// and prompts are cut into the same words.
	// Keywords repeat across skills: each distinct text once, not a
	// string header per keyword (36 MB at 30,000 skills). Only a keyword
	// that may be all Han can be one of the dictionary's (HanWords): one
	// that starts with an ASCII byte is not looked up at all (at 100,000
	// skills, 7 million lookups were half a second).
	// The skills are scanned in parts, one per worker (HanWords sorts
	// and dedupes the words, so their order and repeats across parts do
	// not matter): at 100,000 skills the scan, 7 million keywords, was
	// 0.3 s of a recompile on one core.
	parts := max(1, min(workers, n/dictPart))
	found := make([][]string, parts)
	derive := make([]bool, parts)
	var scan sync.WaitGroup
	for part := range parts {
		scan.Go(func() {
			seen := map[string]struct{}{}
			for i := n * part / parts; i < n*(part+1)/parts; i++ {
				// A skill made from its cached header is read there,
				// its keyword list not made (skills.Skill.KeywordTexts).
				has := false
				for w := range cat.Skills[i].KeywordTexts() {
					has = true
					if !nonASCII(w) {
						continue // English: no Han in it
					}
					if _, ok := seen[w]; !ok {
						seen[w] = struct{}{}
						found[part] = append(found[part], w)
					}
				}
				derive[part] = derive[part] || !has
			}
		})
	}
	scan.Wait()
	needDerive := opt.DeriveKeywords || slices.Contains(derive, true)
	dictWords := slices.Concat(found...)
	found = nil
	dictWords = append(dictWords, syn.WordList()...)
	// The glossary's words segment too. With the keywords alone, a keyword
	// that straddles two words of a longer one was read into it: "索引"
	// (index) in "搜索引擎优化" (SEO), across 搜索|引擎 (TestGlossaryWordsSegment).
	// On the bookworm data, 2 of its 115 prompts more right (one broken),
	// sessions-fresh one turn more, the other dev sets the same.
	dictWords = append(dictWords, opt.Glossary.Words()...)
	// The dictionary's Han words once: the tokenizer, the cut cache and,
	// without derived words, the index take the same table.
	dict := table.New(tokenize.HanWords(dictWords))
	tok := tokenize.NewWithTable(dict, syn, nil)
	if opt.Cuts != nil {
		opt.Cuts.begin(dict)
	}
	// Derived keywords weigh a word by its uses in every skill's text
	// (derive.go): the skills' words are all counted first, and kept for
	// the second pass, which cuts each skill once only.
	// Each skill's ContentSum, as its cutter found it: what the cut cache
	// keeps its words and record under, and what the source hash is made
	// of.
	sums := make([]skills.Sum, n)
	var der *deriver
	var words [][2][]string
	if needDerive {
		der = newDeriver(n, tok)
		words = make([][2][]string, n)
		eachSkill(n, workers, tok, opt.Cuts, func(c *cutter, i int) skillTerms {
			w, sum := c.words(&cat.Skills[i])
			sums[i] = sum
			return skillTerms{words: w}
		}, func(i int, st *skillTerms) {
			words[i] = st.words
			der.add(i, st.words)
		})
	}

	ix := &Index{Format: FormatVersion, Synonyms: syn}
	infos := make([]SkillInfo, n) // the skill table's, once all are cut
	hash := newSourceHasher(opt)
	b := newBuilder(n, opt.Cuts)
	var derivedWords []string
	eachSkill(n, workers, tok, opt.Cuts, func(c *cutter, i int) skillTerms {
		var w *[2][]string
		if words != nil {
			w = &words[i]
		}
		st := c.cut(i, &cat.Skills[i], w, sums[i], der, opt)
		sums[i] = st.sum
		return st
	}, func(i int, st *skillTerms) {
		s := &cat.Skills[i]
		b.add(st)
		if st.keyed {
			b.keepRecord(st)
		}
		if words != nil {
			words[i] = [2][]string{} // cut: the second pass is done with them
		}
		derivedWords = append(derivedWords, st.derivedWords...)
		infos[i] = SkillInfo{
			Name: s.Name, Description: s.Description, Source: s.Source, Title: s.Title,
			Enhances: s.Enhances, Conflicts: s.Conflicts, Paths: s.Paths,
			Keywords: st.keywords, Derived: st.derived,
			Length: float64(st.keywords) + lengthOfTextTerm*float64(st.length(0)+st.length(1)),
		}
		hash.skill(s.Name, sums[i])
		if opt.Release && (opt.Keep == nil || !opt.Keep(i)) {
			*s = skills.Skill{Name: s.Name, Description: s.Description, Source: s.Source, Title: s.Title, Enhances: s.Enhances, Conflicts: s.Conflicts, Paths: s.Paths} // what infos[i] refers to stays
		}
	})
	der = nil
	ix.SourceHash = hash.sum(syn)
	ix.Dict = dict
	if len(derivedWords) > 0 {
		ix.Dict = table.New(tokenize.HanWords(append(dictWords, derivedWords...)))
	}
	total := 0.0
	for i := range n {
		total += infos[i].Length
	}
	if n > 0 {
		ix.AvgLength = gridAverage(total / float64(n))
	}
	// With the last compile's index, the postings of the terms no changed
	// skill uses are copied from it (reuse.go), if the plan the layout
	// asks for once it has counted the terms allows.
	var ru *reuse
	if opt.Cuts != nil {
		ix.sums, ix.context = sums, compileContext(opt.Cuts, syn, opt)
		if prev := opt.Previous; prev != nil && !needDerive {
			ru = b.startReuse(prev, sums, ix.context, namesHash(infos), ix.AvgLength)
		}
	}
	if opt.Previous != nil {
		defer opt.Previous.release()
	}
	// The skill table is made while the postings are laid out, which
	// does not read it: the layout leaves a core idle while it sorts the
	// terms and sums their counts.
	var skillTable sync.WaitGroup
	skillTable.Go(func() {
		ix.Skills = NewSkillTable(infos)
		ix.NamesHash = namesHash(infos)
	})
	ru = b.layout(ix, workers, ru)
	skillTable.Wait()
	if opt.Cuts != nil {
		opt.Cuts.done(b.terms, b.weights, ix.Terms.Len()) // the words and records the index is built from are copied into it
	}

	if ru == nil {
		// Before segmenting, which reorders each term's postings by
		// impact: the glossary reads them.
		ix.Glossary = tokenize.CompileGlossary(opt.Glossary, ix.reaches, ix.listed, syn)
		ix.buildSegments(workers, nil)
	} else {
		// The copied terms' postings are there once segmented; the
		// glossary asks only whether a term is in the index and whether
		// some skill lists it, which their order does not change.
		ix.buildSegments(workers, ru)
		ix.Glossary = tokenize.CompileGlossary(opt.Glossary, ix.reaches, ix.listed, syn)
		ix.reused = ru.terms
	}
	if !ix.Skills.plugins {
		ix.pluginOnce.Do(func() { ix.plugins = map[string]int{} }) // as after loading
	}
	return ix
}

// length is how many distinct words text field f holds (0 description, 1
// body): its length.
func (st *skillTerms) length(f int) int { return st.fieldTerms[f] - st.phrases[f] }

// isPhrase reports a text term that is a phrase of words (tokenize.Words).
func isPhrase(term string) bool { return strings.IndexByte(term, ' ') >= 0 }

// skillTerms is one skill cut into terms.
type skillTerms struct {
	// Entries in field order (keywords by tier, description, body), so
	// that a term's postings in a skill come in field order.
	entries    []termEntry
	keywords   int    // distinct (term, tier) keywords
	fieldTerms [2]int // distinct terms of the description and of the body
	// phrases counts the phrases among fieldTerms (tokenize.Words): words
	// already counted, which make a field no longer.
	phrases      [2]int
	derived      bool
	derivedWords []string
	words        [2][]string // the first pass of a derivation: description and body words

	// The skill's ContentSum. With a cut cache, a skill of written
	// keywords has a record (cutcache.go), kept under it: cached, when
	// set, is its record from the last compile, which entries then leave
	// empty.
	sum    skills.Sum
	keyed  bool
	cached *cachedTerms
	rec    []byte
}

// termEntry is a term of a skill's field: for a keyword, value is its
// weight; for a text field, the term's count.
type termEntry struct {
	term  string
	field Field
	value float64
}

// cutter cuts skills into terms; each worker has its own.
type cutter struct {
	tok    *tokenize.Tokenizer // with its own caches
	cuts   *CutCache           // the words of skills cut before (nil: none)
	kwSeen map[kwKey]int
	counts map[string]int
	norms  map[string]string // keywords normalised so far (see readAs)
}

// normLimit bounds a cutter's memo of normalised keywords. Keywords
// repeat across skills (a generated catalog of 10,000 skills writes
// 740,000 keywords, of fewer than 27,000 distinct terms), and normalising
// each anew (stemming, allocating) was a third of a recompile's cutting.
const normLimit = 1 << 16

// readAs is the tokenizer's ReadAs, remembered: a keyword written
// across scripts with a space ("api 参考") is stored as the prompt reads
// it ("api参考"), not as a phrase no prompt term ever equals.
func (c *cutter) readAs(text string) string {
	if n, ok := c.norms[text]; ok {
		return n
	}
	n := c.tok.ReadAs(text)
	if len(c.norms) < normLimit {
		c.norms[text] = n
	}
	return n
}

type kwKey struct {
	term  string
	field Field
}

// words cuts a skill's description text (description, when_to_use and
// triggers) and body into words, and returns them with the skill's
// ContentSum.
func (c *cutter) words(s *skills.Skill) ([2][]string, skills.Sum) {
	if c.cuts != nil {
		return c.cuts.words(s, c.cutWords)
	}
	return c.cutWords(s), s.ContentSum()
}

// cutWords cuts a skill's texts into words, reading its body first if it
// was left unread (skills.Skill.ReadBody). A body that cannot be read is
// cut as empty, which the skill's sum then says: the next compile finds
// the file changed, or gone, and reads it again.
func (c *cutter) cutWords(s *skills.Skill) [2][]string {
	_ = s.ReadBody()
	return [2][]string{c.tok.Words(s.Text()), c.tok.Words(s.Body)}
}

// cut cuts skill i into its terms: its keywords (derived with der when it
// has none or opt says so) and its text fields' words, given in words
// when a first pass cut them (sum is then the skill's ContentSum, as that
// pass found it).
func (c *cutter) cut(i int, s *skills.Skill, words *[2][]string, sum skills.Sum, der *deriver, opt Options) skillTerms {
	st := skillTerms{sum: sum}
	if c.cuts != nil && !opt.DeriveKeywords && s.HasKeywords() {
		st.keyed = true
		if words == nil {
			st.sum = s.ContentSum()
		}
		if rec, ok := c.cuts.record(cutKey(st.sum)); ok {
			st.cached, st.rec, st.keywords, st.fieldTerms, st.phrases = &rec, rec.raw, rec.keywords, rec.fieldTerms, rec.phrases
			return st
		}
	}
	var w [2][]string
	switch {
	case words != nil:
		w = *words
	case st.keyed:
		// Its record is kept, not its words: no later compile needs
		// them unless this one changes.
		unread := s.Unread()
		w = c.cutWords(s)
		if unread {
			st.sum = s.ContentSum() // its body read: the sum of what is cut
		}
		c.cuts.cut.Add(1)
	default:
		w, st.sum = c.words(s)
	}
	s.ReadKeywords() // a skill made from its cached header, cut afresh
	kws := s.Keywords
	if opt.DeriveKeywords || len(kws) == 0 {
		kws, st.derived = der.derive(c.tok, i, s, w[0]), true
		for _, k := range kws {
			st.derivedWords = append(st.derivedWords, k.Text)
		}
	}
	clear(c.kwSeen)
	st.entries = make([]termEntry, 0, len(kws)+len(w[0])+len(w[1]))
	for _, k := range kws {
		term := k.Text // derived keywords come normalised
		if !st.derived {
			term = c.readAs(k.Text)
		}
		if term == "" {
			continue
		}
		key := kwKey{term, Field(k.Tier)}
		if j, ok := c.kwSeen[key]; ok {
			st.entries[j].value = max(st.entries[j].value, k.Weight)
			continue
		}
		c.kwSeen[key] = len(st.entries)
		st.entries = append(st.entries, termEntry{term, key.field, max(0, k.Weight)})
	}
	st.keywords = len(st.entries)
	slices.SortStableFunc(st.entries, func(a, b termEntry) int { return cmp.Compare(a.field, b.field) })
	for f, field := range [...]Field{FieldDescription, FieldBody} {
		clear(c.counts)
		from := len(st.entries)
		for _, word := range w[f] {
			if j, ok := c.counts[word]; ok {
				st.entries[j].value++
				continue
			}
			c.counts[word] = len(st.entries)
			st.entries = append(st.entries, termEntry{word, field, 1})
			if isPhrase(word) {
				st.phrases[f]++
			}
		}
		st.fieldTerms[f] = len(st.entries) - from
	}
	return st
}

// eachSkill cuts skills 0..n-1 with cut, on workers goroutines, and hands
// each result to merge, in skill order, on the calling goroutine. Skills
// go out in chunks; at most a few chunks per worker wait to be merged, so
// memory does not grow with the catalog.
func eachSkill(n, workers int, tok *tokenize.Tokenizer, cuts *CutCache, cut func(c *cutter, i int) skillTerms, merge func(i int, st *skillTerms)) {
	const chunk = 64 // skills per job: a few milliseconds of work
	type batch struct {
		from int
		out  []skillTerms
		done chan struct{}
	}
	workers = max(1, workers)
	pending := make(chan *batch, 2*workers) // in skill order, for merging
	jobs := make(chan *batch)
	go func() {
		for from := 0; from < n; from += chunk {
			b := &batch{from: from, out: make([]skillTerms, min(chunk, n-from)), done: make(chan struct{})}
			pending <- b
			jobs <- b
		}
		close(jobs)
		close(pending)
	}()
	for w := 0; w < workers; w++ {
		go func() {
			c := &cutter{tok: tok.WithCache(), cuts: cuts, kwSeen: map[kwKey]int{}, counts: map[string]int{}, norms: map[string]string{}}
			for b := range jobs {
				for j := range b.out {
					b.out[j] = cut(c, b.from+j)
				}
				close(b.done)
			}
		}()
	}
	for b := range pending {
		<-b.done
		for j := range b.out {
			merge(b.from+j, &b.out[j])
		}
	}
}

// entry is one posting before layout: a term id (in order of first use)
// and code, the field in the top bits and, below, the text term's count
// or the keyword weight's number in builder.weights.
type entry struct {
	term uint32
	code uint32
}

const (
	fieldShift = 28
	valueMask  = 1<<fieldShift - 1
)

// builder gathers the merged skills.
//
// A skill's entries are either copied into blocks, or, for a skill whose
// record the cut cache had and whose numbers the builder shares, left in
// the record, where the layout reads them: at 100,000 skills a recompile
// copied 30 million entries (240 MB) on the merge's one goroutine. The
// terms' document frequencies are counted as the layout reads the
// entries, on every core.
type builder struct {
	n          int
	ids        map[string]uint32
	terms      []string    // by id
	dfKeyword  []uint32    // by id: skills with it in a keyword field (layout)
	dfText     []uint32    // by id: skills with it in a text field (layout)
	entries    [][]entry   // in blocks of blockSize: no copy of them all as they grow
	count      uint32      // entries in blocks so far
	total      uint32      // entries so far, blocks and records
	skillEnds  []uint32    // skill i's entries end at skillEnds[i], counting every skill's
	blockFrom  []uint32    // skill i's entries start there in the blocks (unless it has a record)
	recs       [][]byte    // skill i's record's entries (cachedTerms.entries), or nil
	fieldTerms [][2]uint32 // skill i's distinct description and body terms
	fieldSum   [2]float64  // the same, summed over skills
	weights    []float64
	weightNums map[float64]uint32

	// Records from the last compile (cutcache.go) are numbered by its
	// terms and weights: cuts holds those tables. When the compile keeps
	// the file's numbers (numbering.extend), they are this builder's
	// (shared): a record's entries are laid out as they are, and a term
	// no skill uses any more keeps its number, with no posting. Otherwise
	// remapTerm and remapWeight map each number to this builder's, plus
	// one (0: not met yet).
	cuts        *CutCache
	shared      bool
	remapTerm   []uint32
	remapWeight []uint32
	recBuf      []byte
}

func newBuilder(n int, cuts *CutCache) *builder {
	b := &builder{n: n, ids: map[string]uint32{}, weightNums: map[float64]uint32{}, skillEnds: make([]uint32, 0, n),
		blockFrom: make([]uint32, 0, n), recs: make([][]byte, 0, n), fieldTerms: make([][2]uint32, 0, n), cuts: cuts}
	switch {
	case cuts != nil && cuts.num.extend:
		// The maps of the file's terms and weights are made when a skill
		// cut afresh first needs them.
		b.shared, b.ids, b.weightNums = true, nil, nil
		b.terms, b.weights = slices.Clip(cuts.terms), slices.Clip(cuts.wts)
	case cuts != nil:
		b.remapTerm, b.remapWeight = make([]uint32, len(cuts.terms)), make([]uint32, len(cuts.wts))
	}
	return b
}

// termID returns the number of term, numbering it if it is new.
func (b *builder) termID(term string) uint32 {
	return number(&b.ids, &b.terms, term, strings.Clone) // term may be a slice of a whole body
}

// weightNum returns the number of keyword weight w, numbering it if it is new.
func (b *builder) weightNum(w float64) uint32 {
	return number(&b.weightNums, &b.weights, w, nil)
}

// number returns v's number in list, appending it (kept by keep, when
// given) if it is new. The map of numbers is made on first use from the
// list, whose first occurrence of a value gives its number.
func number[V comparable](ids *map[V]uint32, list *[]V, v V, keep func(V) V) uint32 {
	if *ids == nil {
		*ids = make(map[V]uint32, len(*list))
		for i, x := range *list {
			if _, ok := (*ids)[x]; !ok {
				(*ids)[x] = uint32(i)
			}
		}
	}
	id, ok := (*ids)[v]
	if !ok {
		id = uint32(len(*list))
		if keep != nil {
			v = keep(v)
		}
		(*ids)[v] = id
		*list = append(*list, v)
	}
	return id
}

// add merges the next skill: its record from the last compile, left
// where it is when the builder shares its numbers, else its entries, or
// its record's with its numbers made this builder's on the way, in the
// order cutting would have met them, so the builder ends as a cold
// compile's.
func (b *builder) add(st *skillTerms) {
	start := b.count
	var rec []byte
	switch {
	case st.cached != nil && b.shared:
		rec = st.cached.entries
		b.total += uint32(st.cached.n)
	case st.cached != nil:
		st.cached.each(func(term uint32, field Field, value uint32) {
			id := b.remapTerm[term]
			if id == 0 {
				id = b.termID(b.cuts.terms[term]) + 1
				b.remapTerm[term] = id
			}
			if field.IsKeyword() {
				num := b.remapWeight[value]
				if num == 0 {
					num = b.weightNum(b.cuts.wts[value]) + 1
					b.remapWeight[value] = num
				}
				value = num - 1
			}
			b.put(id-1, field, value)
		})
	default:
		for _, e := range st.entries {
			id := b.termID(e.term)
			var value uint32
			if e.field.IsKeyword() {
				value = b.weightNum(e.value)
			} else {
				value = uint32(min(e.value, valueMask))
			}
			b.put(id, e.field, value)
		}
	}
	b.total += b.count - start
	b.recs = append(b.recs, rec)
	b.blockFrom = append(b.blockFrom, start)
	b.skillEnds = append(b.skillEnds, b.total)
	b.fieldTerms = append(b.fieldTerms, [2]uint32{uint32(st.length(0)), uint32(st.length(1))})
	b.fieldSum[0] += float64(st.length(0))
	b.fieldSum[1] += float64(st.length(1))
}

// put adds an entry to the blocks.
func (b *builder) put(id uint32, field Field, value uint32) {
	if b.count%blockSize == 0 {
		b.entries = append(b.entries, make([]entry, 0, blockSize))
	}
	last := &b.entries[len(b.entries)-1]
	*last = append(*last, entry{id, uint32(field)<<fieldShift | value})
	b.count++
}

// keepRecord keeps the skill just added as a record for the next compile.
func (b *builder) keepRecord(st *skillTerms) {
	k := len(b.skillEnds) - 1
	from, to := b.blockFrom[k], b.count
	b.recBuf = b.cuts.keepRecord(cutKey(st.sum), st.rec, st.keywords, st.fieldTerms, func(yield func(entry) bool) {
		for i := from; i < to; i++ {
			if !yield(b.entry(i)) {
				return
			}
		}
	}, int(to-from), b.recBuf)
}

// skillEntries returns the entries of skill i: read from its record into
// *scratch (reused), or the blocks' own where they lie in one. The
// layout's passes loop over them with no call per entry: a callback per
// entry was a third of laying 100,000 skills out.
func (b *builder) skillEntries(i int, scratch *[]entry) []entry {
	buf := (*scratch)[:0]
	defer func() { *scratch = buf[:0] }()
	if rec := b.recs[i]; rec != nil {
		for len(rec) > 0 {
			// A term's number, then its value and field, each mostly one
			// byte: read here without binary.Uvarint's call.
			var t, v uint64
			if rec[0] < 0x80 {
				t, rec = uint64(rec[0]), rec[1:]
			} else {
				var n int
				t, n = binary.Uvarint(rec)
				rec = rec[n:]
			}
			if rec[0] < 0x80 {
				v, rec = uint64(rec[0]), rec[1:]
			} else {
				var n int
				v, n = binary.Uvarint(rec)
				rec = rec[n:]
			}
			buf = append(buf, entry{uint32(t), uint32(v&fieldMask)<<fieldShift | uint32(v>>fieldBits)})
		}
		return buf
	}
	from := b.blockFrom[i]
	to := from + (b.skillEnds[i] - b.start(i))
	if from == to {
		return nil
	}
	if from/blockSize == (to-1)/blockSize {
		return b.entries[from/blockSize][from%blockSize : from%blockSize+(to-from) : from%blockSize+(to-from)]
	}
	for j := from; j < to; j++ {
		buf = append(buf, b.entry(j))
	}
	return buf
}

// start is where skill i's entries start, counting every skill's.
func (b *builder) start(i int) uint32 {
	if i == 0 {
		return 0
	}
	return b.skillEnds[i-1]
}

// run is a run of skills, from firstSkill to endSkill, that one worker
// lays out.
type run struct {
	firstSkill, endSkill int
}

// layoutPart is the fewest entries worth a worker of their own in the
// layout (a variable for the tests, which lay small catalogs out on
// several).
var layoutPart = 1 << 16

// runs cuts the skills into at most workers runs of about equal entries.
func (b *builder) runs(workers int) []run {
	parts := max(1, min(workers, int(b.total)/layoutPart))
	var out []run
	skill := 0
	for k := range parts {
		r := run{firstSkill: skill}
		share := uint32(uint64(b.total) * uint64(k+1) / uint64(parts))
		for skill < len(b.skillEnds) && (k == parts-1 || b.skillEnds[skill] <= share) {
			skill++
		}
		r.endSkill = skill
		if b.start(r.firstSkill) < b.start(r.endSkill) || k == parts-1 {
			out = append(out, r)
		}
	}
	return out
}

// parallelRuns calls fn for each run, each on a goroutine of its own.
func parallelRuns(runs []run, fn func(k int, r run)) {
	if len(runs) == 1 {
		fn(0, runs[0])
		return
	}
	var wg sync.WaitGroup
	for k, r := range runs {
		wg.Go(func() { fn(k, r) })
	}
	wg.Wait()
}

// blockSize is how many entries a block of builder.entries holds (512 KiB).
const blockSize = 1 << 16

// entry returns entry number i of the blocks.
func (b *builder) entry(i uint32) entry { return b.entries[i/blockSize][i%blockSize] }

// runCount is what a run's first pass over its entries counts, by term:
// its postings, and its skills with the term in a keyword and in a text
// field.
type runCount struct {
	posts, dfKeyword, dfText []uint32
	lastKw, lastText         []uint32 // 1 + the last skill counted in dfKeyword, dfText
}

// layout sorts the terms, lays the postings out by term (a counting sort:
// skills in order, a skill's fields in order), with tf-idf weights, and
// indexes the keyword terms by trigram.
//
// With a plan of reuse begun (ru), the layout completes it once the terms
// are counted, and lays out only the terms it does not copy: from the
// entries the first pass kept, and those of the skills that use a term a
// changed skill no longer uses. It returns the plan, nil if none holds.
func (b *builder) layout(ix *Index, workers int, ru *reuse) *reuse {
	// The skills are shared out in runs of about equal postings, one per
	// worker; each counts its run's postings and document frequencies per
	// term, and lays its postings out after those of the runs before it,
	// so each term's postings come in skill order as from one worker
	// (TestCompileParallel). At 100,000 skills the layout, one after the
	// other, was 1.6 s of a recompile.
	nt := len(b.terms)
	runs := b.runs(workers)
	counts := make([]runCount, len(runs))
	var overflow []bool // by run: its kept entries passed keptShare
	if ru != nil && float64(ru.keep) <= keptShare*float64(b.total) {
		ru.kept, overflow = make([][]keptEntry, len(runs)), make([]bool, len(runs))
	}
	parallelRuns(runs, func(k int, r run) {
		c := runCount{posts: make([]uint32, nt), dfKeyword: make([]uint32, nt), dfText: make([]uint32, nt),
			lastKw: make([]uint32, nt), lastText: make([]uint32, nt)}
		var scratch []entry
		var kept []keptEntry
		keep := ru != nil && ru.kept != nil
		limit := int(keptShare * float64(b.start(r.endSkill)-b.start(r.firstSkill)))
		if keep {
			// The run's share of the entries kept, and some room.
			share := float64(b.start(r.endSkill)-b.start(r.firstSkill)) / float64(max(1, b.total))
			kept = make([]keptEntry, 0, int(1.1*share*float64(ru.keep))+1024)
		}
		for i := r.firstSkill; i < r.endSkill; i++ {
			skill := uint32(i) + 1
			for _, e := range b.skillEntries(i, &scratch) {
				term := e.term
				if keep && ru.touched[term] {
					kept = append(kept, keptEntry{uint32(i), e})
				}
				c.posts[term]++
				if Field(e.code >> fieldShift).IsKeyword() {
					if c.lastKw[term] != skill {
						c.lastKw[term] = skill
						c.dfKeyword[term]++
					}
				} else if c.lastText[term] != skill {
					c.lastText[term] = skill
					c.dfText[term]++
				}
			}
			if keep && len(kept) > limit {
				kept, overflow[k], keep = nil, true, false
			}
		}
		c.lastKw, c.lastText = nil, nil
		counts[k] = c
		if ru != nil && ru.kept != nil {
			ru.kept[k] = kept
		}
	})
	if slices.Contains(overflow, true) {
		ru.kept = nil
	}
	b.dfKeyword, b.dfText = make([]uint32, nt), make([]uint32, nt)
	for _, c := range counts {
		for t := range nt {
			b.dfKeyword[t] += c.dfKeyword[t]
			b.dfText[t] += c.dfText[t]
		}
	}
	order := make([]uint32, 0, nt) // the ids of the terms some skill uses, by term
	for t := range nt {
		if b.dfKeyword[t] > 0 || b.dfText[t] > 0 {
			order = append(order, uint32(t))
		}
	}
	slices.SortFunc(order, func(x, y uint32) int { return cmp.Compare(b.terms[x], b.terms[y]) })
	sorted := make([]string, len(order))
	ix.TextDF = make([]uint32, len(order))
	for r, id := range order {
		sorted[r] = b.terms[id]
		ix.TextDF[r] = b.dfText[id]
	}
	ix.Terms = table.New(sorted)
	// Each run's postings of a term go after the runs' before it: posts
	// becomes, by term, where the run's next one goes.
	starts := make([]uint32, len(order)+1)
	for r, id := range order {
		at := starts[r]
		for _, c := range counts {
			at, c.posts[id] = at+c.posts[id], at
		}
		starts[r+1] = at
	}
	ix.Starts = starts
	// Text fields are length-normalised each on its own (BM25F): a long
	// playbook holds every common word several times, and would otherwise
	// collect more of a prompt's words than a short one that is about
	// them. The average is over the whole catalog, known only now.
	var avg [2]float64
	for f := range avg {
		avg[f] = max(1, gridAverage(b.fieldSum[f]/float64(max(1, b.n))))
	}
	if ru != nil {
		ru = b.planReuse(ru, order, starts, avg)
	}
	total := int(b.total)
	ix.PostSkill = make([]uint32, total)
	ix.PostWeight = make([]float32, total)
	ix.PostField = make([]uint8, total)
	// Trigrams of the keyword terms need only the terms: built while the
	// postings are laid out.
	var grams sync.WaitGroup
	if ru != nil && ru.sameGrams {
		ru.copyGrams(ix)
	} else {
		grams.Go(func() { b.trigrams(ix, order) })
	}
	defer grams.Wait()
	wt := b.newWeigher(nt, avg)
	if ru != nil && ru.kept != nil && !ru.damaged {
		b.layoutChanged(ix, ru, runs, counts, wt)
		return ru
	}
	parallelRuns(runs, func(k int, r run) {
		next := counts[k].posts
		// The blocks this run's skills' entries lie in alone, which the
		// collector may have back once laid out: in a cold compile they
		// are the largest thing built.
		firstBlock, endBlock := b.runBlocks(r)
		var scratch []entry
		for skill := r.firstSkill; skill < r.endSkill; skill++ {
			norm := wt.norm(skill)
			for _, e := range b.skillEntries(skill, &scratch) {
				if ru != nil && ru.cleanID[e.term] {
					continue // copied from the last index
				}
				wt.place(ix, uint32(skill), e, &norm, next)
			}
			if b.recs[skill] == nil {
				// Laid out up to here: the blocks before this skill's
				// last entry's, that are the run's alone.
				last := (b.blockFrom[skill] + b.skillEnds[skill] - b.start(skill)) / blockSize
				for ; firstBlock < min(last, endBlock); firstBlock++ {
					b.entries[firstBlock] = nil
				}
			}
		}
	})
	b.entries = nil // the largest thing built; the layout is done with it
	return ru
}

// layoutChanged lays out the postings of the terms a recompile does not
// copy (ru): the touched terms' from the entries the first pass kept,
// each run's on a goroutine of its own; then those of the terms whose
// postings shrank, from the entries of the skills their old postings
// name. The weights are the layout's, by the same arithmetic.
func (b *builder) layoutChanged(ix *Index, ru *reuse, runs []run, counts []runCount, wt *weigher) {
	parallelRuns(runs, func(k int, r run) {
		next := counts[k].posts
		var nm [2]float64
		last := uint32(math.MaxUint32)
		for _, ke := range ru.kept[k] {
			if ke.skill != last {
				last, nm = ke.skill, wt.norm(int(ke.skill))
			}
			wt.place(ix, ke.skill, ke.e, &nm, next)
		}
	})
	ru.kept = nil
	if len(ru.shrunk) > 0 {
		marked := ru.shrunkSkills(b.n)
		var scratch []entry
		k := 0
		for s, m := range marked {
			if !m {
				continue
			}
			for s >= runs[k].endSkill {
				k++
			}
			nm := wt.norm(s)
			for _, e := range b.skillEntries(s, &scratch) {
				if ru.shrunkID[e.term] {
					wt.place(ix, uint32(s), e, &nm, counts[k].posts)
				}
			}
		}
	}
	b.entries = nil
}

// weigher gives each entry its posting's weight: a keyword's weight
// times the term's keyword IDF; a text field's 1 + ln(count), normalised
// by the field's length against the catalog's average (BM25F), times the
// text IDF. A cold layout and a recompile's (layoutChanged) weigh by it
// alike, so that their indexes agree byte for byte.
type weigher struct {
	b            *builder
	avg          [2]float64
	idfKw, idfTx []float64   // by term: made once, not once per posting (3 million at 10,000 skills, each a logarithm)
	logTF        [64]float64 // 1 + ln(count), for the counts text terms reach most
}

func (b *builder) newWeigher(terms int, avg [2]float64) *weigher {
	wt := &weigher{b: b, avg: avg, idfKw: make([]float64, terms), idfTx: make([]float64, terms)}
	for id := range terms {
		wt.idfKw[id] = IDF(b.n, int(b.dfKeyword[id]))
		wt.idfTx[id] = TextIDF(b.n, int(b.dfText[id]))
	}
	for v := 1; v < len(wt.logTF); v++ {
		wt.logTF[v] = 1 + math.Log(float64(v))
	}
	return wt
}

// norm returns a skill's length normalisation of its text fields.
func (wt *weigher) norm(skill int) [2]float64 {
	var norm [2]float64
	for f := range norm {
		norm[f] = 1 - TextFieldB + TextFieldB*float64(wt.b.fieldTerms[skill][f])/wt.avg[f]
	}
	return norm
}

func (wt *weigher) tf(v uint32) float64 {
	if v < uint32(len(wt.logTF)) {
		return wt.logTF[v]
	}
	return 1 + math.Log(float64(v))
}

// place writes skill's posting of entry e at its term's next place.
func (wt *weigher) place(ix *Index, skill uint32, e entry, norm *[2]float64, next []uint32) {
	term, field, value := e.term, Field(e.code>>fieldShift), e.code&valueMask
	var w float64
	switch field {
	case FieldDescription:
		w = DescriptionWeight * wt.tf(value) / norm[0] * wt.idfTx[term]
	case FieldBody:
		w = BodyWeight * wt.tf(value) / norm[1] * wt.idfTx[term]
	default:
		w = wt.b.weights[value] * wt.idfKw[term]
	}
	p := next[term]
	next[term]++
	ix.PostSkill[p] = skill
	ix.PostField[p] = uint8(field)
	ix.PostWeight[p] = float32(w)
}

// runBlocks returns the blocks that hold entries of run r's skills and of
// no other run's: [first, end).
func (b *builder) runBlocks(r run) (first, end uint32) {
	if r.firstSkill == r.endSkill {
		return 0, 0
	}
	from := b.blockFrom[r.firstSkill]
	to := b.count
	if r.endSkill < len(b.blockFrom) {
		to = b.blockFrom[r.endSkill]
	}
	// A block the run starts or ends in the middle of is shared.
	first, end = (from+blockSize-1)/blockSize, to/blockSize
	return first, max(first, end)
}

// trigrams indexes the keyword terms by trigram, in term order (order:
// the terms' numbers by term), so that each gram's list comes sorted.
// Each gram is numbered as met, its terms counted, then laid out by gram
// (a counting sort, as the postings): a list per gram grown by append,
// and a map of grams per term, were a fifth of a recompile's layout.
func (b *builder) trigrams(ix *Index, order []uint32) {
	num := map[string]uint32{}
	var gramList []string
	var counts []uint32
	var pairs []uint64 // gram number << 32 | term rank, in rank order
	var offs []int
	for r, id := range order {
		if b.dfKeyword[id] == 0 {
			continue
		}
		term := b.terms[id]
		offs = offs[:0]
		for i := range term {
			offs = append(offs, i)
		}
		offs = append(offs, len(term))
		first := len(pairs)
	grams:
		for k := 0; k+3 < len(offs); k++ {
			g := term[offs[k]:offs[k+3]]
			n, ok := num[g]
			if !ok {
				n = uint32(len(gramList))
				num[g] = n
				gramList = append(gramList, g)
				counts = append(counts, 0)
			}
			for _, p := range pairs[first:] { // a term's grams once each
				if uint32(p>>32) == n {
					continue grams
				}
			}
			counts[n]++
			pairs = append(pairs, uint64(n)<<32|uint64(r))
		}
	}
	byGram := make([]uint32, len(gramList)) // gram numbers, by gram
	for i := range byGram {
		byGram[i] = uint32(i)
	}
	slices.SortFunc(byGram, func(x, y uint32) int { return strings.Compare(gramList[x], gramList[y]) })
	sorted := make([]string, len(gramList))
	next := make([]uint32, len(gramList)) // by gram number: where its next term goes
	ix.GramStarts = make([]uint32, len(gramList)+1)
	at := uint32(0)
	for i, n := range byGram {
		sorted[i] = gramList[n]
		ix.GramStarts[i] = at
		next[n] = at
		at += counts[n]
	}
	ix.GramStarts[len(gramList)] = at
	ix.Grams = table.New(sorted)
	ix.GramTerms = make([]uint32, at)
	for _, p := range pairs {
		n := uint32(p >> 32)
		ix.GramTerms[next[n]] = uint32(p)
		next[n]++
	}
}

// namesHash is Index.NamesHash: each name and title with its length
// before it. The titles count because Resolve knows a skill by its title
// too: a rule may name it so.
func namesHash(infos []SkillInfo) string {
	h := sha256.New()
	var buf []byte
	for i := range infos {
		buf = append(binary.AppendUvarint(buf[:0], uint64(len(infos[i].Name))), infos[i].Name...)
		buf = append(binary.AppendUvarint(buf, uint64(len(infos[i].Title))), infos[i].Title...)
		h.Write(buf)
	}
	return hex.EncodeToString(h.Sum(nil))
}
