package router_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/eval/synth"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

// meanAllocs routes each prompt until the router's lazy state is built (a
// term map after some 4,000 lookups, compiled rule expressions), then
// returns the mean allocations of one route.
func meanAllocs(r *router.Router, prompts []string) float64 {
	for i := 0; i < 12; i++ {
		for _, p := range prompts {
			r.Route(p, router.Session{})
		}
	}
	total := 0.0
	for _, p := range prompts {
		total += testing.AllocsPerRun(10, func() { r.Route(p, router.Session{}) })
	}
	return total / float64(len(prompts))
}

// TestRouteAllocations protects the hook's latency where timing cannot:
// allocations per route stay bounded, and do not grow with the catalog
// (pruned scoring allocates per prompt, never per skill it passes). The
// bounds have about a third of headroom over what was measured (built-in:
// 190 plain, 215 under -race; 400 generated skills: 110, 130): a
// regression that allocates per candidate or per posting passes them by
// far, the race detector's extra allocations do not.
func TestRouteAllocations(t *testing.T) {
	builtin := meanAllocs(open(t), []string{
		"React 页面加载慢，首屏要 4 秒，Lighthouse 只有 45 分", "帮我写个 Dockerfile, multi-stage", "你好",
		"下周上线前要做一次渗透测试", "git rebase conflict on main, help", "接口响应很慢，帮我看看是不是数据库的问题",
	})
	assert.Less(t, builtin, 300.0, "allocations per route, built-in catalog")

	perSize := map[int]float64{}
	for _, n := range []int{100, 400} {
		dir := filepath.Join(t.TempDir(), "catalog")
		set, err := synth.Write(dir, synth.Options{Skills: n, Seed: 2, Queries: 16})
		require.NoError(t, err)
		r, err := loader.Open(loader.Config{Catalog: dir})
		require.NoError(t, err)
		var prompts []string
		for _, q := range set.Queries {
			prompts = append(prompts, q.Query)
		}
		perSize[n] = meanAllocs(r, prompts)
	}
	assert.Less(t, perSize[400], 200.0, "allocations per route, 400 generated skills")
	assert.Less(t, perSize[400], 1.3*perSize[100], "allocations grow with the catalog: %v", perSize)
}
