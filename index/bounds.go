package index

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sort"
	"sync"
)

// BM25 parameters and the partial-match discount. Package bm25 scores with
// them (bm25.K1, bm25.B and bm25.PartialFactor are these); they live here
// because the index stores bounds of BM25 scores, computed with them at
// compile time.
//
// k1 = 1.2 saturates quickly, so no single keyword owns a score; b = 0.75
// is the classic length normalisation, mild here because skills are of
// similar length. Both were checked on every dev set and its hash halves
// (`skillroute eval --split 2`): k1 0.9, 1.6, 2 and 3 and b 0.25, 0.5 and
// 0.9 each moved a prompt or two either way, none better on both halves
// of real-dev and bookworm's set. A keyword that merely contains the
// query term counts 0.6 of its weight.
const (
	K1            = 1.2
	B             = 0.75
	PartialFactor = 0.6
)

// Tier boosts multiply, after saturation, the score of an exact match
// found in a skill's core or strong keywords. Tiers weigh tf before
// saturation, but k1 = 1.2 flattens them: "vue", a core keyword met in
// three fields (tf 8.0), scored 1.92 against 1.52 for another skill's
// extended "跳转" (tf 2.8), and two such words buried the skill the
// prompt named. Fitted on the dev sets' hash halves with the held-out
// sets' first halves (core 1, 1.25, 1.5, 1.75, 2 × strong 1, 1.15,
// 1.3): every pair up to core 1.75 routes dev, real-dev, bookworm and
// the sessions within a prompt of the others, and core 1.5 with strong
// 1.15 was best on the first halves of fresh2 and real-fresh (84.8 →
// 87.0 % and 84.8 → 87.9 %); their second halves went 83.3 → 84.5 % and
// stayed at 84.6 %. Past core 1.75 HIGH precision on bookworm's set
// fell under 95 %.
const (
	CoreBoost   = 1.5
	StrongBoost = 1.15
)

// TierBoost is the boost of an exact match in field f: CoreBoost or
// StrongBoost for those keyword tiers, 1 elsewhere.
func TierBoost(f Field) float64 {
	switch f {
	case FieldCore:
		return CoreBoost
	case FieldStrong:
		return StrongBoost
	}
	return 1
}

// saturate is BM25's score of a term with frequency tf (the sum of its
// compiled field weights) in a skill of document length dl, for a query
// weight of 1: tf × (k1 + 1) / (tf + k1 × (1 − b + b × dl / avgdl)).
func saturate(tf, dl, avgdl float64) float64 {
	return saturateNorm(tf, lengthNorm(dl, avgdl))
}

// lengthNorm is the part of saturate's denominator that depends on the
// skill only, k1 × (1 − b + b × dl / avgdl): segmenting takes each
// skill's once, not once per posting (two divisions each).
func lengthNorm(dl, avgdl float64) float64 {
	return float64(K1 * (1 - B + B*dl/avgdl)) // rounded here, as where it is kept
}

// saturateNorm is saturate with its skill's lengthNorm.
func saturateNorm(tf, norm float64) float64 {
	return tf * (K1 + 1) / (tf + norm)
}

// Impact segments. A term's postings are cut by impact: the skills it
// gives the highest scores come first, each segment ordered by skill and
// carrying the best score (exact and partial) of its own skills, and
// each posting its own score as a level of that bound (ImpactLevels), so
// that a dynamic-pruning top-k (bm25.TopK) sums tight bounds, and need
// not walk a segment whose bound adds little. The cuts are chosen per term where they waste
// least bound (cutScores): a word that some skills list as a keyword and
// thousands use in their bodies gets one segment for the keyword skills
// and one, bounded by a body word's score, for the rest. Cuts at fixed
// shares (the best 1/64, 3/64, 12/64 and the rest) put both kinds in one
// segment bounded by the keyword score ("log" on 10,000 generated skills:
// 1,097 skills under 1.28, three quarters of them scoring under 0.4).
// Terms reaching fewer than segmentFrom skills stay one segment (a
// segment is one more cursor for every prompt that meets the term); a
// segment under segmentMin skills joins the one above.
const (
	segmentFrom = 64
	segmentMin  = 16
)

