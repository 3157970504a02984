package router

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillroute/skillroute/bm25"
	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn/category"
	"github.com/skillroute/skillroute/tokenize"
)

// The question stage: a self-contained question gets a skill only when
// one matches it clearly.
func TestQuietOnSelfContainedQuestions(t *testing.T) {
	text := func(m bm25.Match, fields ...index.Field) bm25.Match {
		for _, f := range fields {
			m.Fields = append(m.Fields, bm25.Field{Field: f, Weight: 1})
		}
		return m
	}
	vague := []bm25.Result{{Name: "git-helper", Matches: []bm25.Match{text(bm25.Match{TermID: 2, Term: "undo", QWeight: 1}, index.FieldBody),
		text(bm25.Match{TermID: 3, Term: "chang", QWeight: 1}, index.FieldBody)}}}
	named := []bm25.Result{{Name: "git-helper", Matches: []bm25.Match{text(bm25.Match{TermID: 0, Term: "rebas", QWeight: 1}, index.FieldCore)}}}
	common := []bm25.Result{{Name: "git-helper", Matches: []bm25.Match{text(bm25.Match{TermID: 1, Term: "valid", QWeight: 1}, index.FieldStrong)}}}
	// A concept question's topic named as a keyword, and its own word
	// met in a keyword or in the body only.
	topic := []bm25.Result{{Name: "git-helper", Matches: []bm25.Match{text(bm25.Match{TermID: 0, Term: "rebas", Query: "rebas", QWeight: 1}, index.FieldCore)}}}
	claims := []bm25.Result{{Name: "git-helper", Matches: []bm25.Match{text(bm25.Match{TermID: 2, Term: "区别", Query: "区别", QWeight: 1}, index.FieldStrong)}}}
	bodyOnly := []bm25.Result{{Name: "git-helper", Matches: []bm25.Match{text(bm25.Match{TermID: 2, Term: "differ", Query: "differ", QWeight: 1}, index.FieldBody),
		text(bm25.Match{TermID: 0, Term: "rebas", Query: "rebas", QWeight: 1}, index.FieldCore)}}}
	// Twelve skills: "rebas", "undo" and "chang" are in one skill's text,
	// "valid" in five.
	r := &Router{Index: &index.Index{Skills: index.NewSkillTable(make([]index.SkillInfo, 12)), TextDF: []uint32{1, 5, 1, 1}}}
	tests := []struct {
		name     string
		prompt   string
		level    Level
		results  []bm25.Result
		fired    []*disambig.Rule
		noise    bool
		wantSkip bool // the stage leaves the decision alone
	}{
		{"a question no skill matches clearly", "how do I undo my last change?", Medium, vague, nil, false, false},
		{"HIGH is clear", "how do I undo my last change?", High, vague, nil, false, true},
		{"a keyword of the skill named", "how do I rebase?", Medium, named, nil, false, true},
		{"a keyword much of the catalog writes names nothing", "is this a valid regex?", Medium, common, nil, false, false},
		{"a rule for such prompts boosts it", "how do I undo my last change?", Medium, vague, []*disambig.Rule{{ID: "r", Boost: "git-helper"}}, false, true},
		{"pasted material: about the user's own work", "why does this fail? src/app/main.go", Medium, vague, nil, true, true},
		{"a task is no question", "undo the last change in the deploy script", Medium, vague, nil, false, true},
		{"a go-ahead with no session", "yes please, go ahead and do that", Medium, vague, nil, false, false},
		{"a go-ahead naming the skill's keyword", "go ahead and rebase it", Medium, named, nil, false, true},
		{"a question about work in hand", "our page takes a minute to open, the undo step runs twice, how do I speed it up?", Medium, vague, nil, false, true},
		{"the same in Chinese", "现在页面要一分钟才打开，撤销那步跑了两遍，怎么加快？", Medium, vague, nil, false, true},
		{"two clauses are still self-contained", "git rebase 和 git merge 有什么区别？团队协作平时用哪个好", Medium, vague, nil, false, false},
		{"an opinion on a named thing, even HIGH", "你觉得 git rebase 好用吗", High, named, nil, false, false},
		{"a fact about a named thing, whatever rule fires", "who created git rebase?", Medium, named, []*disambig.Rule{{ID: "r", Boost: "git-helper"}}, false, false},
		{"an opinion on the user's own work is a review", "do you think our rebase flow is too risky?", Medium, named, nil, false, true},
		{"a difference question naming the skill's topic", "rebase 和 merge 的区别是啥？一句话说清楚", Medium, topic, nil, false, false},
		{"the same with a task category's word", "what's the difference between rebase and merge in a deploy script", Medium, topic, nil, false, false},
		{"a skill that claims difference questions", "rebase 和 merge 有什么区别", Medium, claims, nil, false, true},
		{"the question's word in the skill's body claims nothing", "what's the difference between rebase and merge?", Medium, bodyOnly, nil, false, false},
		{"a difference question at HIGH", "rebase 和 merge 有什么区别", High, topic, nil, false, true},
		{"a difference in the user's own work", "我们的 rebase 脚本和 merge 脚本有什么区别", Medium, topic, nil, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &route{text: tokenize.NewText(tt.prompt), results: tt.results, fired: tt.fired}
			st.turn = sctx.Classify(st.text)
			if tt.noise {
				st.query.Terms = []tokenize.Term{{Text: "src", Noise: true}}
			}
			st.decision = Decision{Skill: "git-helper", Level: tt.level, Confidence: 0.5}
			quiet(r, st)
			if tt.wantSkip {
				assert.Equal(t, "git-helper", st.decision.Skill)
				assert.False(t, st.decision.Quiet)
				return
			}
			assert.Empty(t, st.decision.Skill)
			assert.Equal(t, Low, st.decision.Level)
			if category.Chat(st.text) {
				assert.True(t, st.decision.Chat)
				assert.Contains(t, st.decision.Explain(), "asks an opinion or a fact")
				return
			}
			assert.True(t, st.category() == category.Question || category.Concept(st.text) || st.turn == sctx.Continuation)
			assert.True(t, st.decision.Quiet)
			assert.Contains(t, st.decision.Explain(), "no skill matches clearly")
		})
	}
	// A strong match held under HIGH only by a tied runner-up matches
	// clearly: two skills do. A weak tie does not.
	for name, scores := range map[string][2]float64{"a strong tie is clear": {10, 9.6}, "a weak tie is not": {1, 0.96}} {
		t.Run(name, func(t *testing.T) {
			st := &route{text: tokenize.NewText("how do I undo my last change?"), results: vague}
			st.turn = sctx.Classify(st.text)
			st.decision = Decision{Skill: "git-helper", Level: Medium, Confidence: TieCeiling,
				Candidates: []Candidate{{Skill: "git-helper", Score: scores[0]}, {Skill: "other", Score: scores[1]}}}
			quiet(r, st)
			assert.Equal(t, scores[0] > 5, st.decision.Skill == "git-helper")
		})
	}
	t.Run("a go-ahead in a session goes on with it", func(t *testing.T) {
		st := &route{text: tokenize.NewText("yes please, go ahead and do that"), results: vague, recent: []string{"git-helper"}}
		st.turn = sctx.Classify(st.text)
		st.decision = Decision{Skill: "git-helper", Level: Medium, Confidence: 0.5}
		quiet(r, st)
		assert.Equal(t, "git-helper", st.decision.Skill)
		assert.False(t, st.decision.Quiet)
	})
}

