// Package bm25 scores the skills of a compiled index against a query.
//
// For each query term the scorer looks the term up in the index's term
// table and walks its postings; terms of at least three characters that
// are no skill's keyword also meet the keywords that contain them (partial
// match, "query" inside "slow query"), through the index's trigram table.
// It never visits a skill that
// shares no term with the query, so the cost grows with the postings the
// query touches, not with the catalog. Score and ScoreWith score every
// skill the query reaches; TopK, which the router uses, finds the same
// results for the k best and a few named skills while scoring few of the
// rest (a pass summing the bounds the index keeps of each posting's
// score, then scoring only the skills whose sum can reach the k best:
// topk.go, bounds.go), so that a common word reaching half of a large
// catalog costs a few instructions a posting, or, when what it can add
// is small, none.
//
// A skill's score is the sum over matched index terms of
//
//	w_q × tf × (k1 + 1) / (tf + k1 × (1 − b + b × dl / avgdl))
//
// where tf is the sum of the term's compiled weights over the skill's
// fields (tier × IDF for keywords, field weight × IDF for text: BM25F), ×
// PartialFactor and the prompt word's rarity in the catalog's texts for a
// partial match, and w_q is the query term's weight (1,
// lower for synonyms and negated words). IDF is inside tf already and is
// not applied again. An exact match found in a core or strong keyword
// counts × CoreBoost or StrongBoost: saturation would otherwise leave a
// named technology little above a neighbour's generic words. A match
// that is the skill's own name, or cut from
// words that spell the name out ("test driven development"), counts ×
// NameBoost. Each word of the prompt (with its synonyms) and each
// index term counts once per skill, at its best pairing, and words cut
// from overlapping stretches of the prompt count once between them: "加载慢"
// and its window "加载", "tests/conftest.py" and its part "conftest", a
// phrase and its words are one piece of evidence, not several: of
// overlapping matches the best-scoring set that does not overlap counts
// (packing), the rest OverlapShare of their score. A term cut
// from pasted material (tokenize.Term.Noise) meets keywords only; on a
// skill whose author wrote its keywords, only its core and strong ones. A
// number of one or two digits meets keywords only too (keywordsOnly).
package bm25

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/skillroute/skillroute/explain"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// BM25 parameters: k1 = 1.2 saturates quickly, so no single keyword owns a
// score; b = 0.75 is the classic length normalisation, mild here because
// skills are of similar length. Defined in package index, whose per-term
// score bounds are computed with them.
const (
	K1 = index.K1
	B  = index.B
)

// PartialFactor discounts a keyword that merely contains the query term.
const PartialFactor = index.PartialFactor

// CoreBoost and StrongBoost multiply an exact match found in a core or
// strong keyword, after saturation (index.TierBoost says why).
const (
	CoreBoost   = index.CoreBoost
	StrongBoost = index.StrongBoost
)

// OverlapShare is what a match counts when its words overlap a better
// match of the same skill ("测试" inside "补几个测试", "conftest" inside
// "tests/conftest.py"): it confirms that match rather than adding
// evidence of its own, so it adds a small share, not its full score.
// Fitted by cross-validation over the dev sets (5-fold by query hash):
// four folds of five chose 0.15 among 0, 0.15, 0.3, 0.5 and 1; all of 0
// to 0.5 route within one prompt of each other.
const OverlapShare = 0.15

// NameBoost multiplies the score of a match that is its skill's own name
// ("pptx" for the pptx skill, "PPT" through its synonym; a plugin's skill
// by its bare name), or cut from words that spell the name out
// (spelledNames, TestSpelledNameWins): the word Claude Code invokes a skill by is the
// surest evidence a prompt can give, and saturation left it no more than
// a neighbour's well-spread word (the name as a core keyword scored 1.00
// against 0.96 for another skill's "slide" in three fields:
// TestNameMatchWins). Names are rarely typed in the dev prompts: every
// value from 1.25 to 2 routes each dev set the same; 1.5 lies within.
const NameBoost = 1.5