// segmentPenalty is what a segment costs in cutScores, as a share of the
// term's best score × its skills: a segment is one more cursor that TopK
// keeps in order. Among 0.02, 0.05, 0.1 and 0.2 on the prompts of a
// generated catalog of 10,000 skills (`skillroute bench gen --skills
// 10000 --seed 1`), 0.1 ran TopK in the fewest instructions (2.02 million
// a prompt, against 2.27, 2.10 and 2.11 million, and 2.44 with the fixed
// shares before; valgrind --tool=cachegrind): 27 cursors a prompt instead
// of 54, the same postings reached.
const segmentPenalty = 0.1

// Segment is one impact segment of a term's postings.
type Segment struct {
	From, To uint32 // postings [From, To)
	// The best score, at query weight 1 and with nothing learned, that a
	// posting of the segment gives its skill as an exact match and as a
	// partial one (keyword fields × PartialFactor; 0 when it has none,
	// or its skill's keywords are derived: bm25 counts no partial match
	// there). Rounded up to float32: never below what the scorer
	// computes.
	Exact, Partial float64
}

// ImpactLevels is how finely a posting's own score is kept
// (Index.PostExact, PostPartial): in 255ths of its segment's bound, one
// byte a posting. A posting's level × bound / ImpactLevels is never below
// its score, and above it by at most a 255th of the bound.
const ImpactLevels = 255

// impactLevel is the level of score x in a segment bounded by bound:
// the least whose share of the bound is not below x.
func impactLevel(x float64, bound float32) uint8 {
	if x <= 0 || bound <= 0 {
		return 0
	}
	b := float64(bound)
	q := min(math.Ceil(x*ImpactLevels/b), ImpactLevels)
	for q < ImpactLevels && q*b/ImpactLevels < x {
		q++ // rounding: the share must hold x
	}
	return uint8(max(q, 1))
}

// levelBound is a segment's bound with ImpactLevels / bound, made once
// per segment: impactLevel's division for every posting was a fifth of
// segmenting 100,000 skills (go tool pprof of a recompile).
type levelBound struct {
	bound float32
	scale float64
}

func newLevelBound(bound float32) levelBound {
	if bound <= 0 {
		return levelBound{bound: bound}
	}
	return levelBound{bound, ImpactLevels / float64(bound)}
}

// levelSlack is how near x × scale may come to a whole number before
// level leaves x to impactLevel: the product is x × ImpactLevels / bound
// within a few units of the last place (about 1e-13 at 255), so one
// farther than levelSlack from a whole number has the same ceiling, and
// that ceiling's share of the bound holds x.
const levelSlack = 1e-9

// level is impactLevel(x, lb.bound), without its divisions where they
// cannot change the answer.
func (lb levelBound) level(x float64) uint8 {
	if x <= 0 || lb.bound <= 0 {
		return 0
	}
	y := x * lb.scale
	q := math.Ceil(y)
	if frac := q - y; frac < levelSlack || frac > 1-levelSlack || q > ImpactLevels {
		return impactLevel(x, lb.bound)
	}
	return uint8(max(q, 1))
}

// Segments returns the range of segment numbers of term id, for Segment:
// empty where a damaged file's numbers are out of order or range.
func (ix *Index) Segments(id int) (from, to int) {
	from, to = int(ix.TermSegs[id]), int(ix.TermSegs[id+1])
	if from > to || to > len(ix.ExactBound) {
		return 0, 0
	}
	return from, to
}

// Segment returns segment j: empty where a damaged file's offsets are out
// of order or beyond the postings. Its postings may still name skills or
// fields that do not exist; readers check (see check).
func (ix *Index) Segment(j int) Segment {
	from, to := ix.SegStart[j], ix.SegStart[j+1]
	if from > to || int(to) > len(ix.PostSkill) {
		from, to = 0, 0
	}
	return Segment{from, to, float64(ix.ExactBound[j]), float64(ix.PartialBound[j])}
}

// skillRun is one skill's postings of a term and its scores.
type skillRun struct {
	from, to       uint32
	exact, partial float64
	tier           int
}

