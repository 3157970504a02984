package bm25

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// sift finds the k best skills (the heap) in two passes over the
// cursors. First, per skill the prompt reaches, the sum over its words of
// the bound of the best segment that holds it (accumulate), at a few
// instructions a posting. Then the skills whose sum reaches the k-th best
// score are scored exactly: the highest sums first (seed), then the rest
// in skill order, so that the cursors only move forward; a skill whose
// sum stays under the k-th best score so far cannot enter and is not
// scored. The results are those of scoring every skill (TestTopKExact).
//
// It replaced WAND over the same cursors, which learned a skill's sum
// only by moving every cursor before it to it, and kept the cursors in
// order of their next skill: on 10,000 generated skills 835 pivots a
// prompt, each moving six cursors and shifting others past them. TopK
// runs 1.59 million instructions a prompt there against WAND's 2.03,
// and 11.8 against 12.6 million at 100,000 skills, where a prompt
// reaches 74,000 skills (valgrind --tool=cachegrind over the catalogs'
// 300 prompts; BENCHMARKS.md).
func (p *pruner) sift(k int, skillScale float64) {
	if k <= 0 {
		return
	}
	rest := p.split(restBound)
	p.walk(k, skillScale, rest)
	if rest > 0 && (len(p.heap) < k || p.heap[0].score/skillScale <= rest) {
		// A skill that only the cursors set aside reach could enter:
		// walk them too.
		p.heap = p.heap[:0]
		for c := range p.cursors {
			p.cursors[c].at, p.cursors[c].rest = 0, false
		}
		p.rest = p.rest[:0]
		p.walk(k, skillScale, 0)
	}
}

// restBound is the most that the cursors set aside from the walk (split)
// may add to a skill's sum between them.
const restBound = 1.5

// split sets aside the cursors of the lowest bounds (rest), as many as
// give a skill at most limit between them (the best per word, summed),
// and returns what they give at most.
func (p *pruner) split(limit float64) float64 {
	order := make([]int, len(p.cursors))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		return cmp.Or(cmp.Compare(p.cursors[x].bound, p.cursors[y].bound), cmp.Compare(x, y))
	})
	best := make([]float64, len(p.words)) // per word, its best bound set aside
	total := 0.0
	rest := p.rest[:0]
	for _, c := range order {
		cu := &p.cursors[c]
		t := total - best[cu.word] + max(best[cu.word], cu.bound)
		if t > limit {
			break
		}
		total, best[cu.word] = t, max(best[cu.word], cu.bound)
		cu.rest = true
		rest = append(rest, c)
	}
	// By word, for probe.
	slices.SortFunc(rest, func(x, y int) int {
		return cmp.Or(cmp.Compare(p.cursors[x].word, p.cursors[y].word), cmp.Compare(x, y))
	})
	p.rest = rest
	return total
}

// walk finds the k best skills (the heap) from the cursors not set aside,
// which give each skill its sum (accumulate); those set aside give any
// skill rest at most, and a skill's own bound from them is known by
// probing them (probe) before it is scored.
func (p *pruner) walk(k int, skillScale, rest float64) {
	a := p.accumulate()
	defer sums.Put(a)
	theta := math.Inf(-1) // the k-th best score over skillScale
	visit := func(s uint32, fresh bool) {
		words := a.words[s]
		if rest > 0 {
			b, more := p.probe(s, fresh)
			if a.skill[s].sum+b < theta {
				return
			}
			words |= more
		}
		list := p.reaching(words)
		if p.bound(s, list, fresh) < theta {
			return
		}
		score, hit := p.score(s, list, fresh, theta, false)
		p.scored++
		if hit && p.offer(entry{score, s}, k) && len(p.heap) == k {
			theta = p.heap[0].score / skillScale
		}
	}
	top := p.highest(a)
	for _, s := range top {
		if a.skill[s].sum+rest < theta {
			return // nothing after it can reach theta: it is among the highest sums
		}
		visit(s, true)
	}
	if len(top) == len(a.touched) {
		return // every skill reached was scored
	}
	for _, s := range top {
		a.skill[s].sum = math.NaN() // scored: no comparison takes it again
	}
	// The rest that can reach theta, in skill order.
	cands := a.cands[:0]
	for _, s := range a.touched {
		if a.skill[s].sum+rest >= theta {
			cands = append(cands, s)
		}
	}
	slices.Sort(cands)
	a.cands = cands
	for _, s := range cands {
		if a.skill[s].sum+rest < theta {
			continue // theta rose past it
		}
		visit(s, false)
	}
}

// probe returns the bound that the cursors set aside give skill s (per
// word its best posting of s) and the words whose cursors hold it, from
// the cursors' first postings (fresh) or from where they are, moving them
// to s.
func (p *pruner) probe(s uint32, fresh bool) (float64, uint64) {
	total, best, word := 0.0, 0.0, -1
	var words uint64
	for _, c := range p.rest {
		cu := &p.cursors[c]
		if cu.word != word {
			total, best, word = total+best, 0, cu.word
		}
		at := p.seek(c, s, fresh)
		if !fresh {
			cu.at = at
		}
		for ; at < uint32(len(cu.skills)) && cu.skills[at] == s; at++ {
			best = max(best, cu.postBound(at))
			words |= 1 << (cu.word % 64)
		}
	}
	return total + best, words
}

