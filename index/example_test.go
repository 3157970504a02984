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
		ix.Postings(ix.TermID(term), func(p index.Posting) {
			fmt.Printf("%s: %s %s, base %.1f, weight %.3f\n", term, ix.Skills[p.Skill].Name, p.Field, p.Base, p.Weight)
		})
	}
	// Output:
	// kafka: queue-expert core, base 1.0, weight 1.405
	// redi: cache-expert core, base 1.0, weight 1.000
	// redi: queue-expert strong, base 0.7, weight 0.700
}
