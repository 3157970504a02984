package index

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillroute/skillroute/internal/table"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
	"github.com/skillroute/skillroute/tokenize"
)

// Reusing the last compile's postings. A term's postings, segments and
// impact levels depend on the skills that use it (their entries, their
// field lengths and lengths), on the number of skills, on its document
// frequencies and on the catalog's average lengths, which sit on a grid
// (gridAverage) that one edit among many skills rarely moves. So when a
// recompile has the skills of the last compile, by name and in order,
// and the same averages, every term that no changed skill uses, before or
// after its change, is what it was: its postings are copied from the last
// index, and only the terms the changed skills touch are laid out and
// segmented afresh. The index is the one a cold compile writes, byte for
// byte (TestRecompileReusesPostings). A changed skill is one whose
// ContentSum differs from the last compile's, kept beside its index
// (SaveSums): one whose entries came from the cut cache is not assumed
// unchanged, since the cache may hold a record of another compile.
//
// The terms a changed skill used before its change are found without
// reading its old postings: they are the terms it uses now (touched) and
// those whose postings shrank. Its old field lengths, which the check of
// the averages needs, are counted from the old postings of those terms.
// The layout's first pass, which counts every entry, keeps the entries of
// the touched terms; a shrunk term's are read from the skills its old
// postings name; no other entry is read twice. At 100,000 generated
// skills, after a line appended to one SKILL.md, laying out, indexing
// trigrams and segmenting took 4.6 s of a recompile's 10.8 s of CPU, and
// take 1.6 s (perf record at 499 Hz, BENCHMARKS.md).

// sumsKind and sumsVersion frame the file of a compile's skill sums.
const (
	sumsKind    = "sums"
	sumsVersion = 1
)

// reuseShare bounds the postings a recompile lays out afresh, as a share
// of all, past which it lays every term out as a cold compile does: a
// bound against copying most of a file for little, not tuned (one edit
// among 300 generated skills lays out an eighth afresh; among 100,000,
// far less).
const reuseShare = 0.5

// Previous is the last compile of a catalog, which a recompile may take
// the postings of unchanged terms from (Options.Previous): its skills'
// ContentSums and names, and its index, read in place from its file
// only once the recompile knows it has the same skills (open): at 100,000
// skills, checking the file's checksum reads 386 MB.
type Previous struct {
	path    string // the index file
	context string
	source  string // the index's SourceHash
	names   string // and its NamesHash
	sums    []skills.Sum
	ix      *Index // once opened
	evict   func()
}

// LoadPrevious reads the sums the compile of the index file at indexPath
// saved at sumsPath (Index.SaveSums); the index is read when a compile
// needs it. Sums damaged or missing are an error, and an index that turns
// out damaged, or not the one the sums were saved with, is not used: the
// compile is then a cold one.
func LoadPrevious(indexPath, sumsPath string) (*Previous, error) {
	data, err := store.LoadCache(sumsPath, sumsKind, sumsVersion)
	if err != nil {
		return nil, err
	}
	r := reader{data: data}
	p := &Previous{path: indexPath, context: strings.Clone(r.str()), source: strings.Clone(r.str()), names: strings.Clone(r.str())}
	n := r.length(len(skills.Sum{}))
	p.sums = make([]skills.Sum, n)
	for i := range p.sums {
		copy(p.sums[i][:], r.data[len(skills.Sum{})*i:])
	}
	r.skip(len(skills.Sum{}) * n)
	if r.err != nil || len(r.data) != 0 {
		return nil, fmt.Errorf("%s: damaged skill sums", sumsPath)
	}
	return p, nil
}

// open reads the index, in place; an error if it is damaged or not the
// one the sums were saved with.
func (p *Previous) open() error {
	payload, evict, err := store.MapCache(p.path, cacheKind, FormatVersion)
	if errors.Is(err, store.ErrVersion) {
		return fmt.Errorf("%s: %w", p.path, ErrStale)
	}
	if err != nil {
		return err
	}
	ix, err := decode(p.path, payload)
	evict() // the checksum read every page: they come back as the copy needs them
	if err != nil {
		return err
	}
	if ix.SourceHash != p.source || ix.NamesHash != p.names || ix.Skills.Len() != len(p.sums) {
		return fmt.Errorf("%s: not the index its sums were saved with", p.path)
	}
	p.ix, p.evict = ix, evict
	return nil
}