// bound returns the most that skill s can score (over the learned skill
// scale): per word of the prompt the best bound of its postings of s in
// the cursors of list, read from their first postings (fresh) or from
// where they are, moving them to s; and of words whose spans overlap,
// as the scorer packs them (packing), only the best set that does not
// overlap at full weight, the others at OverlapShare. A word's match
// lies within its query term's span: the spans a word's cursors share
// stand for it. A word whose matches may be packed or not (a phrase met
// whole, a translation without a span) counts its best unpacked bound
// whole, and packs only what its packed bound adds to it: packing then
// lowers a score by no more than the bound does. Summed without packing, the bounds left hundreds of
// skills to score for a Chinese prompt whose words overlap ("谷歌搜索",
// "谷歌", "搜索"), 20 with it (100,000 generated skills).
func (p *pruner) bound(s uint32, list []int, fresh bool) float64 {
	if len(p.free) != len(p.words) {
		p.free, p.packed = make([]float64, len(p.words)), make([]span, len(p.words))
	}
	for _, c := range list {
		cu := &p.cursors[c]
		at := p.seek(c, s, fresh)
		if !fresh {
			cu.at = at
		}
		b := 0.0
		for ; at < uint32(len(cu.skills)) && cu.skills[at] == s; at++ {
			b = max(b, cu.postBound(at))
		}
		switch w := cu.word; {
		case b == 0:
		case cu.free:
			p.free[w] = max(p.free[w], b)
		case p.packed[w].b == 0:
			p.packed[w] = span{cu.qt.Pos, cu.qt.End, b}
		default:
			sp := &p.packed[w]
			sp.b, sp.pos, sp.end = max(sp.b, b), max(sp.pos, cu.qt.Pos), min(sp.end, cu.qt.End)
		}
	}
	total := 0.0
	spans := p.spans[:0]
	for w := range p.words {
		// A word's match is either free, or packed: the packed bound
		// beyond the free one is what packing may lower.
		total += p.free[w]
		if sp := p.packed[w]; sp.b > p.free[w] {
			sp.b -= p.free[w]
			if sp.end > sp.pos {
				spans = append(spans, sp)
			} else {
				total += sp.b // the spans share nothing: it overlaps no other
			}
		}
		p.free[w], p.packed[w] = 0, span{}
	}
	p.spans = spans
	return total + p.pack.bound(spans)
}

// span is a word's packed bound in bound, and the bytes of the prompt
// its matches all cover.
type span struct {
	pos, end int
	b        float64
}

// bestFirst is how many skills, of the highest sums, are scored first,
// highest first: scoring stops at the first whose sum is under the k-th
// best score.
const bestFirst = 64

// highest returns the skills of the bestFirst highest sums, highest first.
func (p *pruner) highest(a *skillSums) []uint32 {
	n := min(bestFirst, len(a.touched))
	// A small heap of them over the touched skills, the lowest at its
	// root; most skills fall below it at one comparison.
	h := a.heap[:0]
	for _, s := range a.touched {
		e := entry{a.skill[s].sum, s}
		if len(h) == n {
			if e.score <= h[0].score {
				continue
			}
			h[0] = e
			for i := 0; ; { // down
				l, r, m := 2*i+1, 2*i+2, i
				if l < n && h[l].score < h[m].score {
					m = l
				}
				if r < n && h[r].score < h[m].score {
					m = r
				}
				if m == i {
					break
				}
				h[i], h[m] = h[m], h[i]
				i = m
			}
			continue
		}
		h = append(h, e)
		for i := len(h) - 1; i > 0; { // up
			parent := (i - 1) / 2
			if h[parent].score <= h[i].score {
				break
			}
			h[i], h[parent] = h[parent], h[i]
			i = parent
		}
	}
	a.heap = h
	slices.SortFunc(h, func(x, y entry) int { return cmp.Or(cmp.Compare(y.score, x.score), cmp.Compare(x.skill, y.skill)) })
	top := a.top[:0]
	for _, e := range h {
		top = append(top, e.skill)
	}
	a.top = top
	return top
}

// skillSums is, per skill, the sum of its words' best posting bounds,
// and the skills touched, reused between calls (sums), so that a call
// clears nothing the size of the catalog: a mark says which call and word
// wrote a skill's entry.
type skillSums struct {
	skill   []skillSum
	words   []uint64 // the words (mod 64) that reach the skill, this call
	next    uint32   // the next call's first mark
	first   uint32   // this call's
	touched []uint32
	cands   []uint32
	top     []uint32
	heap    []entry
}

