package tokenize_test

import (
	"fmt"

	"github.com/skillroute/skillroute/tokenize"
)

// A prompt is cut into weighted terms: Chinese by the dictionary, English
// lower-cased and stemmed, and a refused word lowered.
func Example() {
	tok := tokenize.New([]string{"页面", "加载", "慢"}, nil)
	for _, t := range tok.Tokenize("React 页面加载慢，不要用 jQuery").Terms {
		fmt.Printf("%s %.1f\n", t.Text, t.Weight)
	}
	// Output:
	// jqueri 0.2
	// react 1.0
	// 不要用 1.0
	// 加载 1.0
	// 慢 1.0
	// 页面 1.0
}
