package disambig_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/tokenize"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/disambig"
)

var catalogNames = []string{
	"backend-builder", "debugger-expert", "devops-expert", "kubernetes-specialist",
	"other-expert", "performance-expert", "security-expert", "tester-expert",
}

func known(name string) bool {
	for _, n := range catalogNames {
		if n == name {
			return true
		}
	}
	return false
}

func parse(t *testing.T, yaml string) *disambig.Set {
	t.Helper()
	set, problems, err := disambig.Parse("rules.yaml", []byte(yaml), known)
	require.NoError(t, err)
	require.Empty(t, problems)
	return set
}

func scores(cands []disambig.Candidate) map[string]float64 {
	out := map[string]float64{}
	for _, c := range cands {
		out[c.Skill] = c.Score
	}
	return out
}

func order(cands []disambig.Candidate) []string {
	out := make([]string, len(cands))
	for i, c := range cands {
		out[i] = c.Skill
	}
	return out
}

func ids(rules []*disambig.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.ID
	}
	return out
}

// TestBoostIsMaxNotProduct protects against overlapping rules multiplying
// a score: the boost is base × (1 + the largest weight).
func TestBoostIsMaxNotProduct(t *testing.T) {
	set := parse(t, `
rules:
  - id: deploy
    trigger: deploy
    boost: devops-expert
    weight: 0.2
  - id: docker
    trigger: docker
    boost: devops-expert
    weight: 0.5
  - id: nginx
    trigger: nginx
    boost: devops-expert
    weight: 0.3
`)
	cands := []disambig.Candidate{{Skill: "backend-builder", Score: 20}, {Skill: "devops-expert", Score: 10}}
	got, fired := set.Apply(tokenize.NewText("Deploy Docker behind NGINX"), cands)
	assert.ElementsMatch(t, []string{"deploy", "docker", "nginx"}, ids(fired))
	assert.InDelta(t, 10*(1+0.5), scores(got)["devops-expert"], 1e-9)
	assert.InDelta(t, 20, scores(got)["backend-builder"], 1e-9)
	assert.Equal(t, []string{"backend-builder", "devops-expert"}, order(got))
	require.NotNil(t, got[1].Explain)
	assert.Contains(t, got[1].Explain.Message, "rule docker boosts devops-expert × (1 + 0.50)")
}

const pentestRules = `
rules:
  - id: test-pentest
    note: 渗透测试 is security work, not unit testing
    trigger: '渗透测试|penetration test|pentest'
    boost: security-expert
    penalty: [tester-expert]
    weight: 0.3
    examples: [下周上线前要做一次渗透测试]
`

// TestRulesAdjustNeverBury protects two promises of a fired rule: among
// candidates that are close, its verdict on rank holds (the boosted skill
// goes above the penalised one), and a skill that wins clearly on its own
// evidence (ClearLead times the other's score) stays above it, so that a
// third, unrelated skill never wins because a rule lowered the leader.
func TestRulesAdjustNeverBury(t *testing.T) {
	set := parse(t, pentestRules)
	require.Len(t, set.Rules, 1)
	r := set.Rules[0]
	assert.Equal(t, "渗透测试 is security work, not unit testing", r.Note)
	assert.Equal(t, []string{"下周上线前要做一次渗透测试"}, r.Examples)
	assert.Equal(t, 3, r.Line)
	reach := math.Sqrt(disambig.ClearLead) // how far rules may move a score
	require.Greater(t, disambig.ClearLead, 2.0, "the cases below assume a lead of 2 is close")
	require.Less(t, disambig.ClearLead, 3.0, "the cases below assume a lead of 3 is clear")

	tests := []struct {
		name  string
		cands []disambig.Candidate
		want  map[string]float64
		order []string
	}{
		{
			name:  "close: the penalised skill goes just below the boosted one",
			cands: []disambig.Candidate{{Skill: "tester-expert", Score: 10}, {Skill: "other-expert", Score: 9}, {Skill: "security-expert", Score: 6}},
			want:  map[string]float64{"security-expert": 7.8, "tester-expert": 7.8 * disambig.BelowBoosted, "other-expert": 9},
			order: []string{"other-expert", "security-expert", "tester-expert"},
		},
		{
			name:  "close, at the edge of the bound: the boosted skill rises past",
			cands: []disambig.Candidate{{Skill: "tester-expert", Score: 10}, {Skill: "security-expert", Score: 5}},
			want:  map[string]float64{"tester-expert": 10 / reach, "security-expert": 10 / reach / disambig.BelowBoosted},
			order: []string{"security-expert", "tester-expert"},
		},
		{
			name:  "clear winner: neither penalised nor pinned, and no third skill wins",
			cands: []disambig.Candidate{{Skill: "tester-expert", Score: 30}, {Skill: "other-expert", Score: 28}, {Skill: "security-expert", Score: 10}},
			want:  map[string]float64{"tester-expert": 30, "other-expert": 28, "security-expert": 13},
			order: []string{"tester-expert", "other-expert", "security-expert"},
		},
		{
			name:  "penalised skill already below",
			cands: []disambig.Candidate{{Skill: "security-expert", Score: 10}, {Skill: "tester-expert", Score: 5}},
			want:  map[string]float64{"security-expert": 13, "tester-expert": 5 * (1 - disambig.PenaltyFactor*0.3)},
			order: []string{"security-expert", "tester-expert"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, fired := set.Apply(tokenize.NewText("下周上线前要做一次渗透测试"), tt.cands)
			assert.Equal(t, []string{"test-pentest"}, ids(fired))
			for name, want := range tt.want {
				assert.InDelta(t, want, scores(got)[name], 1e-9, name)
			}
			assert.Equal(t, tt.order, order(got))
		})
	}

	got, _ := set.Apply(tokenize.NewText("pentest"), []disambig.Candidate{{Skill: "tester-expert", Score: 10}, {Skill: "security-expert", Score: 6}})
	require.Equal(t, "tester-expert", got[1].Skill)
	assert.Contains(t, got[1].Explain.Message, "keeps tester-expert below security-expert")
}

