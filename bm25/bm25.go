// Package bm25 scores the skills of a compiled index against a query.
//
// For each query term the scorer looks the term up in the index's term
// table and walks its postings; terms of at least three characters also
// meet the keywords that contain them (partial match, "query" inside "slow
// query"), through the index's trigram table. It never visits a skill that
// shares no term with the query, so the cost grows with the postings the
// query touches, not with the catalog. Score and ScoreWith score every
// skill the query reaches; TopK, which the router uses, finds the same
// results for the k best and a few named skills while skipping most of
// the rest (WAND over the index's impact segments, topk.go), so that a
// common word reaching half of a large catalog costs little.
//
// A skill's score is the sum over matched index terms of
//
//	w_q × tf × (k1 + 1) / (tf + k1 × (1 − b + b × dl / avgdl))
//
// where tf is the sum of the term's compiled weights over the skill's
// fields (tier × IDF for keywords, field weight × IDF for text: BM25F), ×
// PartialFactor for a partial match, and w_q is the query term's weight (1,
// lower for synonyms and negated words). IDF is inside tf already and is
// not applied again. Each word of the prompt (with its synonyms) and each
// index term counts once per skill, at its best pairing.
package bm25

import (
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/skillroute/skillroute/index"
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

// Match is one index term that contributed to a skill's score.
type Match struct {
	TermID  int
	Term    string  // index term
	Query   string  // the query term that reached it
	Origin  string  // the prompt's own word behind Query (itself, unless a synonym)
	Surface string  // that word as the prompt wrote it
	Partial bool    // the query term is inside the index term
	Fields  []Field // per-field parts of tf
	TF      float64
	QWeight float64
	Score   float64
	skill   int
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
func (r *Result) Explain(ix *index.Index) *Explanation {
	s := ix.Skills[r.Skill]
	msg := fmt.Sprintf("bm25 %s (dl %.1f, avgdl %.1f, k1 %.1f, b %.2f)", r.Name, s.Length, ix.AvgLength, K1, B)
	if r.Learned != 0 {
		msg += fmt.Sprintf(", × learned (1 %+.2f)", r.Learned)
	}
	e := &Explanation{Value: r.Score, Message: msg}
	for _, m := range r.Matches {
		kind := "exact"
		if m.Partial {
			kind = fmt.Sprintf("partial ×%.1f", PartialFactor)
		}
		msg := fmt.Sprintf("%q %s", m.Term, kind)
		if m.Query != m.Term {
			msg += fmt.Sprintf(" via %q", m.Query)
		}
		if m.QWeight != 1 {
			msg += fmt.Sprintf(", query weight %.2f", m.QWeight)
		}
		c := &Explanation{Value: m.Score, Message: msg + fmt.Sprintf(", tf %.3f", m.TF)}
		for _, f := range m.Fields {
			idf := ix.TermIDF(m.TermID, f.Field.IsKeyword())
			base := f.Weight / idf
			if f.Learned != 0 && 1+f.Learned > 0 {
				base /= 1 + f.Learned
			}
			msg := fmt.Sprintf("%s field, weight %.2f × idf %.2f", f.Field, base, idf)
			if m.Partial {
				msg = fmt.Sprintf("%s field, weight %.2f × idf %.2f × partial %.1f", f.Field, base/PartialFactor, idf, PartialFactor)
			}
			if f.Learned != 0 {
				msg += fmt.Sprintf(" × learned (1 %+.2f)", f.Learned)
			}
			c.Children = append(c.Children, &Explanation{Value: f.Weight, Message: msg})
		}
		e.Children = append(e.Children, c)
	}
	return e
}

// Adjuster changes weights at route time: what the feedback learner
// learned from corrections. KeywordDelta scales the tf of one skill's
// index term by (1 + delta); SkillDelta scales the skill's score.
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
	visit := func(qt tokenize.Term, term int, partial bool) {
		origin := qt.From
		if origin == "" {
			origin = qt.Text
		}
		// A skill's postings of a term come together: one run per skill.
		m, from := Match{skill: -1}, len(fields)
		flush := func() {
			if m.TF > 0 {
				norm := K1 * (1 - B + B*ix.Skills[m.skill].Length/ix.AvgLength)
				m.Score = qt.Weight * m.TF * (K1 + 1) / (m.TF + norm)
				m.Fields = fields[from:len(fields):len(fields)]
				reach = append(reach, m)
			}
		}
		ix.Postings(term, func(p index.Posting) {
			if partial && !p.Field.IsKeyword() {
				return
			}
			if p.Skill != m.skill {
				flush()
				m = Match{TermID: term, Term: ix.Term(term), Query: qt.Text, Origin: origin, Surface: qt.Surface, Partial: partial, QWeight: qt.Weight, skill: p.Skill}
				from = len(fields)
			}
			w := p.Weight
			if partial {
				w *= PartialFactor
			}
			var learned float64
			if adj != nil && p.Field.IsKeyword() {
				learned = adj.KeywordDelta(ix.Skills[p.Skill].Name, m.Term)
				w *= max(0, 1+learned)
			}
			m.TF += w
			fields = append(fields, Field{Field: p.Field, Weight: w, Learned: learned})
		})
		flush()
	}
	for _, qt := range q.Terms {
		if id := ix.TermID(qt.Text); id >= 0 {
			visit(qt, id, false)
		}
		if utf8.RuneCountInString(qt.Text) >= index.MinPartial {
			ix.Containing(qt.Text, func(id int) { visit(qt, id, true) })
		}
	}
	sort.Slice(reach, func(i, j int) bool {
		a, b := &reach[i], &reach[j]
		switch {
		case a.skill != b.skill:
			return a.skill < b.skill
		case a.Score != b.Score:
			return a.Score > b.Score
		case a.Term != b.Term:
			return a.Term < b.Term
		}
		return a.Query < b.Query
	})
	var out []Result
	usedQ, usedT := map[string]bool{}, map[string]bool{}
	for i := 0; i < len(reach); {
		j := i
		for j < len(reach) && reach[j].skill == reach[i].skill {
			j++
		}
		clear(usedQ)
		clear(usedT)
		r := Result{Skill: reach[i].skill, Name: ix.Skills[reach[i].skill].Name}
		for _, m := range reach[i:j] {
			if usedQ[m.Origin] || usedT[m.Term] {
				continue
			}
			usedQ[m.Origin], usedT[m.Term] = true, true
			r.Score += m.Score
			r.Matches = append(r.Matches, m)
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

// Sort orders results by score, then by name so that ties are stable.
func Sort(rs []Result) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Score != rs[j].Score {
			return rs[i].Score > rs[j].Score
		}
		return rs[i].Name < rs[j].Name
	})
}