// buildSegments reorders each term's postings into impact segments and
// bounds them, with the scorer's arithmetic: field weights summed per
// skill in field order (× PartialFactor each for a partial match), then
// saturated. Postings of one skill stay together, in field order. Terms
// are independent: the cores share them out in ranges of about equal
// postings (a tenth of a 100,000-skill compile, when it ran on one), and
// the ranges' segments are joined in term order.
//
// With a plan of reuse (ru), a term copied from the last index takes its
// postings, levels and segments from there, in runs of neighbouring terms.
func (ix *Index) buildSegments(workers int, ru *reuse) {
	n := ix.Terms.Len()
	parts := max(1, min(workers, len(ix.PostSkill)/segmentPart))
	outs := make([]segmentsOut, parts)
	ix.PostExact = make([]uint8, len(ix.PostSkill)) // each term's written by its goroutine
	ix.PostPartial = make([]uint8, len(ix.PostSkill))
	// Each skill's length norm, negated where its keywords are derived
	// (no partial match counts there): what segmentTerm reads of a skill
	// for each of its postings, in one place.
	norms := make([]float64, ix.Skills.Len())
	for i := range norms {
		norms[i] = lengthNorm(ix.Skills.Length(i), ix.AvgLength)
		if ix.Skills.Derived(i) {
			norms[i] = -norms[i]
		}
	}
	var wg sync.WaitGroup
	from := 0
	for part := range outs {
		to := n
		if part < parts-1 { // the first term whose postings start past this part's share
			share := uint32(len(ix.PostSkill) / parts * (part + 1))
			to = from + sort.Search(n-from, func(i int) bool { return ix.Starts[from+i] >= share })
		}
		wg.Add(1)
		go func(out *segmentsOut, from, to int) {
			defer wg.Done()
			var sc segmentScratch
			if ru == nil {
				for t := from; t < to; t++ {
					ix.segmentTerm(t, norms, &sc, out)
				}
				return
			}
			cp := copier{ix: ix, ru: ru}
			for t := from; t < to; t++ {
				if o := ru.old[t]; o >= 0 {
					cp.term(t, int(o), out)
					continue
				}
				cp.flush()
				ix.segmentTerm(t, norms, &sc, out)
			}
			cp.flush()
		}(&outs[part], from, to)
		from = to
	}
	wg.Wait()
	segs := 0
	for _, o := range outs {
		segs += len(o.exact)
	}
	ix.TermSegs = make([]uint32, 0, n+1)
	ix.SegStart = make([]uint32, 0, segs+1)
	ix.ExactBound = make([]float32, 0, segs)
	ix.PartialBound = make([]float32, 0, segs)
	for _, o := range outs {
		base := uint32(len(ix.ExactBound))
		for _, t := range o.termSegs {
			ix.TermSegs = append(ix.TermSegs, base+t)
		}
		ix.SegStart = append(ix.SegStart, o.segStart...)
		ix.ExactBound = append(ix.ExactBound, o.exact...)
		ix.PartialBound = append(ix.PartialBound, o.partial...)
	}
	ix.TermSegs = append(ix.TermSegs, uint32(len(ix.ExactBound)))
	ix.SegStart = append(ix.SegStart, uint32(len(ix.PostSkill)))
}

// segmentPart is the fewest postings worth a core of their own when
// segmenting: below, starting a goroutine costs more than it saves. A
// variable, so that a test can split a small catalog.
var segmentPart = 1 << 16

// segmentsOut is the segments of a range of terms, numbered from 0.
type segmentsOut struct {
	termSegs, segStart []uint32
	exact, partial     []float32
}

// segmentScratch is one segmenting goroutine's buffers.
type segmentScratch struct {
	runs       []skillRun
	field      []uint8
	post       []uint32
	weight     []float32
	scores     []float64
	counts     []int     // skills per tier
	into       []int     // the tier each tier's skills end in
	next       []uint32  // each tier's postings, then where they go
	exact      []float64 // each tier's bounds
	partial    []float64
	ranks      []int           // candidate cut ranks, best first (cutScores)
	at         []float64       // the score at each
	buckets    []uint32        // rankScores' counts,
	where      []int32         // where each bucket is gathered,
	gathered   []float64       // and the values gathered
	rankBucket []int           // each rank's bucket
	cost       []float64       // the least cost of segmenting down to each
	prev       []int           // the candidate before it in that segmenting
	cuts       []float64       // the chosen cuts' scores
	levels     [][2]levelBound // each tier's exact and partial bounds, for impact levels
}

