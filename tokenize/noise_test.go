package tokenize_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/tokenize"
)

// noise returns, for each of the given terms, whether the tokenizer
// marked it as cut from pasted material.
func noise(t *testing.T, prompt string, words ...string) map[string]bool {
	t.Helper()
	got := terms(tokenize.New(nil, nil).Tokenize(prompt))
	out := map[string]bool{}
	for _, w := range words {
		tm, ok := got[w]
		if assert.True(t, ok, "%q has no term %q", prompt, w) {
			out[w] = tm.Noise
		}
	}
	return out
}

func TestNoiseMarksPastedMaterial(t *testing.T) {
	tests := []struct {
		name   string
		prompt string
		noisy  []string
		clean  []string
	}{
		{"log lines, upper-case level", "the worker keeps dying\n2024-05-01 12:00:03 ERROR connection reset by peer\nWARN retrying session",
			[]string{"connect", "reset", "peer", "retri", "session"}, []string{"worker", "die"}},
		{"the word error in prose is no log level", "error handling in this service is a mess", nil, []string{"error", "handl", "servic"}},
		{"stack frames keep the exception and file names", "TypeError: Cannot read properties of undefined\n    at render (src/components/List.jsx:12:5)",
			[]string{"read", "properti", "undefin", "render", "compon"}, []string{"typeerror", "list", "jsx"}},
		{"pytest lines", "pytest fails\nE       fixture 'db_session' not found\n>       available fixtures: cache, capsys",
			[]string{"fixtur", "found", "avail", "cach", "capsi", "db_session", "session"}, []string{"pytest", "fail"}},
		{"a URL", "see https://example.com/docs/getting-started for the setup", []string{"exampl", "doc", "start"}, []string{"setup"}},
		{"a path's folders, not its file", "please add tests for src/utils/price.ts", []string{"src", "util"}, []string{"price", "ts", "test"}},
		{"compounds with a slash are no paths", "set up ci/cd for a react/vue app", nil, []string{"ci/cd", "ci", "react/vue", "vue"}},
		{"a fenced block", "review this please:\n```\nconst user = await db.users.find(id)\n```", []string{"const", "user", "await", "find"}, []string{"review"}},
		{"a fence's language names what was pasted", "review this please:\n```diff title=patch\n- const user = await db.users.find(id)\n```",
			[]string{"const", "user", "await", "find", "titl", "patch"}, []string{"review", "diff"}},
		{"a test runner's and a CI's result lines", "ci passes locally, not here\n✓ renders the header (5 ms)\n✗ build-image (2m 12s)\nPASS src/cart.test.js",
			[]string{"render", "header", "build", "imag", "src"}, []string{"ci", "pass", "local", "cart"}},
		{"declarations of functions and types", "make this faster\ndef slugify(title: str) -> str:\nfunc (s *Store) Get(id int) error {\nclass Cart:",
			[]string{"slugifi", "titl", "str", "store", "get", "cart"}, []string{"make", "faster"}},
		{"a sentence that opens with class is no declaration", "class notes for the workshop go in the wiki", nil, []string{"class", "note", "workshop"}},
		{"a timeline of clock times, one event a line", "turn my notes into the write-up\n14:02 deploy cache-service v4.1\n9:15 rolled back the config",
			[]string{"deploy", "cach", "roll", "config"}, []string{"turn", "note", "write"}},
		{"a time inside a sentence is prose", "the outage started at 14:02 after a deploy", nil, []string{"outag", "start", "deploy"}},
		{"an exception message inline", "my script dies with ValueError: invalid literal for int() with base 10",
			[]string{"invalid", "liter", "int", "base"}, []string{"valueerror", "script", "die"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := noise(t, tt.prompt, append(append([]string{}, tt.noisy...), tt.clean...)...)
			for _, w := range tt.noisy {
				assert.True(t, got[w], "%q should be noise", w)
			}
			for _, w := range tt.clean {
				assert.False(t, got[w], "%q should count as the prompt's own word", w)
			}
		})
	}
}