// Match is one index term that contributed to a skill's score.
type Match struct {
	TermID  int
	Term    string // index term
	Query   string // the query term that reached it
	Origin  string // the prompt's own word behind Query (itself, unless a synonym)
	Surface string // that word as the prompt wrote it
	Partial bool   // the query term is inside the index term
	Pos     int    // the prompt's bytes the query term came from (tokenize.Term)
	End     int
	// Compound: the query term is a Chinese word made of words, met whole
	// (tokenize.Term.Compound); it counts beside them (wordPhrase).
	Compound bool
	Overlap  bool    // cut from a stretch a better match of the skill already counted: × OverlapShare
	Named    bool    // the term is the skill's name: × NameBoost
	Tier     float64 // an exact match's best keyword tier's boost (index.TierBoost), 1 for none
	Rarity   float64 // for a partial match: how rare the prompt's word is in the catalog's texts, in (0, 1]
	Fields   []Field // per-field parts of tf
	TF       float64
	QWeight  float64
	Score    float64
	skill    int
}

// Field is one field's part of a match.
type Field struct {
	Field  index.Field
	Weight float64 // tf-idf weight, × PartialFactor for a partial match, × (1 + Learned)
	// Learned is the learner's delta for this keyword of this skill.
	Learned float64
}

// Result is one scored skill.
type Result struct {
	Skill   int
	Name    string
	Score   float64
	Matches []Match
	Learned float64 // the learner's delta for the skill, applied to Score
}

// Explain renders the result's score as an explanation tree.
func (r *Result) Explain(ix *index.Index) *explain.Node {
	msg := fmt.Sprintf("bm25 %s (dl %.1f, avgdl %.1f, k1 %.1f, b %.2f)", r.Name, ix.Skills.Length(r.Skill), ix.AvgLength, K1, B)
	if r.Learned != 0 {
		msg += fmt.Sprintf(", × learned (1 %+.2f)", r.Learned)
	}
	e := &explain.Node{Value: r.Score, Message: msg}
	for _, m := range r.Matches {
		kind := "exact"
		if m.Partial {
			kind = fmt.Sprintf("partial ×%.1f × rarity %.2f", PartialFactor, m.Rarity)
		}
		if m.Tier > 1 {
			kind += fmt.Sprintf(", %s keyword ×%.2f", tierName(m.Tier), m.Tier)
		}
		if m.Named {
			kind += fmt.Sprintf(", the skill's name ×%.1f", NameBoost)
		}
		if m.Overlap {
			kind += fmt.Sprintf(", overlaps a better match ×%.1f", OverlapShare)
		}
		msg := fmt.Sprintf("%q %s", m.Term, kind)
		if m.Query != m.Term {
			msg += fmt.Sprintf(" via %q", m.Query)
		}
		if m.Origin != m.Query && m.Origin != "" {
			// An expansion: a synonym, a translation or an implied
			// concept of the word the prompt wrote.
			msg += fmt.Sprintf(", from %q", m.Origin)
		}
		if origin := cmp.Or(m.Origin, m.Query); tokenize.HanCount(m.Surface) > 0 && m.Surface != origin {
			// A Chinese word the prompt wrote with a gap (磁盘快满 for 磁盘满).
			msg += fmt.Sprintf(", written %q", m.Surface)
		}
		if m.QWeight != 1 {
			msg += fmt.Sprintf(", query weight %.2f", m.QWeight)
		}
		c := &explain.Node{Value: m.Score, Message: msg + fmt.Sprintf(", tf %.3f", m.TF)}
		for _, f := range m.Fields {
			idf := ix.TermIDF(m.TermID, f.Field.IsKeyword())
			base := f.Weight / idf
			if f.Learned != 0 && 1+f.Learned > 0 {
				base /= 1 + f.Learned
			}
			msg := fmt.Sprintf("%s field, weight %.2f × idf %.2f", f.Field, base, idf)
			if m.Partial {
				msg = fmt.Sprintf("%s field, weight %.2f × idf %.2f × partial %.1f × rarity %.2f", f.Field, base/(PartialFactor*m.Rarity), idf, PartialFactor, m.Rarity)
			}
			if f.Learned != 0 {
				msg += fmt.Sprintf(" × learned (1 %+.2f)", f.Learned)
			}
			c.Children = append(c.Children, &explain.Node{Value: f.Weight, Message: msg})
		}
		e.Children = append(e.Children, c)
	}
	return e
}

