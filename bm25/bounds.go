package bm25

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"sync"
)

// sift finds the k best skills (the heap) with the bounds of the
// cursors' postings, which never score less than the scorer gives
// (index.Index.PostExact, PostPartial; a partial match scaled by its
// word's rarity, scaled). The cursors of the lowest bounds, which add at
// most limit (restBound) to any skill between them, are set aside
// (split); the rest are walked, and give each skill they reach the sum
// over its words of its best posting bound (accumulate), at a few
// instructions a posting. Skills are then taken in order of that sum,
// highest first (highest), and for each whose sum plus what the cursors
// set aside give can still reach the k-th best score: those cursors are
// probed for it (probe), its bound is taken with its overlapping words
// packed as the scorer packs them (bound), and only if that too reaches
// the k-th best score is it scored. If a skill only the cursors set
// aside reach could still enter, they are walked too. The results are
// those of scoring every skill (TestTopKExact, TestSiftExact).
//
// On the 100,000 generated skills of `skillroute bench gen` a prompt
// reaches 197,000 postings; 79,000 are walked and 7 skills scored, and
// TopK runs 5.7 million instructions a prompt (valgrind
// --tool=callgrind over the catalog's 300 prompts), against 11.8 million
// with segment bounds alone (where 686 skills a prompt were scored, up
// to 9,344) and 12.6 million with WAND before that; at 10,000 skills, 1.31
// million against 1.59 (BENCHMARKS.md).
func (p *pruner) sift(k int, skillScale, limit float64) {
	if k <= 0 {
		return
	}
	rest := p.split(limit)
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
// may add to a skill between them. The words most skills use ("fix",
// "need", "配置"), in their bodies at a text weight near zero, are six
// tenths of a prompt's postings at 100,000 generated skills. Among 0.5,
// 1, 1.5 and 2.5, TopK ran 5.69, 5.53, 5.70 and 7.70 million
// instructions a prompt there (callgrind), and missed the first-level
// cache 104, 99, 97 and 85 thousand times: a larger bound walks fewer
// postings but leaves more skills whose sum with it reaches the k-th
// best score, each probed.
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
	slices.SortFunc(rest, func(x, y int) int { // by word, for probe
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
		if rest > 0 && a.skill[s].sum+p.probe(s, fresh) < theta {
			return
		}
		if p.bound(s, fresh) < theta {
			return
		}
		score, hit := p.score(s, p.all, fresh, theta, false)
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
		return // every skill reached was visited
	}
	for _, s := range top {
		a.skill[s].sum = math.NaN() // visited: no comparison takes it again
	}
	// The rest that can reach theta, in skill order: the cursors then
	// only move forward.
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

// bestFirst is how many skills, of the highest sums, are visited first,
// highest first; the others are taken in skill order, if need be. On the
// 100,000-skill catalog's prompts 7 skills a prompt are scored, at most
// 26.
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

// probe returns the bound that the cursors set aside give skill s, per
// word its best posting of s, summed: read from the cursors' first
// postings (fresh) or from where they are, moving them to s.
func (p *pruner) probe(s uint32, fresh bool) float64 {
	total, best, word := 0.0, 0.0, -1
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
		}
	}
	return total + best
}

// bound returns the most that skill s can score (over the learned skill
// scale): per word of the prompt the best bound of its postings of s,
// read from the cursors' first postings (fresh) or from where they are,
// moving them to s; and of words whose spans overlap, as the scorer
// packs them (packing), only the best set that does not overlap at full
// weight, the others at OverlapShare. A word's match lies within its
// query term's span: the span its cursors share stands for it. A word
// whose matches may be packed or not (a phrase met whole, a translation
// without a span) counts its best unpacked bound whole, and packs only
// what its packed bound adds to it: packing then lowers a score by no
// more than it lowers the bound. Summed without packing, the bounds left
// up to 1,000 skills a prompt to score on 100,000 generated skills, for
// Chinese prompts whose words overlap ("谷歌搜索", "谷歌", "搜索"); with
// it, at most 26.
func (p *pruner) bound(s uint32, fresh bool) float64 {
	if len(p.free) != len(p.words) {
		p.free, p.packed = make([]float64, len(p.words)), make([]span, len(p.words))
	}
	for c := range p.cursors {
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
		// A word's match is either unpacked, or packed: the packed bound
		// beyond the unpacked one is what packing may lower.
		total += p.free[w]
		if sp := p.packed[w]; sp.b > p.free[w] {
			sp.b -= p.free[w]
			if sp.end > sp.pos {
				spans = append(spans, sp)
			} else {
				total += sp.b // its cursors' spans share nothing: it overlaps no other
			}
		}
		p.free[w], p.packed[w] = 0, span{}
	}
	p.spans = spans
	return total + p.pack.bound(spans)
}

