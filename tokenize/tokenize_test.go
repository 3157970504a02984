package tokenize

import (
	"fmt"
	"strings"
	"testing"
)

func TestScratch(t *testing.T) {
	tk := New([]string{"页面", "加载", "慢", "数据库", "存储", "库存"}, nil)
	for _, s := range []string{"React 页面加载慢", "数据库存储", "帮我看看性能问题", "ci/cd pipeline setup", "crawls crawling", "不要用Redis 做缓存", "without docker please", "区别是什么 特别慢", "page does not load", "Next.js app's router", "slow query in core web vitals", strings.Repeat("数", 5000)[:30]} {
		q := tk.Tokenize(s)
		fmt.Printf("%q -> %+v\n", s, q.Terms)
	}
	fmt.Println(tk.Words("The pages are loading slowly 页面加载"))
	fmt.Println(Normalize("Crawls  Crawling next.js"))
}
