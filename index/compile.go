package index

import (
	"cmp"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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
// 235 MiB instead of 349 MiB for the same CPU time, within the noise.
const compileGC = 50

var gcTight struct {
	sync.Mutex
	users int
	saved int
}

// TightGC sets the garbage collector's percentage to the one Compile
// uses (compileGC), unless it is lower already, and returns the function
// that restores it once no caller needs it any more: for what comes
// before a compile, reading a large catalog, which makes as much garbage.
func TightGC() (restore func()) {
	gcTight.Lock()
	defer gcTight.Unlock()
	if gcTight.users == 0 {
		gcTight.saved = debug.SetGCPercent(compileGC)
		if gcTight.saved < compileGC {
			debug.SetGCPercent(gcTight.saved) // the user asked for less, or for none (-1)
		}
	}
	gcTight.users++
	return func() {
		gcTight.Lock()
		defer gcTight.Unlock()
		if gcTight.users--; gcTight.users == 0 {
			debug.SetGCPercent(gcTight.saved)
		}
	}
}

// compile is Compile with a given number of workers.
func compile(cat *skills.Catalog, syn *tokenize.Synonyms, opt Options, workers int) *Index {
	n := len(cat.Skills)
	// The dictionary holds every Han keyword and synonym, so that body text
	// and prompts are cut into the same words.
	// Keywords repeat across skills: each distinct text once, not a
	// string header per keyword (36 MB at 30,000 skills).
	seen := map[string]struct{}{}
	var dictWords []string
	needDerive := opt.DeriveKeywords
	for _, s := range cat.Skills {
		for _, k := range s.Keywords {
			if _, ok := seen[k.Text]; !ok {
				seen[k.Text] = struct{}{}
				dictWords = append(dictWords, k.Text)
			}
		}
		needDerive = needDerive || len(s.Keywords) == 0
	}
	seen = nil
	dictWords = append(dictWords, syn.WordList()...)
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
	var der *deriver
	var words [][2][]string
	if needDerive {
		der = newDeriver(n, tok)
		words = make([][2][]string, n)
		eachSkill(n, workers, tok, opt.Cuts, func(c *cutter, i int) skillTerms {
			return skillTerms{words: c.words(&cat.Skills[i])}
		}, func(i int, st *skillTerms) {
			words[i] = st.words
			der.add(i, st.words)
		})
	}

	ix := &Index{Format: FormatVersion, Synonyms: syn}
	infos := make([]SkillInfo, n) // the skill table's, once all are cut
	// With Release, the source hash is computed alongside, since each
	// skill is emptied once compiled; a skill is emptied once the hasher
	// has passed it too.
	var hashed atomic.Int64 // skills hashed so far
	var hashSum chan string
	var pending []int // compiled, not yet hashed
	if opt.Release {
		hashSum = make(chan string, 1)
		go func() {
			h := newSourceHasher(opt)
			for i := range cat.Skills {
				h.skill(&cat.Skills[i])
				hashed.Store(int64(i + 1))
			}
			hashSum <- h.sum(syn)
		}()
	}
	release := func(upTo int) {
		kept := pending[:0]
		for _, i := range pending {
			if i >= upTo {
				kept = append(kept, i)
				continue
			}
			if opt.Keep != nil && opt.Keep(i) {
				continue
			}
			s := &cat.Skills[i] // what infos[i] refers to stays
			*s = skills.Skill{Name: s.Name, Description: s.Description, Source: s.Source, Enhances: s.Enhances, Conflicts: s.Conflicts}
		}
		pending = kept
	}
	b := newBuilder(n, opt.Cuts)
	var derivedWords []string
	eachSkill(n, workers, tok, opt.Cuts, func(c *cutter, i int) skillTerms {
		var w *[2][]string
		if words != nil {
			w = &words[i]
		}
		return c.cut(i, &cat.Skills[i], w, der, opt)
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
			Name: s.Name, Description: s.Description, Source: s.Source,
			Enhances: s.Enhances, Conflicts: s.Conflicts,
			Keywords: st.keywords, Derived: st.derived,
			Length: float64(st.keywords) + lengthOfTextTerm*float64(st.fieldTerms[0]+st.fieldTerms[1]),
		}
		if opt.Release {
			pending = append(pending, i)
			release(int(hashed.Load()))
		}
	})
	ix.Skills = NewSkillTable(infos)
	der = nil
	if opt.Cuts != nil {
		opt.Cuts.done(b.terms, b.weights) // the words the index is built from are copied into it
	}
	if opt.Release {
		ix.SourceHash = <-hashSum
		release(n)
	} else {
		ix.SourceHash = SourceHash(cat, syn, opt)
	}
	ix.Dict = dict
	if len(derivedWords) > 0 {
		ix.Dict = table.New(tokenize.HanWords(append(dictWords, derivedWords...)))
	}
	b.layout(ix, workers)

	total := 0.0
	for i := range n {
		total += ix.Skills.Length(i)
	}
	if n > 0 {
		ix.AvgLength = total / float64(n)
	}
	// Before segmenting, which reorders each term's postings by impact:
	// the glossary reads them.
	ix.Glossary = tokenize.CompileGlossary(opt.Glossary, ix.reaches, ix.listed, syn)
	ix.buildSegments(workers)
	if !ix.Skills.plugins {
		ix.pluginOnce.Do(func() { ix.plugins = map[string]int{} }) // as after loading
	}
	return ix
}

