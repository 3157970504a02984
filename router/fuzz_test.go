package router_test

import (
	"testing"
	"unicode/utf8"

	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

// FuzzRoute routes arbitrary text, with and without a session: never a
// panic, confidence in [0, 1], and a skill only when the level allows it.
func FuzzRoute(f *testing.F) {
	for _, seed := range []string{"React 页面加载慢", "继续", "thanks", "不要用Redis做缓存", "n+1查询和sql 注入", "\xff\xfe", "also write the Dockerfile", "a|b (c) [d] \\Q"} {
		f.Add(seed)
	}
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		for _, sig := range []router.Session{{}, {Recent: []string{"tester-expert", "skillroute:git-operation-master"}}} {
			d := r.Route(prompt, sig)
			if d.Confidence < 0 || d.Confidence > 1 {
				t.Fatalf("confidence %v for %q", d.Confidence, prompt)
			}
			if (d.Skill != "") != (d.Level != router.Low) {
				t.Fatalf("skill %q at level %s for %q", d.Skill, d.Level, prompt)
			}
			if utf8.ValidString(prompt) && d.Query != prompt && len(prompt) <= 4000 {
				t.Fatalf("query %q changed from %q", d.Query, prompt)
			}
		}
	})
}
