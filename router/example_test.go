package router_test

import (
	"fmt"

	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

// Route a prompt over the built-in catalog, rules and synonyms. Small talk
// gets no skill; a follow-up in a session goes where the session has been.
func Example() {
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	if err != nil {
		panic(err)
	}
	for _, prompt := range []string{
		"React 页面加载慢，首屏要 4 秒",
		"渗透测试报告怎么写",
		"thanks, that's all",
	} {
		d := r.Route(prompt, router.Session{})
		fmt.Printf("%q -> %q (%s)\n", prompt, d.Skill, d.Level)
	}
	d := r.Route("继续", router.Session{Recent: []string{"git-operation-master"}})
	fmt.Printf("%q after git work -> %q\n", "继续", d.Skill)
	// Output:
	// "React 页面加载慢，首屏要 4 秒" -> "performance-expert" (HIGH)
	// "渗透测试报告怎么写" -> "security-expert" (HIGH)
	// "thanks, that's all" -> "" (LOW)
	// "继续" after git work -> "git-operation-master"
}