// cutScores chooses where a term's skills, by their scores, are cut into
// segments, and returns the scores at the cuts, highest first: among cuts
// at candidate ranks, those of least total bound × skills over the
// segments (the score TopK must assume where the skills score less), plus
// segmentPenalty per segment; by dynamic programming over the candidates.
// The candidates are the first powers of two from segmentMin (a short top
// segment for the few skills that list the word as a core keyword) and
// every 64th of the skills; their scores are taken by selection, not by
// sorting them all (see selectRanks).
func (sc *segmentScratch) cutScores(scores []float64) []float64 {
	n := len(scores)
	// Candidate ranks (0: the best): the first few powers of two, for a
	// short top segment, then every 64th of the skills.
	ranks := append(sc.ranks[:0], 0)
	for r := segmentMin; r < n/64; r *= 2 {
		ranks = append(ranks, r)
	}
	for i := 1; i < 64; i++ {
		r := n * i / 64
		if r-ranks[len(ranks)-1] >= segmentMin && n-r >= segmentMin {
			ranks = append(ranks, r)
		}
	}
	sc.ranks = ranks
	// The scores at those ranks, by selection.
	at := append(sc.at[:0], make([]float64, len(ranks))...)
	sc.at = at
	sc.rankScores(scores, ranks, at)
	ranks = append(ranks, n)
	// Least total of bound × size + a penalty per segment, over cuts at
	// candidate ranks.
	m := len(ranks)
	pen := segmentPenalty * at[0] * float64(n)
	cost := append(sc.cost[:0], make([]float64, m)...)
	prev := append(sc.prev[:0], make([]int, m)...)
	sc.cost, sc.prev = cost, prev
	for j := 1; j < m; j++ {
		cost[j] = math.Inf(1)
		for i := 0; i < j; i++ {
			if c := cost[i] + at[i]*float64(ranks[j]-ranks[i]) + pen; c < cost[j] {
				cost[j], prev[j] = c, i
			}
		}
	}
	cuts := sc.cuts[:0]
	for j := prev[m-1]; j > 0; j = prev[j] {
		cuts = append(cuts, at[j])
	}
	slices.Reverse(cuts)
	sc.cuts = cuts
	return cuts
}

// rankScores puts in at[i] the score of rank ranks[i] (0: the highest)
// of a, ranks ascending, reordering a. Scores are bucketed by the high
// bits of their float64 encoding, which orders non-negative floats as
// their values: one pass finds the range, one counts each bucket, one
// gathers the buckets the ranks fall in, and selection finds each rank
// within its bucket only. selectRanks over the whole list took six to
// seven partitions of it, a quarter of segmenting (perf record of a
// recompile of 10,000 generated skills). A list holding a negative score
// or NaN (weights of a malformed catalog) is left to selectRanks.
func (sc *segmentScratch) rankScores(a []float64, ranks []int, at []float64) {
	if len(ranks) == 0 {
		return
	}
	lo, hi := uint64(math.MaxUint64), uint64(0)
	for _, v := range a {
		u := math.Float64bits(v)
		lo, hi = min(lo, u), max(hi, u)
	}
	if hi > math.Float64bits(math.Inf(1)) { // a sign bit, or NaN
		selectRanks(a, ranks, at, 0)
		return
	}
	// About a bucket for every two scores, up to 1 << rankBucketBits.
	shift := max(0, bits.Len64(hi-lo)-min(rankBucketBits, bits.Len(uint(len(a)))-1))
	counts := append(sc.buckets[:0], make([]uint32, (hi-lo)>>shift+2)...)
	sc.buckets = counts
	for _, v := range a {
		counts[(math.Float64bits(v)-lo)>>shift+1]++
	}
	for b := 1; b < len(counts); b++ { // counts[b]: the values below bucket b
		counts[b] += counts[b-1]
	}
	// Each rank's bucket, as the ascending index of its value; a bucket
	// that holds several ranks is gathered once.
	n := len(a)
	where := append(sc.where[:0], make([]int32, len(counts))...) // bucket -> its first place in gathered, + 1
	sc.where = where
	gathered := 0
	buckets := append(sc.rankBucket[:0], make([]int, len(ranks))...)
	sc.rankBucket = buckets
	for i, r := range ranks {
		k := uint32(n - 1 - r)
		b, _ := slices.BinarySearchFunc(counts[1:], k, func(c, k uint32) int { return cmp.Compare(c, k+1) })
		buckets[i] = b
		if where[b] == 0 {
			where[b] = int32(gathered) + 1
			gathered += int(counts[b+1] - counts[b])
		}
	}
	g := append(sc.gathered[:0], make([]float64, gathered)...)
	sc.gathered = g
	for _, v := range a {
		b := (math.Float64bits(v) - lo) >> shift
		if w := where[b]; w != 0 {
			g[w-1] = v
			where[b]++
		}
	}
	// where[b] has moved past the bucket's values: gathered[where[b]-1]
	// is where the next bucket's start.
	for i, r := range ranks {
		k, b := uint32(n-1-r), buckets[i]
		end := int(where[b] - 1)
		bucket := g[end-int(counts[b+1]-counts[b]) : end]
		at[i] = selectNth(bucket, int(k-counts[b]))
	}
}