// TestRuleBoundHolds protects the bound itself, whatever the weights: no
// rule moves a score by more than √ClearLead either way, so a skill
// ClearLead times ahead of another on its own evidence stays ahead of it.
func TestRuleBoundHolds(t *testing.T) {
	set := parse(t, `
rules:
  - id: heavy
    trigger: pentest
    boost: security-expert
    penalty: [tester-expert, other-expert]
    weight: 2
  - id: heavy-penalty
    trigger: pentest
    penalty: [backend-builder]
    weight: 2
`)
	reach := math.Sqrt(disambig.ClearLead)
	for _, own := range [][4]float64{{10, 9, 4.4, 3}, {10, 4.4, 9.9, 1}, {3, 10, 1, 9}, {10, 10, 10, 10}, {1, 20, 5, 9}} {
		cands := []disambig.Candidate{
			{Skill: "tester-expert", Score: own[0]}, {Skill: "other-expert", Score: own[1]},
			{Skill: "security-expert", Score: own[2]}, {Skill: "backend-builder", Score: own[3]},
		}
		ownOf := scores(cands)
		got, _ := set.Apply(tokenize.NewText("pentest"), slices.Clone(cands))
		final := scores(got)
		rank := map[string]int{}
		for i, c := range got {
			rank[c.Skill] = i
		}
		for a, sa := range ownOf {
			assert.LessOrEqual(t, final[a], sa*reach+1e-9, "%v: %s rose too far", own, a)
			assert.GreaterOrEqual(t, final[a], sa/reach-1e-9, "%v: %s fell too far", own, a)
			for b, sb := range ownOf {
				if sa >= disambig.ClearLead*sb {
					assert.Less(t, rank[a], rank[b], "%v: %s wins clearly over %s", own, a, b)
				}
			}
		}
	}
}

// TestPinningRulesDecideByEvidence protects two rules that pin each other
// (each boosts the skill the other penalises): the more specific one
// decides; equally specific, the candidates' own scores do. Neither the
// order of the rules in the file nor the skills' names ever decide.
func TestPinningRulesDecideByEvidence(t *testing.T) {
	forDevops := "\n  - id: for-devops\n    trigger: '%s'\n    boost: devops-expert\n    penalty: [kubernetes-specialist]\n    weight: 0.3\n"
	forK8s := "\n  - id: for-k8s\n    trigger: '%s'\n    boost: kubernetes-specialist\n    penalty: [devops-expert]\n    weight: 0.3\n"
	tests := []struct {
		name                    string
		devopsTrigger, k8sTrigg string
		devops, k8s             float64 // own scores
		want                    string  // first
	}{
		{"equally specific, own scores decide", "alpha", "gamma", 9, 10, "kubernetes-specialist"},
		{"equally specific, own scores decide (swapped)", "alpha", "gamma", 10, 9, "devops-expert"},
		{"the more specific rule decides", "alpha", "gamma delta", 10, 9, "kubernetes-specialist"},
		{"the more specific rule decides (swapped)", "alpha beta", "gamma", 9, 10, "devops-expert"},
	}
	for _, tt := range tests {
		for _, fileOrder := range []string{"devops first", "k8s first"} {
			for _, candOrder := range []string{"devops first", "k8s first"} {
				t.Run(tt.name+", file "+fileOrder+", candidates "+candOrder, func(t *testing.T) {
					a, b := fmt.Sprintf(forDevops, tt.devopsTrigger), fmt.Sprintf(forK8s, tt.k8sTrigg)
					if fileOrder == "k8s first" {
						a, b = b, a
					}
					set := parse(t, "rules:"+a+b)
					cands := []disambig.Candidate{{Skill: "devops-expert", Score: tt.devops}, {Skill: "kubernetes-specialist", Score: tt.k8s}}
					if candOrder == "k8s first" {
						cands[0], cands[1] = cands[1], cands[0]
					}
					got, fired := set.Apply(tokenize.NewText("alpha beta gamma delta"), cands)
					require.Len(t, fired, 2)
					assert.Equal(t, tt.want, got[0].Skill)
				})
			}
		}
	}

	// A rule that boosts the skill an equally specific rule penalises
	// disagrees with it, though it names no penalty of its own: "企业微信登录
	// … 用 RICE 帮我排个优先级" fires a login rule (微信登录, against the
	// product skill) and a prioritisation rule (rice, for it), and the
	// login rule's verdict stood alone. Own scores decide; a more specific
	// rule still has the last word.
	forK8sOnly := "\n  - id: for-k8s\n    trigger: '%s'\n    boost: kubernetes-specialist\n    weight: 0.4\n"
	againstK8s := "\n  - id: for-devops\n    trigger: '%s'\n    boost: devops-expert\n    penalty: [kubernetes-specialist]\n    weight: 0.4\n"
	for _, tt := range []struct {
		k8sTrigger, devopsTrigger string
		k8s, devops               float64
		want                      string
	}{
		{"rice", "auth", 7, 6, "kubernetes-specialist"},
		{"rice", "auth", 6, 7, "devops-expert"},
		{"rice", "auth login", 7, 6, "devops-expert"},
		{"rice priorities", "auth", 6, 7, "kubernetes-specialist"},
	} {
		set := parse(t, "rules:"+fmt.Sprintf(againstK8s, tt.devopsTrigger)+fmt.Sprintf(forK8sOnly, tt.k8sTrigger))
		cands := []disambig.Candidate{{Skill: "devops-expert", Score: tt.devops}, {Skill: "kubernetes-specialist", Score: tt.k8s}}
		got, fired := set.Apply(tokenize.NewText("auth login and rice priorities"), cands)
		require.Len(t, fired, 2)
		assert.Equal(t, tt.want, got[0].Skill, "%+v", tt)
	}

	// A perfect tie of evidence (same specificity, same own score, same
	// weight) leaves the candidates in the order they came: no name sort.
	set := parse(t, "rules:"+fmt.Sprintf(forDevops, "alpha")+fmt.Sprintf(forK8s, "gamma"))
	for _, first := range []string{"devops-expert", "kubernetes-specialist"} {
		second := "kubernetes-specialist"
		if first == second {
			second = "devops-expert"
		}
		got, _ := set.Apply(tokenize.NewText("alpha gamma"), []disambig.Candidate{{Skill: first, Score: 10}, {Skill: second, Score: 10}})
		assert.Equal(t, []string{first, second}, order(got))
	}
}