// skillSum is one skill's entry in skillSums: 16 bytes, so that a
// posting's skill is one cache line (at 100,000 skills the entries are
// 1.6 MB, and the walk reaches three quarters of them).
type skillSum struct {
	sum  float64 // the sum of the bounds of the words that reach it
	cur  float32 // its last word's bound, in sum, rounded down
	mark uint32  // its last word's mark: this call's first + the word's number + 1
}

var sums = sync.Pool{New: func() any { return &skillSums{} }}

// down32 returns the greatest float32 not above x, for x ≥ 0.
func down32(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Float32frombits(math.Float32bits(f) - 1)
	}
	return f
}

// add counts bound b of the word marked m in skill s: once per word, its
// best (cur, rounded down, keeps the sum at or above the true one).
func (a *skillSums) add(s uint32, b float64, m uint32, bit uint64) {
	e := &a.skill[s]
	switch {
	case e.mark == m: // this word reached it already: its best counts
		if c := float64(e.cur); b > c {
			e.sum += b - c
			e.cur = down32(b)
		}
	case e.mark <= a.first: // first touch this call
		*e = skillSum{b, down32(b), m}
		a.words[s] = bit
		a.touched = append(a.touched, s)
	default:
		e.sum += b
		e.cur, e.mark = down32(b), m
		a.words[s] |= bit
	}
}

// accumulate sums the bounds: per word, its cursors best bound first, and
// per skill the bound of its own postings (index.Index.PostExact,
// PostPartial), the best of its word's.
func (p *pruner) accumulate() *skillSums {
	a := sums.Get().(*skillSums)
	n := p.ix.Skills.Len()
	if len(a.skill) < n {
		a.skill, a.words, a.next = make([]skillSum, n), make([]uint64, n), 1
	}
	if uint64(a.next)+uint64(len(p.words))+1 > math.MaxUint32 { // the marks would wrap: start them again
		clear(a.skill)
		a.next = 1
	}
	a.first = a.next - 1 // marks of this call are above it
	a.next += uint32(len(p.words)) + 1
	a.touched = a.touched[:0]
	order := make([]int, len(p.cursors))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		cx, cy := &p.cursors[x], &p.cursors[y]
		return cmp.Or(cmp.Compare(cx.word, cy.word), cmp.Compare(cy.bound, cx.bound), cmp.Compare(x, y))
	})
	var table [256]float64
	var table32 [256]float32 // rounded down, for cur
	for _, c := range order {
		cu := &p.cursors[c]
		if cu.rest {
			continue // probed, not walked
		}
		m := a.first + 1 + uint32(cu.word)
		bit := uint64(1) << (cu.word % 64)
		skills := cu.skills
		switch {
		case cu.vals != nil:
			// Merged: a skill's postings may be of several terms.
			for i, s := range skills {
				if int(s) < n && cu.vals[i] > 0 {
					a.add(s, cu.vals[i], m, bit)
				}
			}
			continue
		case cu.tf >= 1:
			unit := cu.step * cu.tf * cu.qw
			for l := range table {
				table[l] = float64(l) * unit
				table32[l] = down32(table[l])
			}
		default:
			for l := range table {
				table[l] = cu.qw * scaled(float64(l)*cu.step, cu.tf)
				table32[l] = down32(table[l])
			}
		}
		levels := cu.levels[:len(skills)]
		entries, words := a.skill[:n], a.words[:n]
		last := uint32(math.MaxUint32)
		for i, s := range skills {
			// A skill's postings of one term lie together and have one
			// bound.
			if s == last || int(s) >= n || levels[i] == 0 {
				continue // the skill's next field; a damaged file's posting, never scored; or a partial match that counts nothing
			}
			last = s
			// a.add, written out: the walk's every posting comes here.
			l := levels[i]
			b, e := table[l], &entries[s]
			switch {
			case e.mark == m:
				if c := float64(e.cur); b > c {
					e.sum += b - c
					e.cur = table32[l]
				}
			case e.mark <= a.first:
				*e = skillSum{b, table32[l], m}
				words[s] = bit
				a.touched = append(a.touched, s)
			default:
				e.sum += b
				e.cur, e.mark = table32[l], m
				words[s] |= bit
			}
		}
	}
	// The cursors by word, for reaching: order, cut where words change.
	p.byWord, p.wordFrom = order, make([]int, len(p.words)+1)
	for i, c := range order {
		p.wordFrom[p.cursors[c].word+1] = i + 1
	}
	for w := 1; w < len(p.wordFrom); w++ { // a word without cursors
		p.wordFrom[w] = max(p.wordFrom[w], p.wordFrom[w-1])
	}
	return a
}

// reaching lists the cursors of the words that reach skill s: the only
// ones with postings of it, so that scoring seeks it in no other (2 % and
// 1 % fewer instructions at 10,000 and 100,000 skills).
func (p *pruner) reaching(words uint64) []int {
	if len(p.words) > 64 {
		return p.byWord // every cursor
	}
	list := p.list[:0]
	for m := words; m != 0; m &= m - 1 {
		w := bits.TrailingZeros64(m)
		list = append(list, p.byWord[p.wordFrom[w]:p.wordFrom[w+1]]...)
	}
	p.list = list
	return list
}
