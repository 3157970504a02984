package disambig_test

import (
	"fmt"
	"github.com/skillroute/skillroute/tokenize"

	"github.com/skillroute/skillroute/disambig"
)

// A rule moves security work ahead of unit testing when the prompt asks
// for a penetration test. The two are close (tester-expert leads by 2×,
// under ClearLead), so the rule's verdict holds: tester-expert goes down
// as far as the bound lets it (÷ √ClearLead), and security-expert rises
// just past it.
func Example() {
	rules := []byte(`
rules:
  - id: test-pentest
    trigger: '渗透测试|penetration test|pentest'
    boost: security-expert
    penalty: [tester-expert]
    weight: 0.3
`)
	known := func(name string) bool { return name == "security-expert" || name == "tester-expert" }
	set, _, err := disambig.Parse("rules.yaml", rules, known)
	if err != nil {
		fmt.Println(err)
		return
	}
	cands := []disambig.Candidate{
		{Skill: "tester-expert", Score: 10},
		{Skill: "security-expert", Score: 5},
	}
	ranked, fired := set.Apply(tokenize.NewText("下周上线前要做一次渗透测试"), cands)
	fmt.Println("fired:", fired[0].ID)
	for _, c := range ranked {
		fmt.Printf("%s %.3f\n", c.Skill, c.Score)
	}
	// Output:
	// fired: test-pentest
	// security-expert 7.018
	// tester-expert 6.667
}
