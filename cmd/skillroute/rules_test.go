package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyCatalog writes a four-skill catalog whose routes the rules below
// are written against.
func tinyCatalog(t *testing.T) string {
	dir := t.TempDir()
	for _, s := range []struct{ name, description, core, strong string }{
		{"git-helper", "git history, rebase and merge conflicts", "rebase, merge conflict, 冲突", "git"},
		{"copy-writer", "marketing copy and slogans", "slogan, 文案", "广告"},
		{"test-writer", "unit tests and test plans", "单元测试", "测试, test"},
		{"dev-generalist", "implements features", "实现, implement", "购物车, 功能"},
	} {
		body := "---\nname: " + s.name + "\ndescription: " + s.description + "\nkeywords:\n  core: [" + s.core + "]\n  strong: [" + s.strong + "]\n---\n" + s.description + "\n"
		require.NoError(t, os.MkdirAll(filepath.Join(dir, s.name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, s.name, "SKILL.md"), []byte(body), 0o644))
	}
	return dir
}

// tddRule is a rule, to follow a rules file's "rules:", that sends TDD
// prompts to test-writer.
const tddRule = `  - id: tdd
    trigger: 'tdd'
    boost: test-writer
    penalty: [dev-generalist]
    weight: 0.4
`

// rebaseCopyRule is a rules file whose one rule breaks git prompts: it
// sends "rebase" to copy-writer, away from git-helper.
const rebaseCopyRule = `rules:
  - id: rebase-copy
    trigger: 'rebase'
    boost: copy-writer
    penalty: [git-helper]
    weight: 0.3
`

// TestRulesLintEval protects the ablation `rules lint --eval` reports: per
// rule, the labelled prompts (single or session turns) it fixes (right only
// with it) and breaks (right only without it), and a lint that fails on a
// rule with a net loss.
func TestRulesLintEval(t *testing.T) {
	catalog := tinyCatalog(t)
	dir := t.TempDir()
	rulesFile := filepath.Join(dir, "rules.yaml")
	require.NoError(t, os.WriteFile(rulesFile, []byte(rebaseCopyRule+tddRule+`  - id: never
    trigger: 'zzzz'
    boost: test-writer
    weight: 0.3
`), 0o644))
	evalFile := filepath.Join(dir, "labelled.jsonl")
	require.NoError(t, os.WriteFile(evalFile, []byte(`{"query": "git rebase 冲突了怎么解决", "expected": "git-helper"}
{"query": "用 TDD 的方式实现，先写测试", "expected": "test-writer"}
{"query": "TDD 实现购物车功能的测试", "expected": "test-writer"}
{"query": "你好", "expected": "none"}
{"id": "s1", "project_files": [], "turns": [{"query": "git rebase 冲突了", "expected": "git-helper"}, {"query": "用 TDD 的方式实现，先写测试", "expected": "test-writer"}]}
`), 0o644))

	code, out, errOut := runCLI(t, "rules", "lint", "--catalog", catalog, "--eval", evalFile, "-v", rulesFile)
	assert.Equal(t, 1, code, "a rule with a net loss fails the lint")
	assert.Contains(t, errOut, "3 rules: 3 loaded, 0 examples: 1 rules with a net loss (rebase-copy)")
	assert.Contains(t, out, "ablation over 6 labelled prompts")
	row := func(rule string) []string {
		m := regexp.MustCompile(`(?m)^\s*` + rule + `\s+(\d+)\s+(\d+)\s+(\d+)\s+([-+]\d+)\s*$`).FindStringSubmatch(out)
		require.NotNil(t, m, "no row for %s in:\n%s", rule, out)
		return m[1:]
	}
	// fired, fixes, breaks, net. "TDD 实现购物车功能的测试": dev-generalist
	// wins clearly on its own words, so tdd fires there and changes nothing.
	assert.Equal(t, []string{"2", "0", "2", "-2"}, row("rebase-copy"))
	assert.Equal(t, []string{"3", "2", "0", "+2"}, row("tdd"))
	assert.NotRegexp(t, `(?m)^\s*never\s`, out, "a rule that fired nowhere has no row")
	assert.Contains(t, out, "2 rules fired, 1 did not; in all 2 fixes and 2 breaks; 1 rules with a net loss")
	assert.Contains(t, out, `rebase-copy breaks `+evalFile+`:1: "git rebase 冲突了怎么解决" (want git-helper)`)
	assert.Contains(t, out, `tdd fixes `+evalFile+`:5: session s1 turn 2: "用 TDD 的方式实现，先写测试" (want test-writer)`)

	// Without the losing rule, the lint passes.
	require.NoError(t, os.WriteFile(rulesFile, []byte("rules:\n"+tddRule), 0o644))
	code, out, errOut = runCLI(t, "rules", "lint", "--catalog", catalog, "--eval", evalFile, rulesFile)
	assert.Equal(t, 0, code, out+errOut)
	assert.Contains(t, out, "1 rules: 1 loaded, 0 examples: ok")
}