// TestBoostedSkillEnters protects a rule naming a skill BM25 missed: it
// enters at EntryShare × the top score and is then boosted.
func TestBoostedSkillEnters(t *testing.T) {
	set := parse(t, pentestRules)
	cands := []disambig.Candidate{{Skill: "backend-builder", Score: 10}, {Skill: "other-expert", Score: 4}}
	got, _ := set.Apply(tokenize.NewText("we need a pentest"), cands)
	require.Len(t, got, 3)
	assert.InDelta(t, 10*disambig.EntryShare*(1+0.3), scores(got)["security-expert"], 1e-9)
	assert.Equal(t, []string{"backend-builder", "security-expert", "other-expert"}, order(got))
	e := got[1].Explain
	require.NotNil(t, e)
	require.Len(t, e.Children, 1)
	assert.Contains(t, e.Children[0].Message, "entered by rule test-pentest")
}

// TestMoreSpecificRuleWins protects "kubernetes 部署" going to the
// kubernetes specialist although the generic "部署" rule fires too,
// whichever order the file lists them in.
func TestMoreSpecificRuleWins(t *testing.T) {
	generic := `
  - id: deploy
    trigger: '部署'
    boost: devops-expert
    weight: 0.3
`
	specific := `
  - id: k8s-deploy
    trigger: 'kubernetes.*部署'
    boost: kubernetes-specialist
    weight: 0.3
`
	for name, yaml := range map[string]string{
		"generic first":  "rules:" + generic + specific,
		"specific first": "rules:" + specific + generic,
	} {
		t.Run(name, func(t *testing.T) {
			set := parse(t, yaml)
			cands := []disambig.Candidate{{Skill: "devops-expert", Score: 10}, {Skill: "kubernetes-specialist", Score: 9}}
			got, fired := set.Apply(tokenize.NewText("Kubernetes 集群部署"), cands)
			assert.Len(t, fired, 2)
			assert.Equal(t, []string{"kubernetes-specialist", "devops-expert"}, order(got))
			assert.InDelta(t, 9*1.3, scores(got)["kubernetes-specialist"], 1e-9)
			assert.InDelta(t, 9*1.3*disambig.BelowBoosted, scores(got)["devops-expert"], 1e-9)
		})
	}
	// Without the specific context, the generic rule alone decides.
	set := parse(t, "rules:"+generic+specific)
	got, fired := set.Apply(tokenize.NewText("部署到服务器"), []disambig.Candidate{{Skill: "devops-expert", Score: 10}, {Skill: "kubernetes-specialist", Score: 9}})
	assert.Equal(t, []string{"deploy"}, ids(fired))
	assert.Equal(t, []string{"devops-expert", "kubernetes-specialist"}, order(got))
}

// TestApplyNoRules protects prompts no rule fires on: the ranking is
// returned untouched.
func TestApplyNoRules(t *testing.T) {
	cands := []disambig.Candidate{{Skill: "b", Score: 1}, {Skill: "a", Score: 2}}
	got, fired := parse(t, pentestRules).Apply(tokenize.NewText("write a unit test"), cands)
	assert.Nil(t, fired)
	assert.Equal(t, cands, got)

	var none *disambig.Set
	got, fired = none.Apply(tokenize.NewText("pentest"), cands)
	assert.Nil(t, fired)
	assert.Equal(t, cands, got)
	assert.Nil(t, none.Fired(tokenize.NewText("pentest")))
}