// Adjuster changes weights at route time: what the feedback learner
// learned from corrections. KeywordDelta scales the tf of one skill's
// index term, in every field, by (1 + delta); SkillDelta scales the
// skill's score.
type Adjuster interface {
	KeywordDelta(skill, term string) float64
	SkillDelta(skill string) float64
}

// Score returns every skill that matches the query, best first.
func Score(ix *index.Index, q tokenize.Query) []Result {
	return ScoreWith(ix, q, nil)
}

// ScoreWith scores with learned adjustments (adj may be nil).
func ScoreWith(ix *index.Index, q tokenize.Query, adj Adjuster) []Result {
	// Every way a query term reaches a skill, then per skill a greedy
	// one-to-one assignment: each word of the prompt (with its synonyms)
	// and each index term counts once, at its best. Without it, "react"
	// would score again inside every "react ..." keyword of a skill, and
	// a word with six synonyms would count six times. Matches go into one
	// flat list and their field parts into one shared slice: the scorer
	// allocated a map entry and a slice per match before, and garbage
	// collection was a fifth of routing time.
	var reach []Match
	var fields []Field
	spelled := spelledNames(ix, q)
	visit := func(qt tokenize.Term, term int, partial bool, rarity float64) {
		origin := qt.From
		if origin == "" {
			origin = qt.Text
		}
		kwOnly := keywordsOnly(&qt)
		// A skill's postings of a term come together: one run per skill.
		m, from := Match{skill: -1}, len(fields)
		flush := func() {
			if m.TF > 0 {
				m.Fields = fields[from:len(fields):len(fields)]
				m.Score = matchScore(ix, &m, spelled)
				reach = append(reach, m)
			}
		}
		ix.Postings(term, func(p index.Posting) {
			if !counts(ix, p.Skill, p.Field, partial, kwOnly) {
				return
			}
			if p.Skill != m.skill {
				flush()
				m = Match{TermID: term, Term: ix.Term(term), Query: qt.Text, Origin: origin, Surface: qt.Surface, Partial: partial, QWeight: qt.Weight,
					Pos: qt.Pos, End: qt.End, Rarity: rarity, Compound: qt.Compound, skill: p.Skill}
				from = len(fields)
			}
			w, learned := weigh(ix, adj, p.Skill, m.Term, p.Weight, partial, rarity)
			m.TF += w
			fields = append(fields, Field{Field: p.Field, Weight: w, Learned: learned})
		})
		flush()
	}
	for _, qt := range q.Terms {
		id := ix.TermID(qt.Text)
		if id >= 0 {
			visit(qt, id, false, 1)
		}
		if !qt.Noise && utf8.RuneCountInString(qt.Text) >= index.MinPartial && !isKeyword(ix, id) {
			// A partial match is evidence of the prompt's word, not of the
			// keyword holding it: "app" inside "app router" says as little
			// as "app" does, which most skills' texts use.
			rarity := partialRarity(ix, id)
			ix.Containing(qt.Text, func(id int) { visit(qt, id, true, rarity) })
		}
	}
	// Sorted by position, not moved: a Match is some 200 bytes, and
	// swapping them was a tenth of routing.
	order := make([]int32, len(reach))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		a, b := &reach[i], &reach[j]
		switch {
		case a.skill != b.skill:
			return a.skill - b.skill
		case a.Score != b.Score:
			return cmp.Compare(b.Score, a.Score)
		case a.Term != b.Term:
			return strings.Compare(a.Term, b.Term)
		}
		return strings.Compare(a.Query, b.Query)
	})
	var out []Result
	usedQ, usedT := map[string]bool{}, map[string]bool{}
	var pack packing
	for i := 0; i < len(order); {
		skill := reach[order[i]].skill
		j := i
		for j < len(order) && reach[order[j]].skill == skill {
			j++
		}
		clear(usedQ)
		clear(usedT)
		r := Result{Skill: skill, Name: ix.Skills.Name(skill)}
		for _, k := range order[i:j] {
			m := &reach[k]
			if usedQ[m.Origin] || usedT[m.Term] {
				continue
			}
			usedQ[m.Origin], usedT[m.Term] = true, true
			r.Matches = append(r.Matches, *m)
		}
		pack.independent(r.Matches)
		for k := range r.Matches {
			m := &r.Matches[k]
			if m.Overlap {
				m.Score *= OverlapShare
			}
			r.Score += m.Score
		}
		if adj != nil {
			r.Learned = adj.SkillDelta(r.Name)
			r.Score *= max(0, 1+r.Learned)
		}
		out = append(out, r)
		i = j
	}
	Sort(out)
	return out
}