// A match that rests on one word of the skill's text, or on two words
// much of the catalog writes, names nothing of the skill, question or not;
// a keyword, a rule, HIGH or a session in progress keep it.
func TestQuietOnThinMatches(t *testing.T) {
	body := func(id int, term string) bm25.Match {
		return bm25.Match{TermID: id, Term: term, QWeight: 1, Score: 1, Fields: []bm25.Field{{Field: index.FieldBody, Weight: 1}}}
	}
	keyword := bm25.Match{TermID: 0, Term: "rebas", QWeight: 1, Score: 1, Fields: []bm25.Field{{Field: index.FieldStrong, Weight: 1}}}
	// Twelve skills: "rebas", "good" and "morn" in one skill's text,
	// "help" and "need" in six, "branch" in one.
	r := &Router{Index: &index.Index{Skills: index.NewSkillTable(make([]index.SkillInfo, 12)), TextDF: []uint32{1, 1, 1, 6, 6, 1}}}
	tests := []struct {
		name     string
		matches  []bm25.Match
		level    Level
		recent   []string
		fired    []*disambig.Rule
		wantThin bool
	}{
		{"one word of the text", []bm25.Match{body(1, "good"), body(1, "good")}, Medium, nil, nil, true},
		{"two words much of the catalog writes", []bm25.Match{body(3, "help"), body(4, "need")}, Medium, nil, nil, true},
		{"two words, one of them rare", []bm25.Match{body(3, "help"), body(5, "branch")}, Medium, nil, nil, false},
		{"three words", []bm25.Match{body(3, "help"), body(4, "need"), body(2, "morn")}, Medium, nil, nil, false},
		{"a keyword", []bm25.Match{keyword}, Medium, nil, nil, false},
		{"HIGH", []bm25.Match{body(1, "good")}, High, nil, nil, false},
		{"a session in progress", []bm25.Match{body(1, "good")}, Medium, []string{"git-helper"}, nil, false},
		{"a rule fired", []bm25.Match{body(1, "good")}, Medium, nil, []*disambig.Rule{{ID: "r", Boost: "git-helper"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &route{text: tokenize.NewText("good morning, I need help with the branch"), recent: tt.recent, fired: tt.fired,
				results: []bm25.Result{{Name: "git-helper", Score: 1, Matches: tt.matches}}}
			st.turn = sctx.NewRequest
			st.decision = Decision{Skill: "git-helper", Level: tt.level, Confidence: 0.5}
			quiet(r, st)
			assert.Equal(t, tt.wantThin, st.decision.Thin)
			assert.Equal(t, tt.wantThin, st.decision.Skill == "")
			if tt.wantThin {
				assert.Contains(t, st.decision.Explain(), "rests on one word")
			}
		})
	}
}

// A question about pasted output is read in the user's own words: a
// pasted "git status" makes "how do i get back to main" no question about
// the user's work, and a keyword met only in the paste names nothing the
// user asked. The same keyword in the user's words does.
func TestQuietReadsQuestionsAboutPastedOutput(t *testing.T) {
	const paste = "$ git status\nHEAD detached at 4f2c1ab\nnothing to commit, working tree clean\n\n"
	r := &Router{Index: &index.Index{Skills: index.NewSkillTable(make([]index.SkillInfo, 12)), TextDF: []uint32{1, 5}}}
	keyword := func(query string) []bm25.Result {
		m := bm25.Match{TermID: 0, Term: "rebas", Query: query, QWeight: 1, Score: 1, Fields: []bm25.Field{{Field: index.FieldCore, Weight: 1}}}
		return []bm25.Result{{Name: "git-helper", Score: 1, Matches: []bm25.Match{m}}}
	}
	tests := []struct {
		name, prompt string
		terms        []tokenize.Term
		wantSkill    bool
	}{
		{"the keyword only in the paste", paste + "how do i get back to main", []tokenize.Term{{Text: "rebas", Noise: true}}, false},
		{"the keyword in the user's words", paste + "how do I rebase onto main?", []tokenize.Term{{Text: "rebas"}, {Text: "status", Noise: true}}, true},
		{"a path in a sentence is the user's own work", "how do i get back to main? src/app/main.go", []tokenize.Term{{Text: "rebas", Noise: true}}, true},
		{"a question that explains the paste is the user's own work", paste + "I checked out an old tag an hour ago to test a fix, how do i get back to main?",
			[]tokenize.Term{{Text: "rebas", Noise: true}}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &route{text: tokenize.NewText(tt.prompt), results: keyword("rebas")}
			st.turn = sctx.Classify(st.own())
			st.query.Terms, st.scoredQuery.Terms = tt.terms, tt.terms
			st.decision = Decision{Skill: "git-helper", Level: Medium, Confidence: 0.5}
			quiet(r, st)
			assert.Equal(t, tt.wantSkill, st.decision.Skill == "git-helper")
			assert.Equal(t, !tt.wantSkill, st.decision.Quiet)
		})
	}
}

