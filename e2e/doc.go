// Package e2e runs skillroute inside the real Claude Code CLI.
//
// The unit tests of the other packages feed the hook events as the
// documentation describes them; these tests let Claude Code itself send
// them. They install a pinned version of the CLI from the npm registry into
// a cache folder, start a mock of the Anthropic Messages API on 127.0.0.1,
// build skillroute, and run `claude -p` in a sandbox home with skillroute
// installed, first as a binary (`skillroute install`), then as a plugin
// (--plugin-dir with this repository). They check what reaches the model
// (the mock's logged request bodies), what lands in the state folder, and
// what Claude Code's debug log says: the routed line is in the request,
// silence adds nothing, a Skill tool call is a confirmation or a
// correction, a typed plain command or a typed skill for a new task is
// neither, the skill listing is within its budget, and the plugin's
// /skillroute:wrong records the correction.
//
// They take about a minute and need npm and the registry, so they sit
// behind a build tag and `go test ./...` skips them:
//
//	go test -tags e2e -count=1 -v ./e2e/
//
// SKILLROUTE_E2E_CACHE moves the CLI's cache folder (default: the user
// cache folder's skillroute-e2e). The shell-level tests of the plugin's
// entry script (plugin_test.go) need no CLI and run with the unit tests.
package e2e