// counts reports whether a posting counts towards a match, in every
// scorer: a partial match and pasted noise meet keywords only, and a
// partial match no derived phrase ("python test" is made of words that are
// keywords on their own, each weighed by how distinctive it is: met by one
// of them, it would count that word again at the phrase's weight).
//
// Pasted noise meets no extended keyword an author wrote: that tier is
// broad by design ("config", "api", "deploy" in the built-in skills), and
// a pasted manifest or log writes such words on every line. A plain
// skill's derived keywords are the distinctive words of its own text, and
// pasted noise still meets them all. On the hash halves of the project's
// twelve sets, prompts right 894/877 -> 894/879 (noisy.jsonl 113 -> 115
// of 120; train-noisy.jsonl 93 -> 94 of 100); keeping noise from derived
// extended keywords as well cost real-dev, real-fresh and
// train-noisy-real.jsonl four prompts.
func counts(ix *index.Index, skill int, f index.Field, partial, noise bool) bool {
	if (partial || noise) && !f.IsKeyword() {
		return false
	}
	if noise && f == index.FieldExtended && !ix.Skills.Derived(skill) {
		return false
	}
	return !partial || !ix.Skills.Derived(skill)
}

// keywordsOnly reports a query term that meets a skill's keywords and not
// its text, as pasted material does (counts): a term cut from a paste, or
// a number of one or two digits. In a prompt such a number is a count or
// a size ("3 groups of about 25 participants", "15 分钟"), in a body an
// example's; met there, "25" sent a statistics question to a dataframe
// skill whose examples hold it. A longer number names something (a status
// code, a port) and still meets the text (TestSmallNumbersMeetKeywordsOnly).
// Measured with skillroute eval: paraphrase.jsonl 158 -> 159 of 200,
// train-noisy3's no-skill prompts 7 -> 8 of 20 silent, real-fresh 115 ->
// 114 of 131 (a near tie), every other set the same; keeping numbers of
// any length from the text gained one more prompt of a read half and
// none of the tuning sets.
func keywordsOnly(qt *tokenize.Term) bool {
	if qt.Noise {
		return true
	}
	if len(qt.Text) > maxProseNumber {
		return false
	}
	for i := 0; i < len(qt.Text); i++ {
		if qt.Text[i] < '0' || qt.Text[i] > '9' {
			return false
		}
	}
	return qt.Text != ""
}

// maxProseNumber is the longest number, in digits, that meets only
// keywords (keywordsOnly).
const maxProseNumber = 2

// weigh is a counted posting's part of its match's tf: its weight, ×
// PartialFactor × rarity for a partial match, × (1 + the learner's delta)
// in every field (a skill found through its description, "payment", gains
// from a correction as one found through a keyword does).
func weigh(ix *index.Index, adj Adjuster, skill int, term string, weight float64, partial bool, rarity float64) (w, learned float64) {
	w = weight
	if partial {
		w *= PartialFactor * rarity
	}
	if adj != nil {
		learned = adj.KeywordDelta(ix.Skills.Name(skill), term)
		w *= max(0, 1+learned)
	}
	return w, learned
}

// tierName names the keyword tier whose boost is b.
func tierName(b float64) string {
	if b == CoreBoost {
		return index.FieldCore.String()
	}
	return index.FieldStrong.String()
}