// rankBucketBits is the number of buckets rankScores spreads a term's
// scores over, as a power of two: 2,048, a few hundred per doubling of
// the score over the range a term's scores span.
const rankBucketBits = 11

// selectRanks puts in at[i] the score of rank ranks[i] (0: the highest)
// of a, ranks ascending, reordering a: a selection per rank, each in the
// part of a the ranks before and after it left.
func selectRanks(a []float64, ranks []int, at []float64, offset int) {
	if len(ranks) == 0 {
		return
	}
	mid := len(ranks) / 2
	k := len(a) - 1 - (ranks[mid] - offset) // ascending index in a of that rank
	at[mid] = selectNth(a, k)
	// a[k+1:] holds the higher ranks' scores, a[:k] the lower.
	selectRanks(a[k+1:], ranks[:mid], at[:mid], offset)
	selectRanks(a[:k], ranks[mid+1:], at[mid+1:], offset+len(a)-k)
}

// segmentTerm cuts term t's postings into segments (see buildSegments).
func (ix *Index) segmentTerm(t int, norms []float64, sc *segmentScratch, out *segmentsOut) {
	out.termSegs = append(out.termSegs, uint32(len(out.exact)))
	from, to := ix.Starts[t], ix.Starts[t+1]
	if from == to {
		return
	}
	runs := sc.runs[:0]
	for p := from; p < to; {
		r := skillRun{from: p}
		s := ix.PostSkill[p]
		tf, kw, boost := 0.0, 0.0, 1.0
		for ; p < to && ix.PostSkill[p] == s; p++ {
			w, f := float64(ix.PostWeight[p]), Field(ix.PostField[p])
			tf += w
			if f.IsKeyword() {
				kw += w * PartialFactor
			}
			boost = max(boost, TierBoost(f))
		}
		r.to = p
		norm := norms[s]
		r.exact = boost * saturateNorm(tf, math.Abs(norm))
		if kw > 0 && norm >= 0 { // a partial match counts nothing in a derived skill (bm25's counts)
			r.partial = saturateNorm(kw, norm)
		}
		runs = append(runs, r)
	}
	sc.runs = runs
	if len(runs) < segmentFrom {
		// One segment, without the tiering below: most terms reach few
		// skills, and tiering them cost BenchmarkSegments 12 %.
		exact, partial := 0.0, 0.0
		for i := range runs {
			exact, partial = max(exact, runs[i].exact), max(partial, runs[i].partial)
		}
		eb, pb := roundUp(exact), roundUp(partial)
		out.segStart = append(out.segStart, from)
		out.exact = append(out.exact, eb)
		out.partial = append(out.partial, pb)
		el, pl := newLevelBound(eb), newLevelBound(pb)
		for _, r := range runs {
			ix.setLevels(r.from, r, el, pl)
		}
		return
	}
	// A skill's tier is the number of cuts its score does not pass; a
	// cut is the best score of the segment below it, so that a skill
	// tied with it joins that segment, whose bound it does not raise.
	scores := sc.scores[:0]
	for i := range runs {
		scores = append(scores, runs[i].exact)
	}
	sc.scores = scores
	cuts := sc.cutScores(scores)
	tiers := len(cuts) + 1
	counts := append(sc.counts[:0], make([]int, tiers)...)
	sc.counts = counts
	for i := range runs {
		tier := 0
		for tier < len(cuts) && runs[i].exact <= cuts[tier] {
			tier++
		}
		runs[i].tier = tier
		counts[tier]++
	}
	// A small segment joins the one above it (that one's runs stay
	// where they are, even if it joined the one above it in turn).
	into := append(sc.into[:0], make([]int, tiers)...)
	sc.into = into
	for tier := range into {
		into[tier] = tier
		if tier > 0 && counts[tier] > 0 && counts[tier] < segmentMin {
			into[tier] = tier - 1
			counts[tier-1] += counts[tier]
			counts[tier] = 0
		}
	}
	// Each tier's postings and bounds, its runs in skill order.
	size := append(sc.next[:0], make([]uint32, tiers)...)
	exact := append(sc.exact[:0], make([]float64, tiers)...)
	partial := append(sc.partial[:0], make([]float64, tiers)...)
	sc.next, sc.exact, sc.partial = size, exact, partial
	for i := range runs {
		r := &runs[i]
		r.tier = into[r.tier]
		size[r.tier] += r.to - r.from
		exact[r.tier], partial[r.tier] = max(exact[r.tier], r.exact), max(partial[r.tier], r.partial)
	}
	at := from
	for tier := range size {
		exact[tier], partial[tier] = float64(roundUp(exact[tier])), float64(roundUp(partial[tier]))
		if counts[tier] > 0 {
			out.segStart = append(out.segStart, at)
			out.exact = append(out.exact, float32(exact[tier]))
			out.partial = append(out.partial, float32(partial[tier]))
		}
		size[tier], at = at, at+size[tier] // size becomes where the tier's postings go
	}
	levels := append(sc.levels[:0], make([][2]levelBound, tiers)...)
	sc.levels = levels
	for tier := range levels {
		levels[tier] = [2]levelBound{newLevelBound(float32(exact[tier])), newLevelBound(float32(partial[tier]))}
	}
	if counts[0] == len(runs) {
		for _, r := range runs { // one segment: the postings stay in skill order
			ix.setLevels(r.from, r, levels[0][0], levels[0][1])
		}
		return
	}
	// Reorder the term's postings: by tier, then by skill (runs are in
	// skill order: a counting sort keeps it), an element at a time (a
	// run is one to three postings: copy's call cost more than the copy).
	post := append(sc.post[:0], ix.PostSkill[from:to]...)
	weight := append(sc.weight[:0], ix.PostWeight[from:to]...)
	field := append(sc.field[:0], ix.PostField[from:to]...)
	sc.post, sc.weight, sc.field = post, weight, field
	next := size
	for i := range runs {
		r := &runs[i]
		at := next[r.tier]
		for p := r.from - from; p < r.to-from; p++ {
			ix.PostSkill[at], ix.PostWeight[at], ix.PostField[at] = post[p], weight[p], field[p]
			at++
		}
		ix.setLevels(next[r.tier], *r, levels[r.tier][0], levels[r.tier][1])
		next[r.tier] = at
	}
}

