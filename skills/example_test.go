package skills_test

import (
	"fmt"

	"github.com/skillroute/skillroute/skills"
)

// Parse reads one SKILL.md: Claude Code's frontmatter plus skillroute's
// keyword tiers.
func Example() {
	data := []byte(`---
name: cache-expert
description: Redis caching and cache stampedes.
keywords:
  core: [redis, 缓存击穿]
  strong: [cache]
---
# Cache expert
`)
	sk, err := skills.Parse("cache-expert/SKILL.md", "cache-expert", data)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sk.Name, "-", sk.Description)
	for _, k := range sk.Keywords {
		fmt.Printf("%s %s %.1f\n", k.Tier, k.Text, k.Weight)
	}
	// Output:
	// cache-expert - Redis caching and cache stampedes.
	// core redis 1.0
	// core 缓存击穿 1.0
	// strong cache 0.7
}
