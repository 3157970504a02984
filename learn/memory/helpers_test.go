package memory_test

import (
	"time"

	"github.com/skillroute/skillroute/learn/feedback"
)

// t0 is the "now" of the memory's external tests.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// feedbackRecords is a small log: a prompt corrected twice, one
// confirmed, an abstention confirmed.
func feedbackRecords() []feedback.Record {
	return []feedback.Record{
		{TS: t0.Add(-2 * time.Hour), Session: "s", Query: "把 Stripe 的 webhook 回调接到订单服务里", Routed: "api-integration-specialist", Corrected: "backend-builder", Kind: feedback.KindExplicit},
		{TS: t0.Add(-time.Hour), Session: "s", Query: "把 Stripe 的 webhook 回调接到订单服务里", Routed: "api-integration-specialist", Corrected: "backend-builder", Kind: feedback.KindExplicit},
		{TS: t0.Add(-time.Hour), Session: "s", Query: "React 页面加载慢", Routed: "performance-expert", Corrected: "performance-expert", Kind: feedback.KindImplicit},
		{TS: t0.Add(-time.Hour), Session: "s", Query: "thanks", Kind: feedback.KindImplicit},
	}
}