func TestNoiseLeavesPlainPromptsAlone(t *testing.T) {
	for _, prompt := range []string{"React 页面加载慢，首屏要 4 秒", "write unit tests for the parser", "帮我 review 一下这个 PR"} {
		for _, tm := range tokenize.New(nil, nil).Tokenize(prompt).Terms {
			assert.False(t, tm.Noise, "%q in %q", tm.Text, prompt)
		}
	}
}

func TestTermSpans(t *testing.T) {
	got := terms(tokenize.New(nil, nil).Tokenize("fix tests/conftest.py now"))
	whole, part := got["tests/conftest.py"], got["conftest"]
	assert.Equal(t, 4, whole.Pos)
	assert.Equal(t, 4+len("tests/conftest.py"), whole.End)
	assert.Equal(t, 4+len("tests/"), part.Pos, "a part of a compound starts where it stands in it")
	assert.Equal(t, part.Pos+len("conftest"), part.End)
	phrase := got["fix tests/conftest.py"]
	assert.Equal(t, 0, phrase.Pos)
	assert.Equal(t, len("fix tests/conftest.py"), phrase.End)
	assert.True(t, got["test"].Noise, "the path's folder")
	assert.False(t, part.Noise, "the file's name")
}

// Words written apart meet the word run together: "fail over" is
// "failover", "set up" "setup"; grammar words join nothing.
func TestJoinedCompounds(t *testing.T) {
	got := terms(tokenize.New(nil, nil).Tokenize("how do we fail over the data base, set up login"))
	for _, w := range []string{"failov", "databas", "setup"} {
		assert.Contains(t, got, w)
	}
	for _, w := range []string{"howdo", "dow", "wefail", "overth", "thedata"} {
		assert.NotContains(t, got, w)
	}
	assert.Equal(t, got["fail"].Pos, got["failov"].Pos, "a joined word spans both, so it overlaps them")
}

// A ratio of numbers is one word, its plural the ratio: "1:1s" meets the
// keyword "1:1".
func TestRatios(t *testing.T) {
	got := terms(tokenize.New(nil, nil).Tokenize("my first 1:1s with the team, a 16:9 slide"))
	assert.Contains(t, got, "1:1")
	assert.Contains(t, got, "16:9")
	assert.Contains(t, got, "first 1:1")
}

// Prose blanks pasted material and keeps what names it, byte for byte in
// place.
func TestProse(t *testing.T) {
	for _, tt := range []struct{ prompt, want string }{
		{"why is the checkout slow?", "why is the checkout slow?"},
		{"fix this:\n```sql\nselect * from orders where region = 'us-east-1'\n```", "fix this:\n   sql\n" + strings.Repeat(" ", 47) + "\n   "}, // the fence's language stays
		{"got TypeError: Cannot read properties of undefined", "got typeerror:" + strings.Repeat(" ", 36)},
		{"see https://example.com/a/b for the spec", "see " + strings.Repeat(" ", 23) + " for the spec"},
	} {
		got := tokenize.NewText(tt.prompt).Prose()
		assert.Equal(t, tt.want, got.Lower, tt.prompt)
		assert.Len(t, got.Lower, len(tt.prompt), "offsets line up")
	}
}