// TestParseErrors protects rule authors: every problem names the file,
// the rule's line and id, and the reason.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		rule string // one rule, starting on line 2
		want string
	}{
		{"bad regex", "  - id: bad-re\n    trigger: '(unclosed'\n    boost: devops-expert\n    weight: 0.3\n",
			"rules.yaml:2: rule bad-re: trigger does not compile"},
		{"unknown boost", "  - id: ghost-boost\n    trigger: x\n    boost: ghost-expert\n    weight: 0.3\n",
			`rules.yaml:2: rule ghost-boost: boost names unknown skill "ghost-expert"`},
		{"unknown penalty", "  - id: ghost-penalty\n    trigger: x\n    boost: devops-expert\n    penalty: [ghost-expert]\n    weight: 0.3\n",
			`rules.yaml:2: rule ghost-penalty: penalty names unknown skill "ghost-expert"`},
		{"weight zero", "  - id: light\n    trigger: x\n    boost: devops-expert\n",
			"rules.yaml:2: rule light: weight 0.00 out of range (0, 2]"},
		{"weight too high", "  - id: heavy\n    trigger: x\n    boost: devops-expert\n    weight: 2.5\n",
			"rules.yaml:2: rule heavy: weight 2.50 out of range (0, 2]"},
		{"no trigger", "  - id: empty\n    boost: devops-expert\n    weight: 0.3\n",
			"rules.yaml:2: rule empty: no trigger"},
		{"nothing to do", "  - id: idle\n    trigger: x\n    weight: 0.3\n",
			"rules.yaml:2: rule idle: neither boost nor penalty"},
		{"penalises its boost", "  - id: self\n    trigger: x\n    boost: devops-expert\n    penalty: [devops-expert]\n    weight: 0.3\n",
			`rules.yaml:2: rule self: penalises the skill it boosts ("devops-expert")`},
		{"duplicate id", "  - id: twice\n    trigger: x\n    boost: devops-expert\n    weight: 0.3\n  - id: twice\n    trigger: y\n    boost: devops-expert\n    weight: 0.3\n",
			"rules.yaml:6: rule twice: duplicate id (first at rule 1)"},
		// A misspelt field was ignored: the rule loaded without its
		// penalty or examples and `rules lint` said ok.
		{"misspelt penalty", "  - id: typo\n    trigger: x\n    boost: devops-expert\n    penalties: [tester-expert]\n    weight: 0.3\n",
			`rules.yaml:2: rule typo: unknown field "penalties"`},
		{"misspelt examples", "  - id: typo\n    trigger: x\n    boost: devops-expert\n    weight: 0.3\n    example: [x marks it]\n",
			`rules.yaml:2: rule typo: unknown field "example"`},
		{"misspelt exclusion key", "  - id: a\n    trigger: x\n    boost: devops-expert\n    weight: 0.3\n  - id: b\n    trigger: y\n    boost: devops-expert\n    weight: 0.3\n    mutual_exclusion: {with: a, on_keywords: x}\n",
			`rules.yaml:6: rule b: unknown field "mutual_exclusion.on_keywords"`},
		{"exclusion with no rule", "  - id: a\n    trigger: x\n    boost: devops-expert\n    weight: 0.3\n    mutual_exclusion: {with: nosuch}\n",
			`rules.yaml:2: rule a: mutual_exclusion names no rule of the file ("nosuch")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, problems, err := disambig.Parse("rules.yaml", []byte("rules:\n"+tt.rule), known)
			require.Error(t, err)
			assert.Nil(t, set)
			assert.Nil(t, problems)
			assert.Contains(t, err.Error(), tt.want)
		})
	}

	// Several problems are reported together.
	_, _, err := disambig.Parse("rules.yaml", []byte("rules:\n"+tests[0].rule+tests[1].rule), known)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "rule bad-re")
	assert.Contains(t, err.Error(), "rule ghost-boost")
}

// TestParseYAMLErrors protects malformed files: the error names the file
// and the line.
func TestParseYAMLErrors(t *testing.T) {
	tests := []struct {
		name, data, line string
	}{
		{"syntax", "rules:\n  - id: a\n    trigger: [x\n", "line "},
		{"wrong type", "rules:\n  - id: a\n    trigger: x\n    weight: [1]\n", "line 4"},
		{"rule is no mapping", "rules:\n  - just a string\n", "line 2"},
		{"misspelt rules key", "rule:\n  - id: a\n    trigger: x\n", `line 1: unknown key "rule"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := disambig.Parse("my-rules.yaml", []byte(tt.data), known)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "my-rules.yaml: "), "error %q does not name the file", err)
			assert.Contains(t, err.Error(), tt.line)
		})
	}
}

