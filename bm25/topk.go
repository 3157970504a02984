package bm25

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/tokenize"
)

// TopK returns the k best skills for the query, in Sort's order, and with
// them every skill of also (skill ids) that the query matches: exactly the
// results ScoreWith gives for those skills, found without scoring the
// rest. The router asks for the few candidates it lists plus those its
// later stages may raise (session signals, rule boosts) or lower (rule
// penalties); routing is then the same as over every skill
// (TestTopKExact, TestRouteGolden).
//
// It prunes with the bounds that the index keeps of each posting's score
// (index.Index.PostExact, PostPartial). Each word of the prompt, with its
// synonyms and the keywords containing it, adds at most one match to a
// skill's score (ScoreWith's one-to-one assignment), worth at most the
// bound of the skill's posting × the query term's weight. A first pass
// sums, per skill, those bounds over the words that reach it; only the
// skills whose sum reaches the k-th best score are looked at further,
// the highest sums first, and few of them scored (sift). On 100,000
// generated skills (`skillroute bench gen`) a prompt reaches 74,000
// skills and 7 are scored, for the same results (TestTopKExact;
// BenchmarkTopK times both).
//
// With an adjuster it prunes only if the adjuster is Bounded; otherwise it
// scores every skill and cuts, as it does on a small catalog
// (smallCatalog).
func TopK(ix *index.Index, q tokenize.Query, adj Adjuster, k int, also []int) []Result {
	kwScale, skillScale := 1.0, 1.0
	if adj != nil {
		b, ok := adj.(Bounded)
		if !ok {
			return cut(ScoreWith(ix, q, adj), k, also)
		}
		kd, sd := b.MaxDeltas()
		kwScale, skillScale = max(1, 1+kd), max(1, 1+sd)
	}
	if ix.Skills.Len() <= smallCatalog {
		return cut(ScoreWith(ix, q, adj), k, also)
	}
	return pruned(ix, q, adj, k, also, kwScale, skillScale)
}

// named adds to also the skills a query term names and those whose names
// the prompt spells in words (NameBoost): the bounds do not count the
// boost, so they are scored whatever their bounds.
func named(ix *index.Index, q tokenize.Query, spelled []spelling, also []int) []int {
	for _, sp := range spelled {
		if !slices.Contains(also, sp.skill) {
			also = append(also, sp.skill)
		}
	}
	for i := range q.Terms {
		for _, w := range [2]string{q.Terms[i].Text, q.Terms[i].Surface} {
			if id := ix.Named(w); id >= 0 && !slices.Contains(also, id) {
				also = append(also, id)
			}
		}
	}
	return also
}

// smallCatalog is the most skills TopK scores all of rather than prune:
// on the 50 built-in skills, whose keywords the dev prompts reach widely,
// scoring every skill took 121 µs a prompt against pruning's 150
// (BenchmarkTopKBuiltin), and a hook process 0.5 M fewer instructions of
// 4.9 M (cachegrind, BENCHMARKS.md's sixth pass); on bookworm's 66 skills,
// a whole route 0.350 M instructions against pruning's 0.582 M
// (BenchmarkRouteBookworm, cachegrind, session 25). Generated catalogs,
// whose common words reach most skills, favour pruning sooner
// (BenchmarkTopKSizes: at 66 skills 50 against 90 µs a query, at 100 51
// against 114, at 500 60 against 394), but users' catalogs of a few
// dozen skills are what the hook meets most.
// The results are the same (TestTopKExact).
const smallCatalog = 100

// pruned is TopK's pruned search, for a catalog of any size.
func pruned(ix *index.Index, q tokenize.Query, adj Adjuster, k int, also []int, kwScale, skillScale float64) []Result {
	p := pruner{ix: ix, adj: adj, spelled: spelledNames(ix, q)}
	p.reach(q, kwScale)
	if len(p.cursors) == 0 {
		return nil
	}
	p.sift(k, skillScale, restBound)
	return p.results(named(ix, q, p.spelled, also))
}

// Bounded is an Adjuster that can say how far it raises weights, which
// lets TopK keep pruning with it: learned deltas scale a keyword's tf by
// at most 1 + keyword and a skill's score by at most 1 + skill.
type Bounded interface {
	Adjuster
	MaxDeltas() (keyword, skill float64)
}