// release drops the index's pages from memory, if it was read.
func (p *Previous) release() {
	if p.evict != nil {
		p.evict()
	}
}

// SaveSums writes what a later compile needs besides this index to reuse
// its postings (LoadPrevious): its skills' ContentSums and what cutting
// them depended on. An index that was loaded, not compiled, has none, and
// writes nothing.
func (ix *Index) SaveSums(path string) error {
	if ix.sums == nil {
		return nil
	}
	var buf bytes.Buffer
	w := writer{&sink{w: &buf}}
	w.str(ix.context)
	w.str(ix.SourceHash)
	w.str(ix.NamesHash)
	w.num(uint64(len(ix.sums)))
	for i := range ix.sums {
		w.s.write(ix.sums[i][:])
	}
	return store.WriteCacheNoSync(path, sumsKind, sumsVersion, buf.Bytes())
}

// Reused returns how many terms the compile of ix copied from the last
// compile's index (Options.Previous); 0 when it laid every term out.
func (ix *Index) Reused() int { return ix.reused }

// compileContext is what, besides the skills, every skill's entries are
// cut by: the cut cache's identity (the binary, the format and the
// dictionary), the options, the synonyms and the glossary.
func compileContext(cuts *CutCache, syn *tokenize.Synonyms, opt Options) string {
	return cuts.ident + "\x00" + newSourceHasher(opt).sum(syn)
}

// reuse is a recompile's plan for taking postings from the last index.
type reuse struct {
	prev    *Index
	changed []int  // the skills whose sums differ from the last compile's
	touched []bool // by term id: used by a changed skill now
	// kept is, by run of the layout, the entries of the touched terms,
	// gathered as the layout first counts the entries, so that laying
	// them out reads no entry again; nil past keptShare of the entries.
	kept [][]keptEntry
	// By new term rank: the old term's rank, or -1 where the term is laid
	// out afresh.
	old []int32
	// By term id: whether its postings are copied; and whether it is a
	// term a changed skill used before only (its postings shrank).
	cleanID, shrunkID []bool
	shrunk            []int32 // the old ranks of those
	keep              int     // about how many entries kept holds
	sameGrams         bool    // the old trigrams are the new
	damaged           bool    // some term is laid out afresh for neither reason
	terms             int     // how many terms are copied
	evict             func()
}

// keptEntry is an entry of skill with a touched term (reuse.kept).
type keptEntry struct {
	skill uint32
	e     entry
}

// keptShare bounds reuse.kept, as a share of a run's entries: past it
// the layout reads every entry again instead of holding them twice (the
// changed skills use the commonest words). Not tuned: two edited skills
// among 300 pass it (TestRecompileReusesPostings takes both ways).
const keptShare = 0.25

// startReuse begins the plan of a recompile that may reuse prev's
// postings: the changed skills and the terms they use now. Nil where it
// may not: other skills (names, their number), another context, other
// averages, or an index that cannot be read.
func (b *builder) startReuse(prev *Previous, sums []skills.Sum, context, names string, avgLength float64) *reuse {
	n := b.n
	if prev.context != context || prev.names != names || len(prev.sums) != n {
		return nil
	}
	if prev.ix == nil && prev.open() != nil {
		return nil
	}
	old := prev.ix
	if old.AvgLength != avgLength {
		return nil
	}
	ru := &reuse{prev: old, evict: prev.evict, touched: make([]bool, len(b.terms))}
	var scratch []entry
	for i := range n {
		if sums[i] != prev.sums[i] {
			ru.changed = append(ru.changed, i)
			for _, e := range b.skillEntries(i, &scratch) {
				if !ru.touched[e.term] {
					ru.touched[e.term] = true
					// About as many postings as it had: the layout's
					// first pass keeps them in lists made this large
					// (grown by append, growslice was 40 % of the pass
					// at 100,000 skills: perf record).
					if o := old.Terms.Find(b.terms[e.term]); o >= 0 {
						ru.keep += int(old.Starts[o+1] - old.Starts[o])
					}
				}
				ru.keep++
			}
		}
	}
	return ru
}

