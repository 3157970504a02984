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
	a := p.accumulate()
	defer sums.Put(a)
	theta := math.Inf(-1) // the k-th best score over skillScale
	top := p.highest(a)
	for _, s := range top {
		if a.sum[s] < theta {
			return // nothing after it can reach theta: it is among the highest sums
		}
		score, hit := p.score(s, p.reaching(a, s), true, theta, false)
		p.scored++
		if hit && p.offer(entry{score, s}, k) && len(p.heap) == k {
			theta = p.heap[0].score / skillScale
		}
	}
	if len(top) == len(a.touched) {
		return // every skill reached was scored
	}
	for _, s := range top {
		a.sum[s] = math.NaN() // scored: no comparison takes it again
	}
	// The rest that can reach theta, in skill order.
	cands := a.cands[:0]
	for _, s := range a.touched {
		if a.sum[s] >= theta {
			cands = append(cands, s)
		}
	}
	slices.Sort(cands)
	a.cands = cands
	for _, s := range cands {
		if a.sum[s] < theta {
			continue // theta rose past it
		}
		score, hit := p.score(s, p.reaching(a, s), false, theta, false)
		p.scored++
		if hit && p.offer(entry{score, s}, k) && len(p.heap) == k {
			theta = p.heap[0].score / skillScale
		}
	}
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
		e := entry{a.sum[s], s}
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
	sum     []float64
	cur     []float64 // the skill's bound from its last word, in sum
	mark    []uint64  // call << 32 | word + 1: the skill's last word this call
	words   []uint64  // the words (mod 64) that reach the skill, this call
	call    uint64
	touched []uint32
	cands   []uint32
	top     []uint32
	heap    []entry
}

var sums = sync.Pool{New: func() any { return &skillSums{} }}

// accumulate sums the bounds: per word, its cursors best bound first, and
// per skill the bound of its own postings (index.Index.PostExact,
// PostPartial), the best of its word's.
func (p *pruner) accumulate() *skillSums {
	a := sums.Get().(*skillSums)
	n := len(p.ix.Skills)
	if len(a.sum) < n {
		a.sum, a.cur, a.mark, a.words, a.call = make([]float64, n), make([]float64, n), make([]uint64, n), make([]uint64, n), 0
	}
	if a.call++; a.call == 1<<32 { // the marks would wrap: start them again
		clear(a.mark)
		a.call = 1
	}
	a.touched = a.touched[:0]
	order := make([]int, len(p.cursors))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		cx, cy := &p.cursors[x], &p.cursors[y]
		return cmp.Or(cmp.Compare(cx.word, cy.word), cmp.Compare(cy.bound, cx.bound), cmp.Compare(x, y))
	})
	call := a.call << 32
	sum, cur, mark, words := a.sum[:n], a.cur[:n], a.mark[:n], a.words[:n]
	for _, c := range order {
		cu := &p.cursors[c]
		m := call | uint64(cu.word+1)
		bit := uint64(1) << (cu.word % 64)
		linear := cu.tf >= 1
		unit := cu.step * cu.tf * cu.qw
		last := uint32(math.MaxUint32)
		for i, s := range cu.skills {
			// A skill's postings of one term lie together and have one
			// bound; a merged cursor's may be of several terms.
			if s == last && cu.vals == nil || int(s) >= n {
				continue // the skill's next field; or a damaged file's posting, never scored
			}
			last = s
			var b float64
			switch {
			case cu.vals != nil:
				b = cu.vals[i]
			case linear:
				b = float64(cu.levels[i]) * unit
			default:
				b = cu.qw * scaled(float64(cu.levels[i])*cu.step, cu.tf)
			}
			if b == 0 {
				continue // a partial match that counts nothing here
			}
			switch old := mark[s]; {
			case old == m: // this word reached it already: its best counts
				if b > cur[s] {
					sum[s] += b - cur[s]
					cur[s] = b
				}
			case old>>32 != a.call: // first touch this call
				mark[s], sum[s], cur[s], words[s] = m, b, b, bit
				a.touched = append(a.touched, s)
			default:
				mark[s] = m
				sum[s] += b
				cur[s] = b
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
func (p *pruner) reaching(a *skillSums, s uint32) []int {
	if len(p.words) > 64 {
		return p.byWord // every cursor
	}
	list := p.list[:0]
	for m := a.words[s]; m != 0; m &= m - 1 {
		w := bits.TrailingZeros64(m)
		list = append(list, p.byWord[p.wordFrom[w]:p.wordFrom[w+1]]...)
	}
	p.list = list
	return list
}
