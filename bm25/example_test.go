package bm25_test

import (
	"fmt"

	"github.com/skillroute/skillroute/bm25"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/skills"
)

// Score ranks the skills of a compiled index against a tokenized prompt.
func Example() {
	kw := func(tier skills.Tier, text string) skills.Keyword {
		return skills.Keyword{Text: text, Tier: tier, Weight: tier.Weight()}
	}
	cat := &skills.Catalog{Skills: []skills.Skill{ // sorted by name
		{Name: "database-tuning-expert", Keywords: []skills.Keyword{kw(skills.Core, "slow query"), kw(skills.Core, "慢查询"), kw(skills.Extended, "mysql")}},
		{Name: "devops-expert", Keywords: []skills.Keyword{kw(skills.Core, "docker"), kw(skills.Extended, "mysql")}},
	}}
	ix := index.Compile(cat, nil, index.Options{})
	q := ix.Tokenizer().Tokenize("MySQL 慢查询优化")
	for _, r := range bm25.Score(ix, q) {
		fmt.Printf("%s %.3f\n", r.Name, r.Score)
		for _, m := range r.Matches {
			fmt.Printf("  %s\n", m.Term)
		}
	}
	// Output:
	// database-tuning-expert 2.159
	//   慢查询
	//   mysql
	// devops-expert 0.619
	//   mysql
}
