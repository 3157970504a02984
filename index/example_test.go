package index_test

import (
	"fmt"

	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/skills"
)

// Compile turns a catalog into postings whose weight is the keyword's tier
// weight times the term's IDF.
func Example() {
	cat := &skills.Catalog{Skills: []skills.Skill{
		{Name: "cache-expert", Keywords: []skills.Keyword{
			{Text: "Redis", Tier: skills.Core, Weight: skills.CoreWeight},
		}},
		{Name: "queue-expert", Keywords: []skills.Keyword{
			{Text: "Kafka", Tier: skills.Core, Weight: skills.CoreWeight},
			{Text: "Redis", Tier: skills.Strong, Weight: skills.StrongWeight},
		}},
	}}
	ix := index.Compile(cat, nil, index.Options{})
	for _, term := range []string{"kafka", "redi"} { // terms are stored normalised
		id := ix.TermID(term)
		idf := ix.TermIDF(id, true)
		ix.Postings(id, func(p index.Posting) {
			fmt.Printf("%s: %s %s, tier %.1f × idf %.3f = %.3f\n", term, ix.Skills.Name(p.Skill), p.Field, p.Weight/idf, idf, p.Weight)
		})
	}
	// Output:
	// kafka: queue-expert core, tier 1.0 × idf 1.405 = 1.405
	// redi: cache-expert core, tier 1.0 × idf 1.000 = 1.000
	// redi: queue-expert strong, tier 0.7 × idf 1.000 = 0.700
}