// TestShippedRulesNoNetLoss keeps every shipped rule worth its place: on
// the dev sets beside the project, removing any one of them loses no
// labelled prompt on balance.
func TestShippedRulesNoNetLoss(t *testing.T) {
	if _, err := os.Stat(shared); err != nil {
		t.Skip("../shared (design data) is absent")
	}
	for _, set := range []struct {
		catalog string
		files   []string
	}{
		{"builtin", []string{shared + "/eval/dev.jsonl", shared + "/eval/sessions-dev.jsonl", "../../eval/testdata/fresh.jsonl"}},
		{shared + "/eval/real-dev/skills", []string{shared + "/eval/real-dev/prompts.jsonl"}},
	} {
		args := []string{"rules", "lint", "--catalog", set.catalog}
		for _, f := range set.files {
			args = append(args, "--eval", f)
		}
		code, out, errOut := runCLI(t, append(args, "builtin")...)
		assert.Equal(t, 0, code, out+errOut)
		assert.Contains(t, out, "0 rules with a net loss")
	}
}

// `rules lint --eval` reads labels as eval does: a label the catalog
// lacks is an error naming its line, and a skill may be named by its
// header's name. It took labels as written, so a misspelt one (or a
// title) counted every prompt it labels as a miss with the rule and
// without, and the rule's fixes and breaks there went unseen, exit 0.
func TestRulesLintEvalResolvesLabels(t *testing.T) {
	catalog := tinyCatalog(t)
	// A skill whose folder is not its header's name: labels may use either.
	titled := filepath.Join(catalog, "tw2")
	require.NoError(t, os.MkdirAll(titled, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(titled, "SKILL.md"), []byte("---\nname: slogan-studio\ndescription: slogans\nkeywords:\n  core: [tagline]\n---\nslogans\n"), 0o644))
	dir := t.TempDir()
	rulesFile := filepath.Join(dir, "rules.yaml")
	require.NoError(t, os.WriteFile(rulesFile, []byte("rules:\n"+tddRule+`  - id: tagline
    trigger: 'tagline'
    boost: tw2
    penalty: [copy-writer]
    weight: 0.4
`), 0o644))
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"query": "用 TDD 的方式实现，先写测试", "expected": "test-writer"}
{"query": "TDD 实现购物车功能", "expected": "test-writter"}
`), 0o644))
	code, out, errOut := runCLI(t, "rules", "lint", "--catalog", catalog, "--eval", bad, rulesFile)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, errOut, bad+`:2: expected "test-writter": no such skill in the catalog`)

	good := filepath.Join(dir, "good.jsonl")
	require.NoError(t, os.WriteFile(good, []byte(`{"query": "用 TDD 的方式实现，先写测试", "expected": "test-writer"}
{"query": "slogan 文案 广告 tagline", "expected": "slogan-studio"}
`), 0o644))
	code, out, errOut = runCLI(t, "rules", "lint", "--catalog", catalog, "--eval", good, "-v", rulesFile)
	assert.Equal(t, 0, code, out+errOut)
	assert.Contains(t, out, `tagline fixes `+good+`:2: "slogan 文案 广告 tagline" (want tw2)`,
		"labelled by its title, the prompt is tw2's: the rule that routes it there fixes it")
}

// The prompts `rules lint --eval -v` lists are named by file and line:
// "FILE prompt 1" counted single prompts only, so in a file with
// comments, blank lines or sessions before them it was not line 1.
func TestRulesLintEvalNamesLines(t *testing.T) {
	catalog := tinyCatalog(t)
	dir := t.TempDir()
	rulesFile := filepath.Join(dir, "rules.yaml")
	require.NoError(t, os.WriteFile(rulesFile, []byte(rebaseCopyRule), 0o644))
	evalFile := filepath.Join(dir, "labelled.jsonl")
	require.NoError(t, os.WriteFile(evalFile, []byte(`# git prompts
{"id": "s1", "turns": [{"query": "你好", "expected": "none"}, {"query": "git rebase 冲突了", "expected": "git-helper"}]}

{"query": "git rebase 冲突了怎么解决", "expected": "git-helper"}
`), 0o644))
	_, out, _ := runCLI(t, "rules", "lint", "--catalog", catalog, "--eval", evalFile, "-v", rulesFile)
	assert.Contains(t, out, `rebase-copy breaks `+evalFile+`:4: "git rebase 冲突了怎么解决" (want git-helper)`)
	assert.Contains(t, out, `rebase-copy breaks `+evalFile+`:2: session s1 turn 2: "git rebase 冲突了" (want git-helper)`)
}
