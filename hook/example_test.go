package hook_test

import (
	"context"
	"fmt"
	"os"

	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

// Handle one UserPromptSubmit event as Claude Code sends it: the output is
// the JSON that adds a line of context to the prompt.
func ExampleHandler_Handle() {
	dir, _ := os.MkdirTemp("", "skillroute-example-")
	defer os.RemoveAll(dir)
	h := &hook.Handler{
		Store: &hook.Store{Dir: dir},
		Open:  func() (*router.Router, error) { return loader.Open(loader.Config{Catalog: loader.Builtin}) },
	}
	res := h.Handle(context.Background(), []byte(`{"session_id":"abc","hook_event_name":"UserPromptSubmit","prompt":"git rebase 之后冲突了，怎么解决"}`))
	fmt.Println(string(res.Output))
	res = h.Handle(context.Background(), []byte(`{"session_id":"abc","hook_event_name":"UserPromptSubmit","prompt":"thanks!"}`))
	fmt.Printf("%q (%s)\n", res.Output, res.Reason)
	// Output:
	// {"hookSpecificOutput":{"additionalContext":"skillroute: the skill \"git-operation-master\" matches this request (confidence 0.81; \"rebase\", \"git\", \"冲突\", rule git-ops).","hookEventName":"UserPromptSubmit"}}
	// "" (closing turn: no skill needed)
}