// matchScore is a match's score: saturate, × the boost of the best
// keyword tier an exact match was found in (m.Fields; noted in m.Tier),
// × NameBoost for a match that is its skill's name, or cut from where
// the prompt spells the name in words (spelled; noted in m.Named).
func matchScore(ix *index.Index, m *Match, spelled []spelling) float64 {
	s := saturate(ix, m.skill, m.QWeight, m.TF)
	m.Tier = 1
	if !m.Partial {
		for _, f := range m.Fields {
			m.Tier = max(m.Tier, index.TierBoost(f.Field))
		}
	}
	s *= m.Tier
	if m.Named = isName(ix.Skills.Name(m.skill), m) || spells(spelled, m); m.Named {
		s *= NameBoost
	}
	return s
}

// MaxNameWords is the most words a skill's name is read back from when a
// prompt spells it out: "finishing-a-development-branch" has four.
const MaxNameWords = 5

// spelling is a stretch of the prompt (its bytes) that spells a skill's
// name in words.
type spelling struct{ skill, pos, end int }

// spelledNames returns where the prompt spells the name of a skill in two
// words or more, as words written apart ("use test-driven development"
// or "test driven development" for test-driven-development): the runs of
// joined words (tokenize.Word) whose hyphen-joined text is a skill's
// name or a plugin skill's bare name. Each name is the skill's own word
// for itself, so its words there count as its name does, × NameBoost; a
// run is looked up only while some name starts with it.
func spelledNames(ix *index.Index, q tokenize.Query) []spelling {
	var out []spelling
	ws := q.Words
	for i := range ws {
		name := ws[i].Text
		for j := i + 1; j < len(ws) && j-i < MaxNameWords && ws[j].Joined; j++ {
			if !ix.NameStarts(name + "-") {
				break
			}
			name += "-" + ws[j].Text
			if id := ix.Named(name); id >= 0 {
				out = append(out, spelling{id, ws[i].Pos, ws[j].End})
			}
		}
	}
	return out
}

// spells reports whether m was cut from a stretch that spells its
// skill's name.
func spells(spelled []spelling, m *Match) bool {
	for _, sp := range spelled {
		if sp.skill == m.skill && sp.pos <= m.Pos && m.End <= sp.end && m.Pos < m.End {
			return true
		}
	}
	return false
}

// isName reports whether an exact match is its skill's name: the index
// term, the query term or the prompt's word is the name, or a plugin
// skill's bare name ("pptx" of "documents:pptx").
func isName(name string, m *Match) bool {
	if m.Partial {
		return false
	}
	bare := skills.BareName(name)
	if m.Term == bare || m.Query == bare || m.Surface == bare {
		return true
	}
	tool := skills.Unversioned(bare)
	return tool != bare && (m.Term == tool || m.Query == tool || m.Surface == tool)
}

// saturate is a match's BM25 score: tf saturated by K1, the skill's length
// normalised by B, at the query term's weight.
func saturate(ix *index.Index, skill int, qw, tf float64) float64 {
	norm := K1 * (1 - B + B*ix.Skills.Length(skill)/ix.AvgLength)
	return qw * tf * (K1 + 1) / (tf + norm)
}

// isKeyword reports whether term id is a curated keyword of some skill:
// then the prompt's word names that skill's subject whole, and the longer
// keywords that merely contain it ("python" inside "python爬虫") are not
// met partially. Read off the segments' partial bounds, which count the
// keywords of skills whose keywords are curated (a derived skill's are
// never met partially).
func isKeyword(ix *index.Index, id int) bool {
	if id < 0 {
		return false
	}
	from, to := ix.Segments(id)
	for j := from; j < to; j++ {
		if ix.Segment(j).Partial > 0 {
			return true
		}
	}
	return false
}

// partialRarity is what a partial match of the prompt word id (-1: not an
// index term) is worth against its keyword: the word's rarity in the
// catalog's texts, at most 1. "app" inside "app router" says as little as
// "app" does, which most skills' texts use.
func partialRarity(ix *index.Index, id int) float64 {
	rarest := index.TextIDF(ix.Skills.Len(), 1)
	if id < 0 || rarest <= 0 {
		return 1
	}
	return min(1, ix.TermIDF(id, false)/rarest)
}

