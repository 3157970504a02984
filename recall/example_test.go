package recall_test

import (
	"fmt"

	"github.com/skillroute/skillroute/recall"
	"github.com/skillroute/skillroute/tokenize"
)

// Retrieve the remembered facts a prompt needs, across languages: the
// Chinese prompt asks about the staging port, which a fact states in
// English; a prompt about something else retrieves nothing.
func ExampleIndex_Search() {
	mems := []recall.Memory{
		{ID: "m1", Text: "The staging API listens on port 8443, not 443."},
		{ID: "m2", Text: "Release branches are cut every second Tuesday."},
	}
	x, err := recall.Build(recall.MemoryDocs(mems))
	if err != nil {
		panic(err)
	}
	for _, prompt := range []string{"staging 环境的端口是多少？", "how do I center a div?"} {
		hits := x.Search(tokenize.NewText(prompt), 1)
		if len(hits) == 0 {
			fmt.Printf("%q: nothing\n", prompt)
			continue
		}
		fmt.Printf("%q: %s %q\n", prompt, mems[hits[0].Doc].ID, hits[0].Matched)
	}
	// Output:
	// "staging 环境的端口是多少？": m1 ["staging" "端口"]
	// "how do I center a div?": nothing
}