// What a program printed is pasted material besides logs and code: a
// command's output after its "$" line, paragraph by paragraph until the
// user's own (their last paragraph, Chinese, a sentence's end), aligned
// columns, CSV rows, a JSON block, and a document quoted between two
// "---" lines. Only the user's words are left.
func TestProseBlanksProgramOutput(t *testing.T) {
	words := func(p string) string {
		prose := tokenize.NewText(p).Prose().Lower
		assert.Len(t, prose, len(p), "offsets line up")
		return strings.Join(strings.Fields(prose), " ")
	}
	for _, tt := range []struct{ name, prompt, want string }{
		{"output paragraphs, then the user's", "$ npm install\nadded 1423 packages in 38s\n\nfound 0 vulnerabilities\n\nok that did it, thanks!", "ok that did it, thanks!"},
		{"the last paragraph is the user's, punctuation or not", "$ git status\nHEAD detached at 4f2c1ab\nnothing to commit, working tree clean\n\nhow do i get back to main", "how do i get back to main"},
		{"a question right under the command is the user's", "$ make test\nFAIL ./pkg 0.2s\nwhy does it fail only on CI?", "pkg why does it fail only on ci?"},
		{"a sentence after the output is the user's", "$ make\nbuild ok\n\nIt built. But the binary is 80MB.\n\nhow do I shrink it", "it built. but the binary is 80mb. how do i shrink it"},
		{"Chinese after the output is the user's", "$ python main.py\nzsh: command not found: python\n这啥意思？我明明装了 python 啊", "这啥意思？我明明装了 python 啊"},
		{"aligned columns, a count is no file name", "NAME       READY   STATUS\napi-6c9d   1/1     Running\n\n好了，全部起来了", "好了，全部起来了"},
		{"CSV rows", "how many rows?\nregion,quarter,revenue\nEMEA,Q1,182000", "how many rows?"},
		{"a brace left open quotes nothing", "{\n  \"a\": 1,\nwhat is wrong with this json?", "{ \"a\": 1, what is wrong with this json?"},
		{"a JSON block", "{\n  \"sub\": \"8812\",\n  \"exp\": 1718003600\n}\nwhat time is that exp?", "what time is that exp?"},
		{"a document between two rules", "Plan the split from these notes:\n---\nJenkins deploys to 8 ECS boxes\n---\nkeep it short", "plan the split from these notes: keep it short"},
		{"one rule quotes nothing", "Notes\n---\nJenkins deploys nightly", "notes --- jenkins deploys nightly"},
		{"prose with two spaces is no table", "Our API is slow.  The p99 is 3s.", "our api is slow. the p99 is 3s."},
		{"nor with two spaces after every sentence", "Checkout is slow.  It takes 4s.  Profile it, please.", "checkout is slow. it takes 4s. profile it, please."},
		{"a YAML block, its keys nested; a file's name stays", "values.yaml:\n\nimage:\n  repository: registry.example.com/api\n  tag: 1.4.0   # 由 CI 覆盖\nworker:\n  replicas: 2\n\n怎么改 tag 才能保留注释", "values.yaml: api 怎么改 tag 才能保留注释"},
		{"a workflow, the question right under it", "on:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\nwhy does this never run on PRs?", "why does this never run on prs?"},
		{"key lines with no nesting are the user's", "Expected: 200\nActual: 500\nNote: only on CI", "expected: 200 actual: 500 note: only on ci"},
		{"so is a list of theirs", "Steps:\n- build: ok\n- test: fails\nwhy?", "steps: - build: ok - test: fails why?"},
	} {
		assert.Equal(t, tt.want, words(tt.prompt), tt.name)
	}
}

// Prose only ever blanks: whatever the prompt, its offsets line up with
// the prompt's, and every byte it keeps is the prompt's own.
func FuzzProse(f *testing.F) {
	for _, s := range []string{
		"$ npm install\nadded 1 package\n\nfound 0 vulnerabilities\n\nthanks!",
		"{\n  \"a\": 1\n}\nwhat is a?",
		"NAME   READY   STATUS\napi    1/1     Running\n\n好了",
		"a,b,c\n1,2,3\nsum?",
		"TypeError: x is undefined at /src/app.js:3:5",
		"```go\nfunc main() {}\n```\nwhy?",
		"image:\n  tag: 1.4.0 # ci\n  - a\nworker:\n  x: 1\n\nhow?",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		text := tokenize.NewText(prompt)
		prose := text.Prose()
		require.Len(t, prose.Lower, len(text.Lower))
		for i := range len(prose.Lower) {
			if prose.Lower[i] != text.Lower[i] {
				require.Equal(t, byte(' '), prose.Lower[i], "byte %d of %q", i, prompt)
			}
		}
	})
}

// BenchmarkProseKeyLines reads a paste of 2,000 "key: value" lines with
// no nesting: a run of YAML-shaped lines is read once (yamlSeen), where
// reading it again from each line was quadratic in its length.
func BenchmarkProseKeyLines(b *testing.B) {
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "field%d: value %d\n", i, i)
	}
	sb.WriteString("which of these fields is unused?")
	prompt := sb.String()
	for b.Loop() {
		tokenize.NewText(prompt).Prose()
	}
}