// span is a word's packed bound in bound, and the bytes of the prompt
// that its matches all cover.
type span struct {
	pos, end int
	b        float64
}

// bound returns the most that matches within spans (none empty), each
// scoring at most its span's b, score packed (independent): OverlapShare
// of them all, and the rest of the best set that does not overlap. It
// reorders spans.
func (p *packing) bound(spans []span) float64 {
	slices.SortFunc(spans, func(a, b span) int { return a.end - b.end })
	n := len(spans)
	p.best = slices.Grow(p.best[:0], n+1)[:n+1]
	p.best[0] = 0
	all := 0.0
	for k, sp := range spans {
		all += sp.b
		// The spans before k that end before it starts (sorted by end).
		j := sort.Search(k, func(i int) bool { return spans[i].end > sp.pos })
		p.best[k+1] = max(p.best[k], p.best[j]+sp.b)
	}
	return OverlapShare*all + (1-OverlapShare)*p.best[n]
}

// skillSums is, per skill, the sum of its words' best posting bounds,
// and the skills touched, reused between calls (sums), so that a call
// clears nothing the size of the catalog: a mark says which call and word
// wrote a skill's entry.
type skillSums struct {
	skill   []skillSum
	next    uint32 // the next call's first mark
	first   uint32 // this call's
	touched []uint32
	cands   []uint32
	top     []uint32
	heap    []entry
}

// skillSum is one skill's entry in skillSums, in 16 bytes: a posting
// walked reads and writes one cache line. At 100,000 skills the entries
// are 1.6 MB, and a hook process faults in each page of them; a mask of
// the words reaching each skill, which let scoring seek only their
// cursors, was half as much again, and cost more than it saved (6.2
// against 5.6 million instructions a prompt, callgrind).
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
// best. The word's bound so far (cur) is kept rounded down, so that
// replacing it leaves the sum at or above the true one.
func (a *skillSums) add(s uint32, b float64, m uint32) {
	e := &a.skill[s]
	switch {
	case e.mark == m: // this word reached it already: its best counts
		if c := float64(e.cur); b > c {
			e.sum += b - c
			e.cur = down32(b)
		}
	case e.mark <= a.first: // first touch this call
		*e = skillSum{b, down32(b), m}
		a.touched = append(a.touched, s)
	default:
		e.sum += b
		e.cur, e.mark = down32(b), m
	}
}

// accumulate sums the bounds of the cursors not set aside: per skill, the
// best bound of each word's postings of it (a word's cursors are walked
// together, best first), summed over the words.
func (p *pruner) accumulate() *skillSums {
	a := sums.Get().(*skillSums)
	n := p.ix.Skills.Len()
	if len(a.skill) < n {
		a.skill, a.next = make([]skillSum, n), 1
	}
	if cap(a.touched) < n {
		a.touched = make([]uint32, 0, n) // the pages it never reaches are never touched
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
	// A cursor's bound per level, and rounded down for cur: converted
	// per posting, the rounding was a tenth of routing.
	var table [index256]float64
	var table32 [index256]float32
	entries := a.skill[:n]
	for _, c := range order {
		cu := &p.cursors[c]
		if cu.rest {
			continue // probed, not walked
		}
		m := a.first + 1 + uint32(cu.word)
		skills := cu.skills
		if cu.vals != nil {
			// Merged: a skill's postings may be of several terms.
			for i, s := range skills {
				if int(s) < n && cu.vals[i] > 0 {
					a.add(s, cu.vals[i], m)
				}
			}
			continue
		}
		for l := range table {
			table[l] = cu.levelBound(uint8(l))
			table32[l] = down32(table[l])
		}
		levels := cu.levels[:len(skills)]
		for i, l := range levels {
			// A skill's run of postings has its level on its first: the
			// others' are 0, as where a partial match counts nothing.
			s := skills[i]
			if l == 0 || int(s) >= n {
				continue // or a damaged file's posting, never scored
			}
			// a.add, written out: the walk's every posting comes here.
			b, e := table[l], &entries[s]
			switch {
			case e.mark == m:
				if c := float64(e.cur); b > c {
					e.sum += b - c
					e.cur = table32[l]
				}
			case e.mark <= a.first:
				*e = skillSum{b, table32[l], m}
				a.touched = append(a.touched, s)
			default:
				e.sum += b
				e.cur, e.mark = table32[l], m
			}
		}
	}
	return a
}

// index256 is how many levels a posting's bound has (index.ImpactLevels
// and 0), one byte's worth.
const index256 = 256