// TestBuildLenient protects reading rules written for another router
// (package bookworm reads the bookworm router's file into RuleSpecs):
// rules written for a larger catalog are skipped and reported, not fatal;
// rules written for JavaScript's regular expressions load and run on the
// backtracking engine; the same specs built strictly fail, listing every
// problem.
func TestBuildLenient(t *testing.T) {
	specs := []disambig.RuleSpec{
		{ID: "R01", Trigger: "bug|报错", Boost: "debugger-expert", Penalty: []string{"tester-expert", "graphql-architect"}, Weight: 0.35},
		{ID: "R02", Trigger: "(?!foo)bar", Boost: "debugger-expert", Weight: 0.3},
		{ID: "R03", Trigger: "(?<!vue)路由分析", Boost: "debugger-expert", Weight: 0.3},
		{ID: "R04", Trigger: "mcp", Boost: "mcp-probe", Weight: 0.3},
		{ID: "R05", Trigger: "x", Penalty: []string{"ghost"}, Weight: 0.3},
		{ID: "R06", Trigger: "(unclosed", Boost: "debugger-expert", Weight: 0.3},
		{Trigger: "leak", Boost: "debugger-expert", Weight: 0.3, ExclusiveWith: "R01", OnKeyword: "(?=leak"},
	}
	set, problems, err := disambig.Build("bw.json", specs, known, disambig.BuildOptions{Lenient: true})
	require.NoError(t, err)
	assert.True(t, set.Lenient)
	assert.Equal(t, "bw.json", set.Source)
	require.Equal(t, []string{"R01", "R02", "R03", "#7"}, ruleIDs(set))
	assert.Equal(t, 7, set.Read)
	assert.Equal(t, []string{"tester-expert"}, set.Rules[0].Penalty)
	assert.Equal(t, disambig.RE2, set.Rules[0].Branches[0].Engine)
	assert.Equal(t, disambig.Backtrack, set.Rules[1].Branches[0].Engine)
	assert.Equal(t, disambig.Backtrack, set.Rules[2].Branches[0].Engine)
	assert.Equal(t, "R01", set.Rules[3].ExclusiveWith)
	assert.Empty(t, set.Rules[3].OnKeyword, "an exclusion keyword that compiles in no engine is left out")

	reasons := map[string]string{}
	for _, p := range problems {
		assert.Equal(t, "bw.json", p.File)
		assert.True(t, strings.HasPrefix(p.Error(), "bw.json: rule "+p.RuleID+": "), p.Error())
		reasons[p.RuleID] += p.Reason
	}
	assert.Contains(t, reasons["R01"], `penalty names unknown skill "graphql-architect"`)
	assert.Contains(t, reasons["R04"], `boost names unknown skill "mcp-probe"`)
	assert.Contains(t, reasons["R05"], `penalty names unknown skill "ghost"`)
	assert.Contains(t, reasons["R06"], "trigger does not compile")
	assert.Contains(t, reasons["#7"], "mutual_exclusion on_keyword does not compile")
	assert.Len(t, reasons, 5)
	assert.Equal(t, "7 rules: 4 loaded (2 of them trimmed), 3 skipped", disambig.Summary(set.Read, problems))

	// The look-around rules fire as JavaScript would run them.
	for prompt, want := range map[string][]string{
		"bar":            {"R02"},
		"foo bar":        {"R02"}, // (?!foo) holds at "bar"
		"foobar":         nil,     // not a whole word
		"做一次路由分析":        {"R03"},
		"vue路由分析":        nil,
		"bug in the bar": {"R01", "R02"},
	} {
		assert.Equal(t, want, idsOrNil(set.Fired(tokenize.NewText(prompt))), prompt)
	}

	set, problems, err = disambig.Build("mine.yaml", specs, known, disambig.BuildOptions{})
	require.Error(t, err)
	assert.Nil(t, set)
	assert.Nil(t, problems)
	for _, want := range []string{"rule R01: penalty names unknown skill", "rule R04: boost", "rule R05: penalty", "rule R06: trigger", "rule #7: mutual_exclusion"} {
		assert.Contains(t, err.Error(), "mine.yaml: "+want)
	}
	assert.NotContains(t, err.Error(), "rule R02", "look-around loads in our files too")
	assert.NotContains(t, err.Error(), "rule R03", "look-around loads in our files too")
}

func ruleIDs(s *disambig.Set) []string {
	var out []string
	for _, r := range s.Rules {
		out = append(out, r.ID)
	}
	return out
}

func idsOrNil(rules []*disambig.Rule) []string {
	if len(rules) == 0 {
		return nil
	}
	return ids(rules)
}

// TestProblemsCountRules protects the counts a user reads: rules, not
// problems. A rule with three problems is one unusable rule; a file of N
// rules is N rules, loaded or not.
func TestProblemsCountRules(t *testing.T) {
	rule := func(id, trigger, boost string, penalty ...string) disambig.RuleSpec {
		return disambig.RuleSpec{ID: id, Trigger: trigger, Boost: boost, Penalty: penalty, Weight: 0.3}
	}
	tests := []struct {
		name    string
		rules   []disambig.RuleSpec
		summary string
		skipped int
		trimmed int
	}{
		{"all good", []disambig.RuleSpec{rule("a", "x", "devops-expert")}, "1 rules: 1 loaded", 0, 0},
		{"three problems, one rule", []disambig.RuleSpec{
			rule("a", "(bad", "ghost", "ghost2"),
			rule("b", "y", "devops-expert"),
		}, "2 rules: 1 loaded, 1 skipped", 1, 0},
		{"trimmed twice, one rule", []disambig.RuleSpec{
			rule("a", "x", "devops-expert", "ghost", "ghost2", "tester-expert"),
		}, "1 rules: 1 loaded (1 of them trimmed)", 0, 1},
		{"skipped and trimmed", []disambig.RuleSpec{
			rule("a", "x", "ghost"),
			rule("b", "x", "devops-expert", "ghost"),
			rule("c", "x", "devops-expert"),
			rule("d", "x", "", "ghost"),
		}, "4 rules: 2 loaded (1 of them trimmed), 2 skipped", 2, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set, problems, err := disambig.Build("bw.json", tt.rules, known, disambig.BuildOptions{Lenient: true})
			require.NoError(t, err)
			assert.Equal(t, len(tt.rules), set.Read)
			skipped, trimmed := disambig.Tally(problems)
			assert.Equal(t, tt.skipped, skipped, "skipped")
			assert.Equal(t, tt.trimmed, trimmed, "trimmed")
			assert.Equal(t, len(tt.rules)-tt.skipped, len(set.Rules), "loaded")
			assert.Equal(t, tt.summary, disambig.Summary(set.Read, problems))
		})
	}
}