// packing finds, among a skill's matches, the stretches of the prompt
// that count as independent evidence: the set of matches whose spans do
// not overlap with the greatest total score (weighted interval
// scheduling). The rest confirm them and are marked Overlap. So "补几个测试"
// keeps its place over its part "测试" when it scores more, and gives way
// to it when it scores less. A match without a span (a term built by
// hand) overlaps nothing, and neither does a phrase met whole, English or
// a Chinese word made of words (wordPhrase).
type packing struct {
	order []int     // matches with a span, by end
	best  []float64 // best total over order[:k]
	take  []bool    // whether order[k-1] is in that best set
}

func (p *packing) independent(ms []Match) {
	p.order = p.order[:0]
	for i := range ms {
		if ms[i].End > ms[i].Pos && !wordPhrase(&ms[i]) {
			p.order = append(p.order, i)
		}
	}
	slices.SortStableFunc(p.order, func(a, b int) int { return ms[a].End - ms[b].End })
	n := len(p.order)
	p.best = slices.Grow(p.best[:0], n+1)[:n+1]
	p.take = slices.Grow(p.take[:0], n+1)[:n+1]
	p.best[0], p.take[0] = 0, false
	for k := 0; k < n; k++ {
		with := ms[p.order[k]].Score + p.best[p.before(ms, k)]
		p.best[k+1], p.take[k+1] = p.best[k], false
		if with > p.best[k] {
			p.best[k+1], p.take[k+1] = with, true
		}
	}
	for _, i := range p.order {
		ms[i].Overlap = true
	}
	for k := n; k > 0; {
		if p.take[k] {
			ms[p.order[k-1]].Overlap = false
			k = p.before(ms, k-1)
		} else {
			k--
		}
	}
}

// wordPhrase reports whether a match is an English phrase of the prompt
// met whole ("app sqlalchemy"): evidence that its words stand together,
// which its words alone do not give, so it counts beside them, as a
// phrase match adds to its terms' in a search engine. Packed against its
// words it lost to them, as one saturated term scores less than two: on
// a generated catalog of 1,000 skills (`skillroute bench gen --skills
// 1000 --seed 1`) top-1 fell from 99.3 % to 87.7 %. Counted beside them:
// 93.3 % there; the fresh set 93.3 -> 94.4 %, the action set's skill
// labels 76.9 -> 79.5 %, dev.jsonl, the sessions, real-dev and bookworm's
// set unchanged. Keeping only the longest exact match instead (its
// parts discarded) fell to 62.8 % on the generated catalog.
//
// A Chinese word the segmenter finds made of dictionary words end to end
// ("相机权限最小可行产品", tokenize.Term.Compound) is the same evidence
// written without a break, and counts beside them too: packed, a skill's
// own compound keyword lost to its two words, which rivals list
// separately, and the generic words of the sentence ("一直报错", "怎么排查")
// decided. On the generated catalogs (`skillroute bench gen --seed 1`)
// top-1 rose from 93.3 to 99.3 % at 1,000 skills and from 88.2 to 98.2 %
// at 10,000; bookworm's set 87.0 -> 87.8 %, the other dev sets unchanged
// (the sessions' with router.namesInUse). Other Chinese overlaps, a
// window or a word with a stretch no word covers ("补几个测试" and
// "测试"), and partial matches, stay packed.
func wordPhrase(m *Match) bool {
	return !m.Partial && (m.Compound || strings.Contains(m.Query, " ") && tokenize.HanCount(m.Query) == 0)
}

// before is how many of order[:k] end before order[k] starts (they are
// sorted by end).
func (p *packing) before(ms []Match, k int) int {
	start := ms[p.order[k]].Pos
	lo, hi := 0, k
	for lo < hi {
		mid := (lo + hi) / 2
		if ms[p.order[mid]].End > start {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// Sort orders results by score, then by name so that ties are stable.
func Sort(rs []Result) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Score != rs[j].Score {
			return rs[i].Score > rs[j].Score
		}
		return rs[i].Name < rs[j].Name
	})
}
