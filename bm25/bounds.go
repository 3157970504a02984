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
	for _, s := range p.seed(a, k, skillScale) {
		a.sum[s] = math.NaN() // scored: no comparison takes it again
	}
	if len(p.heap) == k {
		theta = p.heap[0].score / skillScale
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
		score, hit := p.score(s, p.reaching(a, s), false, theta)
		p.scored++
		if hit && p.offer(entry{score, s}, k) && len(p.heap) == k {
			theta = p.heap[0].score / skillScale
		}
	}
}

// seedCount is how many skills, of the highest sums, are scored before
// the rest, to learn a k-th best score that leaves few to score. Twice k
// ran fewer instructions than k on the generated catalogs' prompts (1.59
// against 1.68 million a prompt at 10,000 skills, 11.5 against 12.2 at
// 100,000): the k highest sums are often not the k best scores.
func seedCount(k int) int { return 2 * k }

// seed scores the skills of the highest sums first (seedCount of them),
// fresh, and returns them.
func (p *pruner) seed(a *skillSums, k int, skillScale float64) []uint32 {
	n := min(seedCount(k), len(a.touched))
	if n == 0 {
		return nil
	}
	// The n highest sums: a small heap of them over the touched skills,
	// the lowest at its root; most skills fall below it at one
	// comparison.
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
	top := a.top[:0]
	for _, e := range h {
		top = append(top, e.skill)
	}
	a.top = top
	slices.Sort(top) // skill order: the cursors move forward only
	theta := math.Inf(-1)
	for _, s := range top {
		if a.sum[s] < theta {
			continue
		}
		score, hit := p.score(s, p.reaching(a, s), false, theta)
		p.scored++
		if hit && p.offer(entry{score, s}, k) && len(p.heap) == k {
			theta = p.heap[0].score / skillScale
		}
	}
	// The walk after the seeds starts again from the first posting.
	for c := range p.cursors {
		p.cursors[c].at = 0
	}
	return top
}

// skillSums is, per skill, the sum of its words' best segment bounds, and
// the skills touched, reused between calls (sums), so that a call clears
// nothing the size of the catalog: a mark says which call wrote a skill's
// entries.
type skillSums struct {
	sum     []float64
	mark    []uint64 // call << 32 | word + 1: the skill's last word this call
	words   []uint64 // the words (mod 64) that reach the skill, this call
	call    uint64
	touched []uint32
	cands   []uint32
	top     []uint32
	heap    []entry
}

var sums = sync.Pool{New: func() any { return &skillSums{} }}

// accumulate sums the bounds: per word, its cursors best bound first, so
// that a skill takes the bound of its word's best segment that holds it.
func (p *pruner) accumulate() *skillSums {
	a := sums.Get().(*skillSums)
	n := len(p.ix.Skills)
	if len(a.sum) < n {
		a.sum, a.mark, a.words, a.call = make([]float64, n), make([]uint64, n), make([]uint64, n), 0
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
	sum, mark, words := a.sum[:n], a.mark[:n], a.words[:n]
	for _, c := range order {
		cu := &p.cursors[c]
		b, m := cu.bound, call|uint64(cu.word+1)
		bit := uint64(1) << (cu.word % 64)
		last := uint32(math.MaxUint32)
		for _, s := range cu.skills {
			if s == last || int(s) >= n {
				continue // the skill's next field; or a damaged file's posting, never scored
			}
			last = s
			switch old := mark[s]; {
			case old == m: // this word counted already
			case old>>32 != a.call: // first touch this call
				mark[s], sum[s], words[s] = m, b, bit
				a.touched = append(a.touched, s)
			default:
				mark[s] = m
				sum[s] += b
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