// A catalog measured on few scores reads its lines close to the
// reference ones: four skills' pieces do not make a stray word sure.
func TestSmallCatalogsShrinkTowardsReferenceLines(t *testing.T) {
	ix := calibrated(t)
	s := scaleOf(ix)
	raw := index.At(ix.Calibration.Foreign, HighQuantile)
	assert.Less(t, ix.Calibration.ForeignN, 40)
	assert.Greater(t, s.high, raw, "drawn up towards RefHigh")
	assert.InDelta(t, RefHigh, shrink(RefHigh, 1000, RefHigh), 1e-9)
	assert.InDelta(t, 2.0, shrink(2.0, 1<<30, RefHigh), 1e-6, "many scores: the catalog's own line")
	assert.InDelta(t, RefAbstain, shrink(9, 0, RefAbstain), 1e-9, "no scores: the reference")
}

func TestClauses(t *testing.T) {
	for _, tt := range []struct {
		text string
		want int
	}{
		{"how do i exit vim without saving?", 1},
		{"why does 0.1 + 0.2 print 0.30000000000000004?", 1}, // a dot inside a number ends nothing
		{"tar.gz 怎么解压到指定目录？i always forget the flags", 2},    // nor one inside a word
		{"regex to match a valid ipv4 address, each octet 0-255", 2},
		{"想把为什么这么选、考虑过哪些方案、代价是什么都记下来", 1}, // 、 joins items of one clause
		{"it fails. i tried twice; still nothing!", 3},
		{"worker.py 里要同时请求三个下游服务，现在是一个个等，总耗时是三个加起来，怎么让它们同时发出去？", 4},
		{"ok, , ?! 1", 1}, // a run of fewer than two letters is no clause
		{"", 0},
	} {
		assert.Equal(t, tt.want, clauses(tt.text), tt.text)
	}
}
