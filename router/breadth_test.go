package router

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// TestBreadth pins when a near tie goes to breadth: release-notes meets
// two words of the prompt, one of them many times over; release-checklist
// meets three, once each, and scores within TieMargin of it.
func TestBreadth(t *testing.T) {
	plain := []skills.Skill{
		{Name: "release-notes", Description: "Write release notes and a changelog for a new version from the merged pull requests.",
			Body: "Collect the merged pull requests since the last version and write one line per change."},
		{Name: "release-checklist", Description: "Ship a new version: tag the commit, build the artifacts and announce it.",
			Body: "Tag the commit, build the artifacts for every platform and announce the version."},
		{Name: "pr-review", Description: "Review a pull request diff for bugs, naming and missing tests."},
		{Name: "flaky-tests", Description: "Find and fix tests that pass and fail at random in CI."},
	}
	compile := func(written bool) *index.Index {
		cat := &skills.Catalog{Skills: append([]skills.Skill(nil), plain...)}
		if written {
			cat.Skills[0].Keywords = []skills.Keyword{{Text: "changelog", Tier: skills.Core, Weight: 1}}
		}
		return index.Compile(cat, nil, index.Options{})
	}
	match := func(ix *index.Index, word string, score float64) bm25.Match {
		term := tokenize.Normalize(word)
		id := ix.TermID(term)
		require.GreaterOrEqual(t, id, 0, "%q is no term of the index", term)
		return bm25.Match{TermID: id, Term: term, Query: term, QWeight: 1, Score: score, TF: score,
			Fields: []bm25.Field{{Field: index.FieldBody, Weight: score}}}
	}
	result := func(ix *index.Index, name string, ms ...bm25.Match) bm25.Result {
		r := bm25.Result{Skill: ix.SkillID(name), Name: name, Matches: ms}
		for _, m := range ms {
			r.Score += m.Score
		}
		return r
	}
	type setup struct {
		written  bool    // release-notes has a keyword its author wrote
		notes    float64 // release-notes' second match, on "changelog"
		named    bool    // ... or on "notes", a word of its name
		thin     bool    // release-notes meets "version" alone
		recent   []string
		fired    bool
		noise    bool // release-checklist's words were cut from pasted material
		wantFlip bool
	}
	tests := []struct {
		name string
		setup
	}{
		{"the broader skill passes the narrower one", setup{notes: 0.6, wantFlip: true}},
		{"no near tie", setup{notes: 2.6}},
		{"a session in progress decides", setup{notes: 0.6, recent: []string{"release-notes"}}},
		{"a fired rule decides", setup{notes: 0.6, fired: true}},
		{"written keywords say what a skill is about", setup{written: true, notes: 0.6}},
		{"a first that meets a word of its own name", setup{notes: 0.6, named: true}},
		{"pasted words are no evidence", setup{notes: 0.6, noise: true}},
		{"a first too thin to route stays first, to stay silent", setup{notes: 0.6, thin: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := compile(tt.written)
			second := match(ix, "changelog", tt.notes)
			if tt.named {
				second = match(ix, "notes", tt.notes)
			}
			notes := result(ix, "release-notes", match(ix, "version", 2.6), second)
			if tt.thin {
				notes = result(ix, "release-notes", match(ix, "version", 2.6+tt.notes))
			}
			checklist := result(ix, "release-checklist", match(ix, "tag", 1), match(ix, "build", 1), match(ix, "announce", 1), match(ix, "version", 0.2))
			st := &route{results: []bm25.Result{notes, checklist}, recent: tt.recent,
				cands: []disambig.Candidate{{Skill: notes.Name, Score: notes.Score}, {Skill: checklist.Name, Score: checklist.Score}}}
			if tt.fired {
				st.fired = []*disambig.Rule{{ID: "r"}}
			}
			if tt.noise {
				for _, w := range []string{"tag", "build", "announce"} {
					st.scoredQuery.Terms = append(st.scoredQuery.Terms, tokenize.Term{Text: tokenize.Normalize(w), Noise: true})
				}
			}
			breakTies(&Router{Index: ix}, st)
			if !tt.wantFlip {
				assert.Equal(t, "release-notes", st.cands[0].Skill)
				assert.Equal(t, notes.Score, st.cands[0].Score)
				assert.Empty(t, st.decision.Breadth)
				return
			}
			assert.Equal(t, "release-checklist", st.cands[0].Skill)
			assert.Equal(t, checklist.Score, st.cands[0].Score, "the winner keeps its score")
			assert.Equal(t, "release-notes", st.cands[1].Skill)
			assert.Equal(t, checklist.Score, st.cands[1].Score, "the skill it passes is lowered to it: still a near tie")
			assert.Contains(t, st.decision.Breadth, "release-checklist passes release-notes")
		})
	}
}