// boundSlack widens bounds against rounding: the scorer and the bounds
// compute the same products in a different order, which can differ in the
// last bits (1e-16 relative), never by a millionth of that.
const boundSlack = 1e-9

// unpacked reports whether the matches of query term qt (partial or
// exact) are left out of packing: never lowered as overlaps.
func unpacked(qt *tokenize.Term, partial bool) bool {
	m := Match{Query: qt.Text, Partial: partial, Compound: qt.Compound, Pos: qt.Pos, End: qt.End}
	return m.End <= m.Pos || wordPhrase(&m)
}

// scaled bounds the score of a match whose tf is c × that of a match
// scoring s at most (at query weight 1). BM25's saturation tf × (k1 +
// 1) / (tf + norm) gives c × s at most for c ≥ 1, and for c < 1 exactly
// c × s × (k1 + 1) / (k1 + 1 − (1 − c) × s), whatever the skill's length
// (norm cancels), rising with s. A partial match of a common word
// (rarity 0.05) scores far below its posting's bound: bounded by the
// posting alone, "error" inside every "error handling" keyword left
// thousands of skills to score on 100,000 generated ones.
func scaled(s, c float64) float64 {
	if c >= 1 {
		return c * s
	}
	if s >= K1+1 { // beyond any score: only a rounded bound
		return s
	}
	return c * s * (K1 + 1) / (K1 + 1 - (1-c)*s)
}

// cut keeps the first k results and those of the skills in also.
func cut(rs []Result, k int, also []int) []Result {
	out := rs[:0]
	for i, r := range rs {
		if i < k || slices.Contains(also, r.Skill) {
			out = append(out, r)
		}
	}
	return out
}

// cursor walks, in skill order, the postings that a query term reaches:
// one impact segment of one index term, or, merged, the postings of the
// many small index terms it partly matches ("react" in a thousand "react
// ..." keywords of one skill each), which would otherwise be a cursor
// each: at 30,000 generated skills, two thirds of all cursors.
type cursor struct {
	qt      *tokenize.Term
	kwOnly  bool   // qt meets keywords only (keywordsOnly)
	origin  string // the prompt's word behind qt
	word    int    // its number
	term    int    // the index term, unless merged
	partial bool
	rarity  float64   // for a partial match: the prompt word's rarity (ScoreWith); else 1
	bound   float64   // no posting gives its skill more
	skills  []uint32  // the skill of each posting, ascending
	levels  []uint8   // each posting's level of its segment's bound (index.ImpactLevels), unless merged
	step    float64   // the bound of one level, at query weight 1 and tf as compiled
	tf      float64   // the most a match's tf is of its posting's: rarity × learned
	qw      float64   // the query term's weight, widened by boundSlack
	vals    []float64 // merged: the bound of each posting
	base    uint32    // the index of the first posting, unless merged
	posts   []uint32  // merged: the index of each posting
	terms   []int32   // merged: the term of each posting
	at      uint32    // the first posting not yet passed, in skills
	rest    bool      // set aside from the walk (split)
	free    bool      // its matches are never packed (wordPhrase), or have no span
}

// postBound returns the bound of the at-th posting of cursor cu.
func (cu *cursor) postBound(at uint32) float64 {
	if cu.vals != nil {
		return cu.vals[at]
	}
	return cu.levelBound(cu.levels[at])
}

// levelBound returns the bound of a posting of cursor cu (not merged) at
// level l.
func (cu *cursor) levelBound(l uint8) float64 {
	return cu.qw * scaled(float64(l)*cu.step, cu.tf)
}

// posting returns the index of the at-th posting of cursor cu and its
// term.
func (cu *cursor) posting(at uint32) (uint32, int) {
	if cu.posts != nil {
		return cu.posts[at], int(cu.terms[at])
	}
	return cu.base + at, cu.term
}

// mergeBelow is the largest term, in postings, whose partial matches go
// into the query term's merged cursor; larger ones get cursors of their
// own, which can be bounded apart.
const mergeBelow = 16

// merged is one posting of a merged cursor, while it is built.
type merged struct {
	skill, post uint32
	term        int32
	bound       float64
}

// entry is a scored skill in the top-k heap.
type entry struct {
	score float64
	skill uint32
}