// planReuse completes the plan once the layout has counted and sorted
// the terms (order, starts), before it lays any posting out, with the
// field averages this compile uses; nil where too many postings changed,
// or the last compile's averages were others.
func (b *builder) planReuse(ru *reuse, order []uint32, starts []uint32, avg [2]float64) *reuse {
	old := ru.prev
	n := b.n
	var newLen [2]float64 // the changed skills' field lengths now
	for _, s := range ru.changed {
		newLen[0] += float64(b.fieldTerms[s][0])
		newLen[1] += float64(b.fieldTerms[s][1])
	}
	// Each new term's old rank, by the two sorted term lists; a term is
	// copied where it is the same term, with as many postings, untouched.
	ru.old = make([]int32, len(order))
	ru.cleanID, ru.shrunkID = make([]bool, len(b.terms)), make([]bool, len(b.terms))
	isChanged := make([]bool, n)
	for _, s := range ru.changed {
		isChanged[s] = true
	}
	var oldLen [2]float64 // the changed skills' field lengths before
	fresh := 0            // postings laid out afresh
	o, on := 0, old.Terms.Len()
	for r, id := range order {
		term := b.terms[id]
		for o < on && old.Terms.At(o) < term {
			ru.countOld(o, isChanged, &oldLen) // a term gone: a changed skill used it
			o++
		}
		ru.old[r] = -1
		if o < on && old.Terms.At(o) == term {
			whole := old.segmentsWhole(o)
			switch {
			case !ru.touched[id] && starts[r+1]-starts[r] == old.Starts[o+1]-old.Starts[o] && whole:
				ru.old[r] = int32(o)
				ru.cleanID[id] = true
				ru.terms++
			case !ru.touched[id] && whole:
				ru.shrunkID[id] = true // a changed skill used it before
				ru.shrunk = append(ru.shrunk, int32(o))
				ru.countOld(o, isChanged, &oldLen)
			case !ru.touched[id]:
				ru.damaged = true
			default:
				ru.countOld(o, isChanged, &oldLen)
			}
			o++
		} else if !ru.touched[id] {
			ru.damaged = true // new, yet no changed skill uses it
		}
		if ru.old[r] < 0 {
			fresh += int(starts[r+1] - starts[r])
		}
	}
	for ; o < on; o++ {
		ru.countOld(o, isChanged, &oldLen)
	}
	if float64(fresh) > reuseShare*float64(b.total) {
		return nil
	}
	// The trigrams index the keyword terms by rank: the same terms, each
	// a keyword term as before, make the same trigrams.
	ru.sameGrams = len(order) == on
	for r, id := range order {
		if !ru.sameGrams {
			break
		}
		switch {
		case ru.old[r] >= 0:
			ru.sameGrams = int(ru.old[r]) == r
		default:
			ru.sameGrams = old.Terms.At(r) == b.terms[id] && old.segmentsWhole(r) && old.listedAt(r) == (b.dfKeyword[id] > 0)
		}
	}
	// The averages the last compile used: its field sums are this
	// compile's, less the changed skills' lengths now, plus theirs before.
	for f := range avg {
		was := max(1, gridAverage((b.fieldSum[f]-newLen[f]+oldLen[f])/float64(max(1, n))))
		if was != avg[f] {
			return nil
		}
	}
	return ru
}

// shrunkSkills marks the skills, other than the changed ones, that use a
// term whose postings shrank: the skills of its old postings.
func (ru *reuse) shrunkSkills(n int) []bool {
	marked := make([]bool, n)
	old := ru.prev
	for _, o := range ru.shrunk {
		for _, s := range old.PostSkill[old.Starts[o]:old.Starts[o+1]] {
			if int(s) < n {
				marked[s] = true
			}
		}
	}
	for _, s := range ru.changed {
		marked[s] = false // their entries are kept (touched terms only)
	}
	return marked
}

// countOld adds to lens the field lengths that the changed skills'
// postings of old term o counted: a posting of a description or body
// word (not a phrase) is one distinct word of its field.
func (ru *reuse) countOld(o int, isChanged []bool, lens *[2]float64) {
	old := ru.prev
	if isPhrase(old.Terms.At(o)) {
		return
	}
	from, to := old.Starts[o], old.Starts[o+1]
	if from > to || int(to) > len(old.PostSkill) {
		return
	}
	for p := from; p < to; p++ {
		if s := old.PostSkill[p]; int(s) < len(isChanged) && isChanged[s] {
			switch Field(old.PostField[p]) {
			case FieldDescription:
				lens[0]++
			case FieldBody:
				lens[1]++
			}
		}
	}
}