// TestWholeWordTriggers protects English triggers from firing inside
// words ('pen ?test' on "open testing", 'gin' on "nginx"), while Chinese
// triggers match anywhere, on every path: plain-text triggers decided by
// their literals, regular expressions on RE2, and JavaScript ones on the
// backtracking engine.
func TestWholeWordTriggers(t *testing.T) {
	tests := []struct {
		trigger, prompt string
		length          int // runes matched, -1 for no match
	}{
		{`pen ?test`, "open testing the login", -1},
		{`pen ?test`, "pen test the login", 8},
		{`pen ?test`, "pentest 一下", 7},
		{`gin|grpc`, "nginx 负载均衡", -1},
		{`gin|grpc`, "用 gin 写接口", 3},
		{`gin|grpc`, "用gin写接口", 3},
		{`api`, "rapid prototyping", -1},
		{`api`, "api设计", 3},
		{`api`, "设计 rest api.", 3},
		{`api`, "my_api", -1}, // '_' joins words, as \b reads it
		{`test|testing`, "testing the parser", 7},
		{`test|testing`, "contest", -1},
		{`测试`, "单元测试", 2},
		{`测试`, "test测试", 2},
		{`react.{0,10}慢`, "preact 很慢", -1},
		{`react.{0,10}慢`, "react 页面很慢", 10},
		{`react.{0,10}慢`, "用react写的页面很慢", 11},
		{`(?:vue )?router`, "vue router 守卫", 10},
		{`(?:vue )?router`, "vuerouter", -1},
		{`(?:vue )?router`, "the router", 6},
		{`c\+\+`, "c++ 内存泄漏", 3},
		{`c\+\+`, "abc++", -1},
		{`k8s|kubernetes`, "k8s集群", 3},
		{`[a-z]+script`, "typescript 泛型", 10},
		{`[a-z]+script`, "typescripts", -1},
		{`\d+\s*ms`, "p99 300ms", 5},
		{`\d+\s*ms`, "300msg", -1},
		{`fuzz(ing)? test`, "fuzzing tests", -1},
		{`fuzz(ing)? test`, "fuzzing test", 12},
		{`sli|slo`, "slow query", -1},
		{`(?<!vue)路由分析`, "vue路由分析", -1},
		{`(?<!vue)路由分析`, "路由分析一下", 4},
		{`(?<!x)pen ?test`, "open testing", -1},
		{`(?<!x)pen ?test`, "a pen test", 8},
		{`(?=.*bug)fix`, "prefix the bug", -1},
		{`(?=.*bug)fix`, "fix the bug", 3},
		{`/mcp[^]*失败`, "/mcp 认证\n重连失败", 12}, // JavaScript's [^]: any character
		{`^自动(?!化)[\u4e00-\u9fa5a-z]{0,4}$`, "自动整理", 4},
		{`^自动(?!化)[\u4e00-\u9fa5a-z]{0,4}$`, "自动化", -1},
	}
	for _, tt := range tests {
		t.Run(tt.trigger+" on "+tt.prompt, func(t *testing.T) {
			set := parse(t, "rules:\n  - id: r\n    trigger: '"+tt.trigger+"'\n    boost: devops-expert\n    weight: 0.1\n")
			fired := set.Fired(tokenize.NewText(tt.prompt))
			assert.Equal(t, tt.length >= 0, len(fired) == 1, "fires")
			_, length := disambig.FindWhole(tt.trigger, tt.prompt)
			assert.Equal(t, tt.length, length, "length matched")
		})
	}
}