type pruner struct {
	ix      *index.Index
	adj     Adjuster
	spelled []spelling // where the prompt spells a skill's name (spelledNames)
	cursors []cursor
	words   []string // origins, by number

	heap   []entry // the k best so far, the worst at the root
	scored int     // skills scored in full while pruning (TestTopKPrunes)

	all  []int // every cursor
	rest []int // the cursors set aside from the walk, by word (split)

	// Scratch for scoring one skill.
	matches  []Match
	order    []int
	chosen   []Match   // the matches that count, in ScoreWith's order
	wordBest []float64 // per word, its best match in the skill being scored
	free     []float64 // per word, its best bound that packing never lowers (bound)
	packed   []span    // per word, its best bound that packing may lower, and its span
	spans    []span
	pack     packing
	fields   []Field
	small    []merged
	keys     []uint64
}

// reach lists, for every query term, the index terms it meets, exactly
// and partially, as ScoreWith visits them: a cursor per impact segment,
// with the small terms it partly matches merged into one.
func (p *pruner) reach(q tokenize.Query, kwScale float64) {
	ix := p.ix
	for i := range q.Terms {
		qt := &q.Terms[i]
		origin := qt.From
		if origin == "" {
			origin = qt.Text
		}
		w := slices.Index(p.words, origin)
		if w < 0 {
			w = len(p.words)
			p.words = append(p.words, origin)
		}
		qw := qt.Weight * (1 + boundSlack)
		smallBound := 0.0
		p.small = p.small[:0]
		rarity := 1.0
		add := func(id int, partial bool) {
			// A partial match's tf is × the word's rarity, and any × the
			// learned deltas at most: a match's bound is its posting's
			// scaled, at the query term's weight.
			c := kwScale
			if partial {
				c *= rarity
			}
			from, to := ix.Segments(id)
			if partial && to-from == 1 {
				if seg := ix.Segment(from); seg.To-seg.From < mergeBelow {
					if seg.Partial > 0 {
						smallBound = max(smallBound, qw*scaled(seg.Partial, c))
						step := seg.Partial / index.ImpactLevels
						for at := seg.From; at < seg.To; at++ {
							b := qw * scaled(float64(ix.PostPartial[at])*step, c)
							p.small = append(p.small, merged{ix.PostSkill[at], at, int32(id), b})
						}
					}
					return
				}
			}
			for j := from; j < to; j++ {
				seg := ix.Segment(j)
				b := seg.Exact
				if partial {
					b = seg.Partial
				}
				if b <= 0 {
					continue // no keyword postings for a partial match
				}
				r, levels := 1.0, ix.PostExact
				if partial {
					r, levels = rarity, ix.PostPartial
				}
				p.cursors = append(p.cursors, cursor{qt: qt, kwOnly: keywordsOnly(qt), origin: origin, word: w, term: id, partial: partial, rarity: r, free: unpacked(qt, partial),
					bound: qw * scaled(b, c), step: b / index.ImpactLevels, tf: c, qw: qw,
					skills: ix.PostSkill[seg.From:seg.To], levels: levels[seg.From:seg.To], base: seg.From})
			}
		}
		id := ix.TermID(qt.Text)
		if id >= 0 {
			add(id, false)
		}
		if !qt.Noise && utf8.RuneCountInString(qt.Text) >= index.MinPartial && !isKeyword(ix, id) {
			// As ScoreWith: a partial match counts the prompt word's
			// rarity in the catalog's texts (at most 1: the bounds hold).
			rarity = partialRarity(ix, id)
			ix.Containing(qt.Text, func(id int) { add(id, true) })
		}
		if len(p.small) > 0 {
			// By skill, then as listed: a skill's postings of one term
			// stay together and in field order. Sorted as one word each
			// (skill and place): by the three fields, the sort was 7 % of
			// TopK on 100,000 generated skills.
			keys := p.keys[:0]
			for j, m := range p.small {
				keys = append(keys, uint64(m.skill)<<32|uint64(j))
			}
			slices.Sort(keys)
			p.keys = keys
			c := cursor{qt: qt, kwOnly: keywordsOnly(qt), origin: origin, word: w, term: -1, partial: true, rarity: rarity, bound: smallBound, free: unpacked(qt, true),
				skills: make([]uint32, len(p.small)), posts: make([]uint32, len(p.small)), terms: make([]int32, len(p.small)),
				vals: make([]float64, len(p.small))}
			for j, key := range keys {
				m := &p.small[uint32(key)]
				c.skills[j], c.posts[j], c.terms[j], c.vals[j] = m.skill, m.post, m.term, m.bound
			}
			p.cursors = append(p.cursors, c)
		}
	}
	p.all = make([]int, len(p.cursors))
	for i := range p.all {
		p.all[i] = i
	}
}