// skillTerms is one skill cut into terms.
type skillTerms struct {
	// Entries in field order (keywords by tier, description, body), so
	// that a term's postings in a skill come in field order.
	entries      []termEntry
	keywords     int    // distinct (term, tier) keywords
	fieldTerms   [2]int // distinct terms of the description and of the body
	derived      bool
	derivedWords []string
	words        [2][]string // the first pass of a derivation: description and body words

	// With a cut cache, a skill of written keywords has a record
	// (cutcache.go): key is its recordKey, and cached, when set, its
	// record from the last compile, which entries then leave empty.
	keyed  bool
	key    cutKey
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
	norms  map[string]string // keywords normalised so far (see normalize)
}

// normLimit bounds a cutter's memo of normalised keywords. Keywords
// repeat across skills (a generated catalog of 10,000 skills writes
// 740,000 keywords, of fewer than 27,000 distinct terms), and normalising
// each anew (stemming, allocating) was a third of a recompile's cutting.
const normLimit = 1 << 16

// normalize is the tokenizer's Normalize, remembered.
func (c *cutter) normalize(text string) string {
	if n, ok := c.norms[text]; ok {
		return n
	}
	n := c.tok.Normalize(text)
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
// triggers) and body into words.
func (c *cutter) words(s *skills.Skill) [2][]string {
	if c.cuts != nil {
		return c.cuts.words(s, c.cutWords)
	}
	return c.cutWords(s)
}

func (c *cutter) cutWords(s *skills.Skill) [2][]string {
	return [2][]string{c.tok.Words(s.Text()), c.tok.Words(s.Body)}
}

// cut cuts skill i into its terms: its keywords (derived with der when it
// has none or opt says so) and its text fields' words, given in words
// when a first pass cut them.
func (c *cutter) cut(i int, s *skills.Skill, words *[2][]string, der *deriver, opt Options) skillTerms {
	var st skillTerms
	if c.cuts != nil && !opt.DeriveKeywords && len(s.Keywords) > 0 {
		st.keyed, st.key = true, recordKey(s)
		if rec, ok := c.cuts.record(st.key); ok {
			st.cached, st.rec, st.keywords, st.fieldTerms = &rec, rec.raw, rec.keywords, rec.fieldTerms
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
		w = c.cutWords(s)
		c.cuts.cut.Add(1)
	default:
		w = c.words(s)
	}
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
			term = c.normalize(k.Text)
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
type builder struct {
	n          int
	ids        map[string]uint32
	terms      []string // by id
	keyword    []bool   // by id: some skill has it as a keyword
	dfKeyword  []uint32 // by id: skills with it in a keyword field
	dfText     []uint32 // by id: skills with it in a text field
	lastKw     []uint32 // by id: 1 + the last skill counted in dfKeyword
	lastText   []uint32
	entries    [][]entry   // in blocks of blockSize: no copy of them all as they grow
	count      uint32      // entries so far
	skillEnds  []uint32    // skill i's entries end at skillEnds[i]
	fieldTerms [][2]uint32 // skill i's distinct description and body terms
	fieldSum   [2]float64  // the same, summed over skills
	weights    []float64
	weightNums map[float64]uint32

	// Records from the last compile (cutcache.go) are numbered by its
	// terms and weights: cuts holds those tables, and remapTerm and
	// remapWeight map each number to this builder's, plus one (0: not
	// met yet).
	cuts        *CutCache
	remapTerm   []uint32
	remapWeight []uint32
	recBuf      []byte
}

func newBuilder(n int, cuts *CutCache) *builder {
	b := &builder{n: n, ids: map[string]uint32{}, weightNums: map[float64]uint32{}, skillEnds: make([]uint32, 0, n), fieldTerms: make([][2]uint32, 0, n), cuts: cuts}
	if cuts != nil {
		b.remapTerm, b.remapWeight = make([]uint32, len(cuts.terms)), make([]uint32, len(cuts.wts))
	}
	return b
}

// termID returns the number of term, numbering it if it is new.
func (b *builder) termID(term string) uint32 {
	id, ok := b.ids[term]
	if !ok {
		id = uint32(len(b.terms))
		term = strings.Clone(term) // term may be a slice of a whole body
		b.ids[term] = id
		b.terms = append(b.terms, term)
		b.keyword = append(b.keyword, false)
		b.dfKeyword, b.dfText = append(b.dfKeyword, 0), append(b.dfText, 0)
		b.lastKw, b.lastText = append(b.lastKw, 0), append(b.lastText, 0)
	}
	return id
}

// weightNum returns the number of keyword weight w, numbering it if it is new.
func (b *builder) weightNum(w float64) uint32 {
	num, ok := b.weightNums[w]
	if !ok {
		num = uint32(len(b.weights))
		b.weightNums[w] = num
		b.weights = append(b.weights, w)
	}
	return num
}

// add merges the next skill: its entries, or its record from the last
// compile, whose numbers become this builder's on the way, in the order
// cutting would have met them, so the builder ends as a cold compile's.
func (b *builder) add(st *skillTerms) {
	skill := uint32(len(b.skillEnds)) + 1 // as stored in lastKw and lastText
	if st.cached != nil {
		st.cached.each(func(term uint32, field Field, value uint32) {
			id := b.remapTerm[term]
			if id == 0 {
				id = b.termID(b.cuts.terms[term]) + 1
				b.remapTerm[term] = id
				b.cuts.num.noteTerm(id-1, term)
			}
			if field.IsKeyword() {
				num := b.remapWeight[value]
				if num == 0 {
					num = b.weightNum(b.cuts.wts[value]) + 1
					b.remapWeight[value] = num
					b.cuts.num.noteWeight(num-1, value)
				}
				value = num - 1
			}
			b.put(skill, id-1, field, value)
		})
	} else {
		for _, e := range st.entries {
			id := b.termID(e.term)
			var value uint32
			if e.field.IsKeyword() {
				value = b.weightNum(e.value)
			} else {
				value = uint32(min(e.value, valueMask))
			}
			b.put(skill, id, e.field, value)
		}
	}
	b.skillEnds = append(b.skillEnds, b.count)
	b.fieldTerms = append(b.fieldTerms, [2]uint32{uint32(st.fieldTerms[0]), uint32(st.fieldTerms[1])})
	b.fieldSum[0] += float64(st.fieldTerms[0])
	b.fieldSum[1] += float64(st.fieldTerms[1])
}

// put adds an entry of skill (numbered from 1) and counts its term's
// document frequency.
func (b *builder) put(skill, id uint32, field Field, value uint32) {
	if field.IsKeyword() {
		b.keyword[id] = true
		if b.lastKw[id] != skill {
			b.lastKw[id] = skill
			b.dfKeyword[id]++
		}
	} else if b.lastText[id] != skill {
		b.lastText[id] = skill
		b.dfText[id]++
	}
	if b.count%blockSize == 0 {
		b.entries = append(b.entries, make([]entry, 0, blockSize))
	}
	last := &b.entries[len(b.entries)-1]
	*last = append(*last, entry{id, uint32(field)<<fieldShift | value})
	b.count++
}

// keepRecord keeps the skill just added as a record for the next compile.
func (b *builder) keepRecord(st *skillTerms) {
	from := uint32(0)
	if len(b.skillEnds) > 1 {
		from = b.skillEnds[len(b.skillEnds)-2]
	}
	to := b.count
	b.recBuf = b.cuts.keepRecord(st.key, st.rec, st.keywords, st.fieldTerms, func(yield func(entry) bool) {
		for i := from; i < to; i++ {
			if !yield(b.entry(i)) {
				return
			}
		}
	}, int(to-from), b.terms, b.weights, b.recBuf)
}

// run is a run of skills' entries, from entry from (skill firstSkill's
// first) to entry to, that one worker lays out.
type run struct {
	firstSkill int
	from, to   uint32
}

// layoutPart is the fewest entries worth a worker of their own in the
// layout (a variable for the tests, which lay small catalogs out on
// several).
var layoutPart = 1 << 16

// runs cuts the skills into at most workers runs of about equal entries.
func (b *builder) runs(workers int) []run {
	parts := max(1, min(workers, int(b.count)/layoutPart))
	var out []run
	skill := 0
	for k := range parts {
		r := run{firstSkill: skill}
		if skill > 0 {
			r.from = b.skillEnds[skill-1]
		}
		share := uint32(uint64(b.count) * uint64(k+1) / uint64(parts))
		for skill < len(b.skillEnds) && (k == parts-1 || b.skillEnds[skill] <= share) {
			skill++
		}
		r.to = r.from
		if skill > 0 {
			r.to = b.skillEnds[skill-1]
		}
		if r.to > r.from || k == parts-1 {
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

// entry returns entry number i.
func (b *builder) entry(i uint32) entry { return b.entries[i/blockSize][i%blockSize] }

// layout sorts the terms, lays the postings out by term (a counting sort:
// skills in order, a skill's fields in order), with tf-idf weights, and
// indexes the keyword terms by trigram.
func (b *builder) layout(ix *Index, workers int) {
	order := make([]uint32, len(b.terms)) // ids by term
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(x, y uint32) int { return cmp.Compare(b.terms[x], b.terms[y]) })
	rank := make([]uint32, len(b.terms)) // id -> position in order
	sorted := make([]string, len(b.terms))
	for r, id := range order {
		rank[id] = uint32(r)
		sorted[r] = b.terms[id]
	}
	ix.Terms = table.New(sorted)
	ix.TextDF = make([]uint32, len(order))
	for r, id := range order {
		ix.TextDF[r] = b.dfText[id]
	}

	// The skills are shared out in runs of about equal postings, one per
	// worker; each counts its run's postings per term, and lays them out
	// after those of the runs before it, so each term's postings come in
	// skill order as from one worker (TestCompileParallel). At 100,000
	// skills the layout, one after the other, was 1.6 s of a recompile.
	runs := b.runs(workers)
	counts := make([][]uint32, len(runs)) // by run and term rank
	parallelRuns(runs, func(k int, r run) {
		c := make([]uint32, len(b.terms))
		for i := r.from; i < r.to; i++ {
			c[rank[b.entry(i).term]]++
		}
		counts[k] = c
	})
	starts := make([]uint32, len(b.terms)+1)
	for t := range b.terms {
		at := starts[t]
		for _, c := range counts {
			at, c[t] = at+c[t], at // c becomes the run's next position
		}
		starts[t+1] = at
	}
	ix.Starts = starts
	total := int(b.count)
	ix.PostSkill = make([]uint32, total)
	ix.PostWeight = make([]float32, total)
	ix.PostField = make([]uint8, total)
	// Trigrams of the keyword terms need only the terms: built while the
	// postings are laid out.
	var grams sync.WaitGroup
	grams.Go(func() { b.trigrams(ix, order) })
	defer grams.Wait()
	// Each term's IDFs once, not once per posting (3 million at 10,000
	// skills, each a logarithm).
	idfKw := make([]float64, len(b.terms))
	idfTx := make([]float64, len(b.terms))
	for id := range b.terms {
		idfKw[id] = IDF(b.n, int(b.dfKeyword[id]))
		idfTx[id] = TextIDF(b.n, int(b.dfText[id]))
	}
	// And 1 + ln(count) per count, for the counts text terms reach most.
	var logTF [64]float64
	for v := 1; v < len(logTF); v++ {
		logTF[v] = 1 + math.Log(float64(v))
	}
	tf := func(v uint32) float64 {
		if v < uint32(len(logTF)) {
			return logTF[v]
		}
		return 1 + math.Log(float64(v))
	}
	// Text fields are length-normalised each on its own (BM25F): a long
	// playbook holds every common word several times, and would otherwise
	// collect more of a prompt's words than a short one that is about
	// them. The average is over the whole catalog, known only now.
	var avg [2]float64
	for f := range avg {
		avg[f] = max(1, b.fieldSum[f]/float64(max(1, b.n)))
	}
	parallelRuns(runs, func(k int, r run) {
		next := counts[k]
		i := r.from
		for skill := r.firstSkill; i < r.to; skill++ {
			var norm [2]float64
			for f := range norm {
				norm[f] = 1 - TextFieldB + TextFieldB*float64(b.fieldTerms[skill][f])/avg[f]
			}
			for end := b.skillEnds[skill]; i < end; i++ {
				if i%blockSize == 0 && i > r.from && i-blockSize >= r.from {
					b.entries[i/blockSize-1] = nil // laid out, and the run's alone: the collector may have it back
				}
				e := b.entry(i)
				field := Field(e.code >> fieldShift)
				value := e.code & valueMask
				var w float64
				switch field {
				case FieldDescription:
					w = DescriptionWeight * tf(value) / norm[0] * idfTx[e.term]
				case FieldBody:
					w = BodyWeight * tf(value) / norm[1] * idfTx[e.term]
				default:
					w = b.weights[value] * idfKw[e.term]
				}
				r := rank[e.term]
				p := next[r]
				next[r]++
				ix.PostSkill[p] = uint32(skill)
				ix.PostField[p] = uint8(field)
				ix.PostWeight[p] = float32(w)
			}
		}
	})
	b.entries = nil // the largest thing built; the layout is done with it
}

// trigrams indexes the keyword terms by trigram, in term order (order:
// the terms' numbers by term), so that each gram's list comes sorted.
func (b *builder) trigrams(ix *Index, order []uint32) {
	grams := map[string][]uint32{}
	var gramList []string
	for r, id := range order {
		if !b.keyword[id] {
			continue
		}
		for _, g := range trigrams(b.terms[id]) {
			l, ok := grams[g]
			if !ok {
				gramList = append(gramList, g)
			}
			grams[g] = append(l, uint32(r))
		}
	}
	slices.Sort(gramList)
	ix.Grams = table.New(gramList)
	ix.GramStarts = make([]uint32, 0, len(gramList)+1)
	for _, g := range gramList {
		ix.GramStarts = append(ix.GramStarts, uint32(len(ix.GramTerms)))
		ix.GramTerms = append(ix.GramTerms, grams[g]...)
	}
	ix.GramStarts = append(ix.GramStarts, uint32(len(ix.GramTerms)))
}