// TestWholeWordGuardExhaustive compares the guard compiled into RE2
// expressions with its definition, on every prompt of up to five
// characters over a small alphabet: a match is accepted when no edge of
// it that is a word character touches another word character.
func TestWholeWordGuardExhaustive(t *testing.T) {
	patterns := []string{`ab`, `a|ab`, `a b`, `a?b`, `b*a`, `(?:a|测)+b?`, `a.`, `.a`, `[a测]`, `[^a]b`, `a{2,3}`,
		`(?:ab)?测`, `测(?:ab)?`, `a?测?b`, `x*a+`, `(a|)b`, `a*`}
	alphabet := []rune{'a', 'b', ' ', '测', '_', '1'}
	var prompts []string
	var gen func(prefix []rune)
	gen = func(prefix []rune) {
		prompts = append(prompts, string(prefix))
		if len(prefix) == 5 {
			return
		}
		for _, r := range alphabet {
			gen(append(prefix[:len(prefix):len(prefix)], r))
		}
	}
	gen(nil)
	word := func(r rune) bool { return r == '_' || r == 'a' || r == 'b' || r == '1' }
	for _, p := range patterns {
		anchored := regexp.MustCompile(`^(?:` + p + `)$`)
		find := disambig.WholeFinder(p)
		if p != `(a|)b` && p != `a*` {
			assert.True(t, disambig.Guarded(p), "%s: guard compiled in", p)
		}
		for _, prompt := range prompts {
			rs := []rune(prompt)
			want := false
			for i := 0; i < len(rs) && !want; i++ {
				for j := i + 1; j <= len(rs) && !want; j++ {
					if (i > 0 && word(rs[i-1]) && word(rs[i])) || (j < len(rs) && word(rs[j-1]) && word(rs[j])) {
						continue
					}
					want = anchored.MatchString(string(rs[i:j]))
				}
			}
			start, _ := find(prompt)
			if !assert.Equal(t, want, start >= 0, "%q on %q", p, prompt) {
				return
			}
		}
	}
}

// TestMutualExclusion protects bookworm's mutual_exclusion: of two
// exclusive rules that fire on the keyword, the declaring one wins.
func TestMutualExclusion(t *testing.T) {
	set := parse(t, `
rules:
  - id: R05
    trigger: leak|性能
    boost: performance-expert
    weight: 0.3
  - id: R01
    trigger: bug|leak
    boost: debugger-expert
    weight: 0.35
    mutual_exclusion: {with: R05, on_keyword: 'memory\s*leak|内存泄漏|leak'}
`)
	require.Len(t, set.Rules, 2)
	assert.Equal(t, "R05", set.Rules[1].ExclusiveWith)

	tests := []struct {
		prompt string
		want   []string
	}{
		{"memory leak in the worker", []string{"R01"}}, // both fire: the declaring rule wins
		{"bug 性能", []string{"R05", "R01"}},             // keyword absent: both apply
		{"性能", []string{"R05"}},
		{"bug", []string{"R01"}},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			assert.Equal(t, tt.want, ids(set.Fired(tokenize.NewText(tt.prompt))))
		})
	}

	cands := []disambig.Candidate{{Skill: "performance-expert", Score: 10}, {Skill: "debugger-expert", Score: 9}}
	got, fired := set.Apply(tokenize.NewText("Memory Leak"), cands)
	assert.Equal(t, []string{"R01"}, ids(fired))
	assert.InDelta(t, 10, scores(got)["performance-expert"], 1e-9)

	// When both rules declare the exclusion, the earlier one wins.
	both := parse(t, `
rules:
  - id: first
    trigger: leak
    boost: debugger-expert
    weight: 0.3
    mutual_exclusion: {with: second}
  - id: second
    trigger: leak
    boost: performance-expert
    weight: 0.3
    mutual_exclusion: {with: first}
`)
	assert.Equal(t, []string{"first"}, ids(both.Fired(tokenize.NewText("leak"))))
}

// A trigger that matches the empty string would fire on every prompt: it
// is refused, naming the rule.
func TestEmptyMatchingTriggerRefused(t *testing.T) {
	for _, tr := range []string{`.*`, `(?:)|z`, `|pentest`, `x?`} {
		_, _, err := disambig.Parse("rules.yaml", []byte("rules:\n  - id: everything\n    trigger: '"+tr+"'\n    boost: devops-expert\n    weight: 0.1\n"), func(string) bool { return true })
		require.Error(t, err, tr)
		assert.Contains(t, err.Error(), "rules.yaml:2: rule everything: trigger matches the empty string")
	}
}

