package disambig_test

import (
	"github.com/skillroute/skillroute/tokenize"
	"regexp"
	"strings"
	"testing"

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

// TestPenaltyKeepsBelowBoosted protects a rule's verdict on rank: a
// penalised skill that stays above the boosted one is put just below it.
func TestPenaltyKeepsBelowBoosted(t *testing.T) {
	set := parse(t, pentestRules)
	require.Len(t, set.Rules, 1)
	r := set.Rules[0]
	assert.Equal(t, "渗透测试 is security work, not unit testing", r.Note)
	assert.Equal(t, []string{"下周上线前要做一次渗透测试"}, r.Examples)
	assert.Equal(t, 3, r.Line)

	tests := []struct {
		name  string
		cands []disambig.Candidate
		want  map[string]float64
		order []string
	}{
		{
			name:  "penalised skill would stay above",
			cands: []disambig.Candidate{{Skill: "tester-expert", Score: 10}, {Skill: "other-expert", Score: 8}, {Skill: "security-expert", Score: 5}},
			want:  map[string]float64{"security-expert": 6.5, "tester-expert": 6.5 * disambig.BelowBoosted, "other-expert": 8},
			order: []string{"other-expert", "security-expert", "tester-expert"},
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

	got, _ := set.Apply(tokenize.NewText("pentest"), []disambig.Candidate{{Skill: "tester-expert", Score: 10}, {Skill: "security-expert", Score: 5}})
	require.Equal(t, "tester-expert", got[1].Skill)
	assert.Contains(t, got[1].Explain.Message, "keeps tester-expert below security-expert")
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
// (package bookworm): those written for a larger catalog or for
// JavaScript regular expressions are dropped and reported, not fatal,
// while the same specs built strictly fail, listing every problem.
func TestBuildLenient(t *testing.T) {
	specs := []disambig.RuleSpec{
		{ID: "R01", Trigger: "bug|报错", Boost: "debugger-expert", Penalty: []string{"tester-expert", "graphql-architect"}, Weight: 0.35},
		{ID: "R02", Trigger: "(?!foo)bar", Boost: "debugger-expert", Weight: 0.3},
		{ID: "R03", Trigger: "(?<!vue)路由分析", Boost: "debugger-expert", Weight: 0.3},
		{ID: "R04", Trigger: "mcp", Boost: "mcp-probe", Weight: 0.3},
		{ID: "R05", Trigger: "x", Penalty: []string{"ghost"}, Weight: 0.3},
		{Trigger: "leak", Boost: "debugger-expert", Weight: 0.3, ExclusiveWith: "R01", OnKeyword: "(?=leak)"},
	}
	set, problems, err := disambig.Build("bw.json", specs, known, disambig.BuildOptions{Lenient: true})
	require.NoError(t, err)
	assert.True(t, set.Lenient)
	assert.Equal(t, "bw.json", set.Source)
	require.Equal(t, []string{"R01", "#6"}, ids(ruleRefs(set)))
	assert.Equal(t, []string{"tester-expert"}, set.Rules[0].Penalty)
	assert.Equal(t, "R01", set.Rules[1].ExclusiveWith)
	assert.Empty(t, set.Rules[1].OnKeyword, "an exclusion keyword that does not compile is left out")

	reasons := map[string]string{}
	for _, p := range problems {
		assert.Equal(t, "bw.json", p.File)
		assert.True(t, strings.HasPrefix(p.Error(), "bw.json: rule "+p.RuleID+": "), p.Error())
		reasons[p.RuleID] += p.Reason
	}
	assert.Contains(t, reasons["R01"], `penalty names unknown skill "graphql-architect"`)
	assert.Contains(t, reasons["R02"], "trigger does not compile")
	assert.Contains(t, reasons["R03"], "trigger does not compile")
	assert.Contains(t, reasons["R04"], `boost names unknown skill "mcp-probe"`)
	assert.Contains(t, reasons["R05"], `penalty names unknown skill "ghost"`)
	assert.Contains(t, reasons["#6"], "mutual_exclusion on_keyword does not compile")
	assert.Len(t, reasons, 6)

	set, problems, err = disambig.Build("mine.yaml", specs, known, disambig.BuildOptions{})
	require.Error(t, err)
	assert.Nil(t, set)
	assert.Nil(t, problems)
	for _, want := range []string{"rule R01: penalty names unknown skill", "rule R02: trigger", "rule R03: trigger", "rule R04: boost", "rule R05: penalty", "rule #6: mutual_exclusion"} {
		assert.Contains(t, err.Error(), "mine.yaml: "+want)
	}
}

func ruleRefs(set *disambig.Set) []*disambig.Rule {
	out := make([]*disambig.Rule, len(set.Rules))
	for i := range set.Rules {
		out[i] = &set.Rules[i]
	}
	return out
}

// TestMutualExclusion protects mutual_exclusion: of two exclusive rules
// that fire on the keyword, the declaring one wins.
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
// lower-cased prompt, whatever shape the trigger has.
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
	}
	for _, prompt := range prompts {
		fired := map[string]bool{}
		for _, r := range set.Fired(tokenize.NewText(prompt)) {
			fired[r.ID] = true
		}
		for _, r := range set.Rules {
			re := regexp.MustCompile("(?i)" + r.Pattern)
			want := re.MatchString(strings.ToLower(prompt))
			assert.Equal(t, want, fired[r.ID], "trigger %q on %q", triggers[r.ID[1]-'a'], prompt)
		}
	}

	// Spot checks of what must fire.
	for prompt, id := range map[string]string{
		"typescript 泛型": "ra", "Docker compose": "rb", "react router": "rc", "Color": "rd", "p99 300ms": "rm",
	} {
		_, fired := set.Apply(tokenize.NewText(prompt), nil)
		assert.Contains(t, ids(fired), id, prompt)
	}
}