// setLevels records the impact levels of run r, whose postings start at
// from, in a segment of bounds eb and pb: on the run's first posting, the
// others keeping 0.
func (ix *Index) setLevels(from uint32, r skillRun, eb, pb levelBound) {
	ix.PostExact[from], ix.PostPartial[from] = eb.level(r.exact), pb.level(r.partial)
}

// roundUp returns the least float32 not below x.
func roundUp(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// selectNth reorders a so that a[k] holds what it would hold sorted, no
// greater value before it and no smaller after, and returns it: Hoare's
// selection, a median of three for the pivot, in expected linear time;
// past a few dozen rounds (a pathological order) it sorts what is left.
func selectNth(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for round := 0; lo < hi; round++ {
		if round > 64 {
			slices.Sort(a[lo : hi+1])
			break
		}
		mid := lo + (hi-lo)/2
		// Median of three at mid: a[lo] <= a[mid] <= a[hi].
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		pivot := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < pivot {
				i++
			}
			for pivot < a[j] {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k] // between j and i: equal to the pivot
		}
	}
	return a[k]
}

// averageStep is the ratio between neighbouring averages of the grid
// gridAverage puts a catalog's average lengths on. Every posting's weight
// and impact level depends on them (a text field's average in its
// weight, the skills' average length in its level), so an average that
// moved with every edit made a recompile redo every posting; on a grid of
// 1 % steps a line added to or taken from one skill among 300 leaves it
// where it was, and a recompile keeps the postings of every term the edit
// did not touch (reuse.go; TestRecompileReusesPostings, where a body
// emptied moves the bodies' average by one step). Against the exact
// averages, no figure of any dev set moved (evalall.sh), nor the
// generated prompts' top-1 at 10,000 and 100,000 skills (BENCHMARKS.md).
const averageStep = 0.01

// gridAverage returns the point of a geometric grid of ratio
// 1 + averageStep nearest to the average x (in logarithm): the same for
// every x near enough to it, computed the same way by a cold compile and
// a recompile. Zero, a negative or a non-finite x is returned as it is.
func gridAverage(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return x
	}
	step := math.Log1p(averageStep)
	return math.Exp(math.Round(math.Log(x)/step) * step)
}