// TestPrefilterKeepsFiring protects rule firing from the literal
// prefilter: a rule fires exactly when its trigger matches the
// lower-cased prompt, whatever shape the trigger has; so does the same
// set loaded from its cache, one prompt to a set as in a hook process
// (each branch compiled with only the alternatives the prompt allows).
func TestPrefilterKeepsFiring(t *testing.T) {
	triggers := []string{
		`[a-z]+script`,
		`[Dd]ocker`,
		`(?:vue )?router`,
		`colou?r`,
		`\bapi\b`,
		`(?:react|vue)\s*组件`,
		`^部署`,
		`x*y`,
		`数据库.*慢`,
		`k8s|kubernetes`,
		`a{2,3}b`,
		`(?:ab)+c`,
		`\d+\s*ms`,
		`fix\b.*\b(?:bug|error)`,
		`Äpfel`,
		`λόγος`,
		`sli|slo|sla.*告警`,
		`\Qc++|x\E`,
		`(?s)zzz|foo.bar`,
		`[抓爬]取.{0,10}(?:页面|网站)|scrap(?:e|ing)`,
		`(?:[ſs]tart|启动).{0,5}(?:慢|[0-9]+ ?s)`,
		`[a-c]{2}d|[xyz]`,
	}
	var b strings.Builder
	b.WriteString("rules:\n")
	for i, tr := range triggers {
		b.WriteString("  - id: r" + string(rune('a'+i)) + "\n    trigger: '" + tr + "'\n    boost: devops-expert\n    weight: 0.1\n")
	}
	set := parse(t, b.String())
	require.Len(t, set.Rules, len(triggers))

	prompts := []string{
		"quoted c++|x here", "c++ only", "foo\nbar across lines",
		"typescript 泛型", "docker compose up", "react router v6", "color picker", "rest api design",
		"vue组件怎么写", "vue 组件", "部署到服务器", "先部署", "yes", "数据库查询很慢", "k8s 集群", "kubernetes",
		"aab", "ababc", "p99 300ms", "300 ms", "fix the login bug", "äpfel kaufen", "ÄPFEL", "ΛΌΓΟΣ", "λόγοσ",
		"slo 告警", "sla 监控告警", "", "nothing here",
		"帮我爬取这个页面", "抓取网站数据", "取页面", "scraping it", "start 很慢", "启动要 12 s", "Start 3s", "abd", "x",
	}
	path := filepath.Join(t.TempDir(), "rules.bin")
	require.NoError(t, set.Save(path, nil))
	for _, prompt := range prompts {
		fired := map[string]bool{}
		for _, r := range set.Fired(tokenize.NewText(prompt)) {
			fired[r.ID] = true
		}
		cached, _, err := disambig.LoadCached(path)
		require.NoError(t, err)
		firedCached := map[string]bool{}
		for _, r := range cached.Fired(tokenize.NewText(prompt)) {
			firedCached[r.ID] = true
		}
		for _, r := range set.Rules {
			start, _ := disambig.FindWhole(r.Pattern, strings.ToLower(prompt))
			assert.Equal(t, start >= 0, fired[r.ID], "trigger %q on %q", triggers[r.ID[1]-'a'], prompt)
			assert.Equal(t, start >= 0, firedCached[r.ID], "cached trigger %q on %q", triggers[r.ID[1]-'a'], prompt)
		}
	}

	// Spot checks of what must fire.
	for prompt, id := range map[string]string{
		"typescript 泛型": "ra", "Docker compose": "rb", "react router": "rc", "Color": "rd", "p99 300ms": "rm",
		"帮我爬取这个页面": "rt", "启动要 12 s": "ru", "abd": "rv",
	} {
		_, fired := set.Apply(tokenize.NewText(prompt), nil)
		assert.Contains(t, ids(fired), id, prompt)
	}
}

// TestPlainPrintKeepsMeaning protects the whole-word matcher's rewrite of
// a trigger: printed without flags for a lower-cased prompt, every
// shipped trigger matches exactly the prompts its case-insensitive
// original matches.
func TestPlainPrintKeepsMeaning(t *testing.T) {
	data, err := os.ReadFile("../rules/disambiguation.yaml")
	require.NoError(t, err)
	set, _, err := disambig.Parse("rules.yaml", data, func(string) bool { return true })
	require.NoError(t, err)
	// Each rule's own examples, which its branches match, and a sample of
	// the others, which they mostly do not.
	sample := []string{"ΛΌΓΟΣ λόγος λόγοσ", "Kelvin K", "a.b*c", "\n", ""}
	for i, r := range set.Rules {
		if i%4 == 0 {
			sample = append(sample, r.Examples...)
		}
	}
	checked := 0
	for _, r := range set.Rules {
		prompts := append(slices.Clip(sample), r.Examples...)
		for _, b := range r.Branches {
			if b.Engine != disambig.RE2 {
				continue
			}
			orig := regexp.MustCompile("(?i)" + b.Pattern)
			plain, err := regexp.Compile(disambig.Plain(b.Pattern))
			require.NoError(t, err, b.Pattern)
			for _, p := range prompts {
				p = strings.ToLower(p)
				require.Equal(t, orig.MatchString(p), plain.MatchString(p), "%q on %q", b.Pattern, p)
			}
			checked++
		}
	}
	assert.Greater(t, checked, 400)
}

// TestBacktrackingTimeBound protects the hook from a runaway JavaScript
// trigger: nested quantifiers that would backtrack for hours on a short
// prompt give up after MatchTimeout, the rule does not fire, the timeout
// is counted, and the other rules still fire.
func TestBacktrackingTimeBound(t *testing.T) {
	set := parse(t, `
rules:
  - id: runaway
    trigger: '(?=a)(a+)+b'
    boost: debugger-expert
    weight: 0.3
  - id: fine
    trigger: '(?<!x)!'
    boost: tester-expert
    weight: 0.3
`)
	prompt := "b " + strings.Repeat("a", 36) + "!"
	start := time.Now()
	fired := set.Fired(tokenize.NewText(prompt))
	elapsed := time.Since(start)
	assert.Equal(t, []string{"fine"}, ids(fired))
	assert.EqualValues(t, 1, set.Rules[0].TimedOut())
	assert.Zero(t, set.Rules[1].TimedOut())
	// MatchTimeout plus the clock's ticks, with room for a loaded machine.
	assert.Less(t, elapsed, disambig.MatchTimeout+time.Second, "a runaway match must stop near MatchTimeout")

	// A prompt the pattern matches quickly still fires it.
	assert.Equal(t, []string{"runaway"}, ids(set.Fired(tokenize.NewText("aab"))))
}
