package category_test

import (
	"fmt"

	"github.com/skillroute/skillroute/learn/category"
)

func ExampleClassify() {
	for _, p := range []string{
		"登录接口报错了，帮我排查一下",
		"Write unit tests for the parser",
		"帮我 review 一下这个 PR",
		"今晚要上线，部署到生产环境",
		"什么是微服务？",
		"hello",
	} {
		fmt.Println(category.Classify(p))
	}
	// Output:
	// debug
	// test
	// review
	// deploy
	// question
	// other
}