// seek returns the first posting of cursor c at or after skill s, from
// its position (galloping) or, when fresh, from anywhere in it
// (interpolation: locate).
func (p *pruner) seek(c int, s uint32, fresh bool) uint32 {
	cu := &p.cursors[c]
	if fresh {
		return locate(cu.skills, s)
	}
	skills, end := cu.skills, uint32(len(cu.skills))
	lo := cu.at
	if lo >= end || skills[lo] >= s {
		return lo
	}
	// skills[lo] < s: double the step until a posting at or after s.
	step := uint32(1)
	for lo+step < end && skills[lo+step] < s {
		lo += step
		step *= 2
	}
	return search(skills, s, lo, min(lo+step, end))
}

// search returns the first of skills[lo+1:hi] at or after s, or hi,
// where skills[lo] < s and s <= skills[hi] (or hi is the end): a binary
// search.
func search(skills []uint32, s, lo, hi uint32) uint32 {
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if skills[mid] < s {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// locate returns the first of skills (ascending) at or after s, guessing
// where s lies from the skills at the ends of the range left, as they
// spread evenly over a catalog's numbers, and searching the last few
// halves: a guess or two where a binary search reads 17 postings of a
// term that 100,000 skills use. In a hook process each read posting is
// a page the search first touches.
func locate(skills []uint32, s uint32) uint32 {
	end := uint32(len(skills))
	if end == 0 || skills[0] >= s {
		return 0
	}
	if skills[end-1] < s {
		return end
	}
	// skills[lo] < s <= skills[hi].
	lo, hi := uint32(0), end-1
	for range locateGuesses {
		if hi-lo <= 8 {
			break
		}
		a, b := uint64(skills[lo]), uint64(skills[hi])
		g := lo + uint32(uint64(hi-lo)*(uint64(s)-a)/(b-a)) // lo <= g < hi, as a < s <= b
		g = min(max(g, lo+1), hi-1)
		if skills[g] < s {
			lo = g
		} else {
			hi = g
		}
	}
	return search(skills, s, lo, hi)
}

// locateGuesses bounds the guesses of locate, past which it searches by
// halves: numbers that do not spread evenly (a damaged file's) cost a
// few guesses more, never a walk.
const locateGuesses = 4

// score scores skill s as ScoreWith does: every match of a cursor's term
// in s, then the one-to-one assignment, best match first. It reads the
// cursors of list from where they are and moves them past s or, when
// fresh, from anywhere without moving them. The chosen matches are in
// p.chosen, their overlaps marked and discounted; their fields are
// appended to p.fields when keep is set (results), else to a scratch
// slice emptied first.
//
// A skill whose best match per word, summed, stays under theta (the k-th
// best score over the learned skill scale) cannot enter: it is not hit,
// and its matches are not sorted and packed. The assignment keeps a match
// per word at most and packing only discounts, so that sum bounds the
// score.
func (p *pruner) score(s uint32, list []int, fresh bool, theta float64, keep bool) (float64, bool) {
	ix := p.ix
	p.matches = p.matches[:0]
	if !keep {
		p.fields = p.fields[:0] // results keep theirs
	}
	valid := int(s) < ix.Skills.Len() // not so only in a damaged file (index.Index.Postings)
	if len(p.wordBest) != len(p.words) {
		p.wordBest = make([]float64, len(p.words))
	}
	for _, c := range list {
		cu := &p.cursors[c]
		at := p.seek(c, s, fresh)
		end := uint32(len(cu.skills))
		for at < end && cu.skills[at] == s {
			// One match per index term: a merged cursor holds several.
			_, term := cu.posting(at)
			m := Match{TermID: term, Query: cu.qt.Text, Origin: cu.origin, Surface: cu.qt.Surface, Partial: cu.partial, QWeight: cu.qt.Weight,
				Pos: cu.qt.Pos, End: cu.qt.End, Rarity: cu.rarity, Compound: cu.qt.Compound, skill: int(s)}
			if valid {
				m.Term = ix.Term(term)
			}
			from := len(p.fields)
			for ; at < end && cu.skills[at] == s; at++ {
				if post, t := cu.posting(at); t != term {
					break
				} else if valid {
					// What ScoreWith counts, as it counts it.
					f := index.Field(ix.PostField[post])
					if f > index.FieldBody || !counts(ix, int(s), f, cu.partial, cu.kwOnly) {
						continue
					}
					w, learned := weigh(ix, p.adj, int(s), m.Term, float64(ix.PostWeight[post]), cu.partial, cu.rarity)
					m.TF += w
					p.fields = append(p.fields, Field{Field: f, Weight: w, Learned: learned})
				}
			}
			if m.TF > 0 {
				m.Fields = p.fields[from:len(p.fields):len(p.fields)]
				m.Score = matchScore(ix, &m, p.spelled)
				p.matches = append(p.matches, m)
				if w := cu.word; m.Score > p.wordBest[w] {
					p.wordBest[w] = m.Score
				}
			} else {
				p.fields = p.fields[:from]
			}
		}
		if !fresh {
			cu.at = at
		}
	}
	if len(p.matches) == 0 {
		return 0, false
	}
	bound := 0.0 // a word adds one match at most: its best
	for w, b := range p.wordBest {
		bound += b
		p.wordBest[w] = 0
	}
	if bound*(1+boundSlack) < theta {
		return 0, false
	}
	p.order = p.order[:0]
	for i := range p.matches {
		p.order = append(p.order, i)
	}
	slices.SortFunc(p.order, func(i, j int) int {
		a, b := &p.matches[i], &p.matches[j]
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := strings.Compare(a.Term, b.Term); c != 0 {
			return c
		}
		return strings.Compare(a.Query, b.Query)
	})
	p.chosen = p.chosen[:0]
	for _, i := range p.order {
		m := &p.matches[i]
		used := false
		for j := range p.chosen {
			if p.chosen[j].Origin == m.Origin || p.chosen[j].Term == m.Term {
				used = true
				break
			}
		}
		if !used {
			p.chosen = append(p.chosen, *m)
		}
	}
	p.pack.independent(p.chosen)
	score := 0.0
	for k := range p.chosen {
		m := &p.chosen[k]
		if m.Overlap {
			m.Score *= OverlapShare
		}
		score += m.Score
	}
	if p.adj != nil {
		score *= max(0, 1+p.adj.SkillDelta(ix.Skills.Name(int(s))))
	}
	return score, true
}

// worse reports whether a ranks below b in Sort's order.
func (p *pruner) worse(a, b entry) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return p.ix.Skills.Name(int(a.skill)) > p.ix.Skills.Name(int(b.skill))
}

// offer puts e in the heap of the k best if it belongs there.
func (p *pruner) offer(e entry, k int) bool {
	h := p.heap
	if len(h) < k {
		h = append(h, e)
		for i := len(h) - 1; i > 0; { // up
			parent := (i - 1) / 2
			if !p.worse(h[i], h[parent]) {
				break
			}
			h[i], h[parent] = h[parent], h[i]
			i = parent
		}
		p.heap = h
		return true
	}
	if !p.worse(h[0], e) {
		return false
	}
	h[0] = e
	for i := 0; ; { // down
		l, r, w := 2*i+1, 2*i+2, i
		if l < len(h) && p.worse(h[l], h[w]) {
			w = l
		}
		if r < len(h) && p.worse(h[r], h[w]) {
			w = r
		}
		if w == i {
			break
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
	return true
}

// results builds the Results of the heap's skills and of the matching
// skills of also, in Sort's order.
func (p *pruner) results(also []int) []Result {
	ids := make([]uint32, 0, len(p.heap)+len(also))
	for _, e := range p.heap {
		ids = append(ids, e.skill)
	}
	for _, id := range also {
		if id >= 0 && id < p.ix.Skills.Len() && !slices.Contains(ids, uint32(id)) {
			ids = append(ids, uint32(id))
		}
	}
	p.fields = nil // the results' fields share one array of their own
	out := make([]Result, 0, len(ids))
	for _, s := range ids {
		score, hit := p.score(s, p.all, true, math.Inf(-1), true)
		if !hit {
			continue
		}
		r := Result{Skill: int(s), Name: p.ix.Skills.Name(int(s)), Score: score, Matches: slices.Clone(p.chosen)}
		if p.adj != nil {
			r.Learned = p.adj.SkillDelta(r.Name)
		}
		out = append(out, r)
	}
	Sort(out)
	return out
}