// segmentsWhole reports whether old term o's postings and segments are
// whole, as a compile writes them, so that copying them cannot go out of
// range: a damaged file's term is laid out afresh.
func (ix *Index) segmentsWhole(o int) bool {
	from, to := ix.Starts[o], ix.Starts[o+1]
	if from >= to || int(to) > len(ix.PostSkill) || len(ix.PostExact) != len(ix.PostSkill) || len(ix.PostPartial) != len(ix.PostSkill) ||
		len(ix.PostWeight) != len(ix.PostSkill) || len(ix.PostField) != len(ix.PostSkill) {
		return false
	}
	a, b := ix.TermSegs[o], ix.TermSegs[o+1]
	if a >= b || int(b) > len(ix.ExactBound) || len(ix.PartialBound) != len(ix.ExactBound) || len(ix.SegStart) != len(ix.ExactBound)+1 {
		return false
	}
	if ix.SegStart[a] != from || ix.SegStart[b] != to {
		return false
	}
	for j := a; j < b; j++ {
		if ix.SegStart[j] >= ix.SegStart[j+1] {
			return false
		}
	}
	return true
}

// copier copies terms' postings from the last index, a run of
// neighbouring terms at a time: most terms reach a few skills, and a run
// takes five copies where each term would.
type copier struct {
	ix       *Index
	ru       *reuse
	from, to uint32 // the run's postings in the new index
	oldFrom  uint32 // and where they start in the old
	copied   int    // bytes copied since the old pages were last dropped
}

// evictEvery is how many bytes of the old index's postings a copier
// copies before it drops the old pages from memory: at 100,000 skills
// they are 386 MB, which would otherwise stay resident beside the new.
const evictEvery = 32 << 20

// term copies old term o's segments as new term t's, and adds its
// postings to the run.
func (c *copier) term(t, o int, out *segmentsOut) {
	ix, old := c.ix, c.ru.prev
	from, to := ix.Starts[t], ix.Starts[t+1]
	of := old.Starts[o]
	if c.from == c.to || c.oldFrom+(c.to-c.from) != of || c.to != from {
		c.flush()
		c.from, c.to, c.oldFrom = from, from, of
	}
	c.to = to
	out.termSegs = append(out.termSegs, uint32(len(out.exact)))
	for j := old.TermSegs[o]; j < old.TermSegs[o+1]; j++ {
		out.segStart = append(out.segStart, old.SegStart[j]-of+from)
		out.exact = append(out.exact, old.ExactBound[j])
		out.partial = append(out.partial, old.PartialBound[j])
	}
}

// flush copies the run's postings.
func (c *copier) flush() {
	if c.from == c.to {
		return
	}
	ix, old := c.ix, c.ru.prev
	a, b, oa := c.from, c.to, c.oldFrom
	ob := oa + (b - a)
	copy(ix.PostSkill[a:b], old.PostSkill[oa:ob])
	copy(ix.PostWeight[a:b], old.PostWeight[oa:ob])
	copy(ix.PostField[a:b], old.PostField[oa:ob])
	copy(ix.PostExact[a:b], old.PostExact[oa:ob])
	copy(ix.PostPartial[a:b], old.PostPartial[oa:ob])
	c.from, c.to = 0, 0
	if c.copied += 11 * int(b-a); c.copied > evictEvery && c.ru.evict != nil {
		c.ru.evict()
		c.copied = 0
	}
}

// listedAt reports whether some posting of term o is a keyword's.
func (ix *Index) listedAt(o int) bool {
	for _, f := range ix.PostField[ix.Starts[o]:ix.Starts[o+1]] {
		if Field(f).IsKeyword() {
			return true
		}
	}
	return false
}

// copyGrams makes the old index's trigrams the new index's, copied out of
// the old file.
func (ru *reuse) copyGrams(ix *Index) {
	old := ru.prev
	ix.Grams = table.Strings{Blob: strings.Clone(old.Grams.Blob), Off: slices.Clone(old.Grams.Off)}
	ix.GramStarts = slices.Clone(old.GramStarts)
	ix.GramTerms = slices.Clone(old.GramTerms)
}
