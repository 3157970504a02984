package tokenize

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// Pasted material: a stack trace, a log excerpt, a URL, a file path, a
// block of code, a command's output (the lines after its "$" line, a
// table of aligned columns, CSV rows, a JSON block), a YAML block (a
// values file, a workflow), a document quoted between two "---" lines
// (meeting notes, a draft, a spec). Its words were written by a machine
// or for one ("found", "available", "session", "src", "user"), and left
// to vote they pull a prompt towards whichever skill's text uses the most
// common words. The informative parts of it are what names a thing: an
// exception's name, a file's name and extension (.pdf, conftest.py,
// Dockerfile), a tool's name.
//
// So the tokenizer marks the terms that start inside pasted material as
// Noise, and the scorer lets a noise term meet only keywords (what an
// author chose, or what the index derived as distinctive), never the text
// fields where every common word lives. Exception names, the last part
// of a path (the file's name) and a fenced block's language ("```diff")
// are not marked.

// The expressions below are compiled on first use: a plain sentence, most
// prompts, never needs them (noiseSpans), and compiling them cost every
// hook process about 0.1 ms.

// noiseLineRE finds lines that a program wrote: stack frames, pytest's "E"
// and ">" lines, shell prompts, log lines with a level or a timestamp, a
// timeline's clock times ("14:02 deploy cache-service": a monitor's or an
// on-call's notes of an incident, whose words vote as a log's do; on
// noisy.jsonl 115 -> 117 of 120, the other sets the same), diff headers,
// compiler positions ("main.go:12:5"), a test runner's or a CI's result
// lines ("✓ renders the header (5 ms)", "✗ lint", "PASS src/app.test.js"),
// and a line that declares a function, a method or a type ("def
// slugify(title: str) -> str:", "func (s *Store) Get(id int) {", "export
// default function App() {", "class Cart:"), code though its symbols are
// too few for isCodeLine. Read on the prompt as written, since a log
// level is upper case ("ERROR", not "error handling").
var noiseLineRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:at\s+\S+[\s(]|at\s+\S+:\d+|File\s+"|Traceback|E\s{2,}|>\s|\$\s|npm\s+(?:ERR!|WARN)|\[?(?:INFO|WARN|WARNING|ERROR|ERR|DEBUG|FATAL|TRACE|CRITICAL|PANIC)\]?[\s:\]]|\d{4}-\d{2}-\d{2}[ T]\d|\d{2}:\d{2}:\d{2}|\d{1,2}:\d{2}\s|@@ |\+\+\+ |--- |[\w./-]+\.\w+:\d+|[✓✔✗✘✕×]\s|(?:PASS|FAIL)\s+\S+\.\w+|(?:export\s+(?:default\s+)?)?(?:async\s+)?(?:pub\s+)?(?:def|func|function|fn|class|interface|struct|impl)\s+(?:\([^)]*\)\s*)?\w+\s*[(<:{])`)
})

// exceptionRE finds an exception name followed by its message
// ("TypeError: Cannot read properties of undefined"): the name informs,
// the message after the colon is the program's words.
var exceptionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b\w*(?:Error|Exception|Panic|Fault)\b:`) })

// urlRE finds URLs.
var urlRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:https?://|www\.)\S+`) })

// pathRE finds file paths: a leading "/", "./", "~/" or drive letter, two
// or more slashes, or a last part with an extension. "ci/cd", "and/or"
// and "react/vue" are not paths.
var pathRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:[A-Za-z]:\\|~/|\.{1,2}/|/)?(?:[\w.@-]+[/\\])+[\w@-]*(?:\.\w{1,6})?`)
})

// symbolShare is the share of a line's characters that are code symbols
// above which the line is code, not prose: English and Chinese sentences
// use a few percent (a comma, a period), a line of code a third.
const symbolShare = 0.25

// minCodeLine is the shortest line judged by its symbols: a short line
// ("v2.0?", "a/b") says too little.
const minCodeLine = 16

// noiseSpans returns the byte ranges of raw that hold pasted material, in
// order. Lower-casing keeps line breaks, so they hold in the lower-cased
// text too wherever its bytes line up with raw's (all but a few exotic
// letters); callers check the lengths agree.
func noiseSpans(raw string) []scope {
	if !strings.ContainsAny(raw, "\n/\\:`") && !strings.Contains(raw, "www.") {
		return nil // a plain sentence: the common case, at no cost
	}
	var out []scope
	fenced := false
	quoted := false // between two "---" lines: a document the user quotes
	output := false // in a command's output: after a "$ " line (commandOutput)
	closer := ""    // in a block opened by a line of "{" or "[": the line that closes it
	last := -1      // where the last paragraph starts, found once output meets a blank line
	yamlEnd := 0    // where the YAML block the line is in ends (yamlBlock)
	yamlSeen := 0   // where the last run of YAML-shaped lines read ends, block or not
	start := 0
	for start <= len(raw) {
		end := strings.IndexByte(raw[start:], '\n')
		if end < 0 {
			end = len(raw)
		} else {
			end += start
		}
		line := raw[start:end]
		trimmed := strings.TrimSpace(line)
		if !fenced && closer == "" && !quoted && start >= yamlSeen && strings.IndexByte(trimmed, ':') > 0 {
			// A run is read once: its later lines start no new run.
			n, block := yamlBlock(raw[start:])
			yamlSeen = start + max(n, 1)
			if block {
				yamlEnd = start + n
			}
		}
		if trimmed == "" && output {
			if last < 0 {
				last = lastParagraph(raw)
			}
			rest := raw[end:]
			next := end + len(rest) - len(strings.TrimLeft(rest, " \t\r\n")) // where the next paragraph starts
			output = commandOutput(raw[next:], next >= last)
		}
		switch {
		case !fenced && closer == "" && trimmed == "---" && (quoted || anyLine(raw[end:], isRule)):
			quoted = !quoted
			out = append(out, scope{start, end})
		case quoted:
			out = append(out, lineNoise(line, start)...)
		case closer != "":
			if closes(line, closer) {
				closer = ""
			}
			out = append(out, lineNoise(line, start)...)
		case start < yamlEnd:
			out = append(out, lineNoise(line, start)...)
		case !fenced && (trimmed == "{" || trimmed == "["):
			if closer = opens(line, raw[end:]); closer != "" {
				out = append(out, scope{start, end})
			}
		case !fenced && strings.HasPrefix(trimmed, "$ "):
			output = true
			out = append(out, lineNoise(line, start)...)
		case !fenced && trimmed != "" && (output && !usersLine(trimmed) || isTableLine(trimmed)):
			out = append(out, lineNoise(line, start)...)
		case strings.HasPrefix(trimmed, "```"):
			// The opening fence's language ("```diff", "```sql") names
			// what was pasted: it is no noise, the rest of the line is.
			fenced = !fenced
			if from, to := fenceLanguage(line); fenced && from < to {
				out = append(out, scope{start, start + from}, scope{start + to, end})
			} else {
				out = append(out, scope{start, end})
			}
		case fenced, noiseLineRE().MatchString(line), isCodeLine(trimmed):
			out = append(out, lineNoise(line, start)...)
		default:
			out = append(out, inlineNoise(line, start)...)
		}
		start = end + 1
	}
	return out
}

// opens returns the line that closes the block a line of "{" or "["
// opens (the bracket at the opening line's indentation), or "" when
// nothing in rest closes it: a brace left open quotes nothing, and the
// question under it stays the user's.
func opens(line, rest string) string {
	trimmed := strings.TrimSpace(line)
	closer := line[:strings.Index(line, trimmed)] + map[string]string{"{": "}", "[": "]"}[trimmed]
	if anyLine(rest, func(l string) bool { return closes(l, closer) }) {
		return closer
	}
	return ""
}

// yamlKeyRE is a line of a YAML mapping: a key, maybe as a list item,
// and a colon that ends the line or a space follows.
var yamlKeyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*(?:- )?[\w./-]+:(?:\s|$)`) })

// Pasted YAML (a Helm values file, a workflow, a manifest) is the lines
// from a key line up to a blank line or a line that is none of YAML's:
// key lines, comments, indented list items. It must hold minYAMLKeys
// keys or more, one of them opening a nested block (a key with no value
// and an indented line under it): "Expected: 200\nActual: 500\nNote:
// flaky" is the user's own lines, and has no nesting.
const minYAMLKeys = 3

// yamlBlock returns the length of the run of YAML-shaped lines text
// starts with, and whether it is a YAML block.
func yamlBlock(text string) (n int, block bool) {
	keys, nested := 0, false
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }
	opener := -1 // the indentation of the last key with no value, -1 after another line
	for rest := text; rest != ""; {
		line, after, more := strings.Cut(rest, "\n")
		trimmed := strings.TrimSpace(line)
		key := yamlKeyRE().MatchString(line)
		if trimmed == "" || !key && !strings.HasPrefix(trimmed, "#") && !(strings.HasPrefix(trimmed, "- ") && indent(line) > 0) {
			break // a blank line, or one that is none of YAML's
		}
		nested = nested || opener >= 0 && indent(line) > opener
		opener = -1
		if key {
			keys++
			if strings.HasSuffix(trimmed, ":") {
				opener = indent(line)
			}
		}
		n += len(line)
		if more {
			n++
		}
		rest = after
	}
	return n, keys >= minYAMLKeys && nested
}

// closes reports whether line closes a block whose closing line is
// closer ("}" at the block's indentation, maybe followed by a comma).
func closes(line, closer string) bool { return strings.TrimRight(line, ",; \t\r") == closer }

// isRule reports a line of "---". A quoted document lies between two: a
// single rule is a heading's underline or a separator, and quotes nothing.
func isRule(line string) bool { return strings.TrimSpace(line) == "---" }

// anyLine reports whether a line of text satisfies is.
func anyLine(text string, is func(line string) bool) bool {
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		if is(line) {
			return true
		}
		text = rest
	}
	return false
}

// lastParagraph returns where the text's last paragraph starts: past its
// last blank line, or 0 when it has none.
func lastParagraph(raw string) int {
	text := strings.TrimRight(raw, " \t\r\n")
	for i := len(text) - 1; i > 0; i-- {
		if text[i] == '\n' {
			if j := strings.LastIndexByte(text[:i], '\n'); strings.TrimSpace(text[j+1:i]) == "" {
				return i + 1
			}
		}
	}
	return 0
}

// commandOutput reports whether a command's output goes on past a blank
// line into the paragraph that follows (para, and the text after it):
// npm and git print theirs in paragraphs ("added 1423 packages ...",
// blank, "found 0 vulnerabilities"). A paragraph that holds Chinese, or a
// line that ends as a sentence does, is the user's; so is the prompt's
// last paragraph (isLast), where a user puts the question about what
// they pasted ("how do i get back to main").
func commandOutput(para string, isLast bool) bool {
	if isLast {
		return false
	}
	if i := strings.Index(para, "\n\n"); i >= 0 {
		para = para[:i]
	}
	if para == "" || hasHan(para) {
		return false
	}
	return !anyLine(para, func(line string) bool {
		line = strings.TrimSpace(line)
		return line != "" && strings.ContainsRune(".?!", rune(line[len(line)-1]))
	})
}

// usersLine reports a line among a command's output that the user wrote:
// one in Chinese, or a question ("why does it fail only on CI?").
func usersLine(line string) bool { return hasHan(line) || strings.HasSuffix(line, "?") }

// isTableLine reports a line of a program's tabular output: columns
// aligned with runs of spaces ("NAME    READY   STATUS", df's and
// docker's tables), or values joined by commas without a space (a CSV
// row). Prose puts one space between words (two after a sentence, for
// some typists), and Chinese text is never taken for a table.
func isTableLine(line string) bool {
	if hasHan(line) {
		return false
	}
	if !strings.Contains(line, " ") && strings.Count(line, ",") >= 2 {
		return true
	}
	gaps := 0
	for i := 0; i+1 < len(line); i++ {
		if line[i] == ' ' && line[i+1] == ' ' {
			if i == 0 || !strings.ContainsRune(".?!,;:", rune(line[i-1])) {
				gaps++ // two spaces after a sentence are a typist's habit, not a column
			}
			for i+1 < len(line) && line[i+1] == ' ' {
				i++
			}
		}
	}
	return gaps >= 2
}

// hasHan reports whether s holds a Chinese character.
func hasHan(s string) bool { return strings.ContainsFunc(s, IsHan) }

// fenceLanguage returns where the first word after a fence line's
// backticks lies in the line ("diff" in "```diff title=x"); from == to
// when there is none.
func fenceLanguage(line string) (from, to int) {
	rest := strings.TrimLeft(line[strings.Index(line, "`"):], "` \t")
	from = len(line) - len(rest)
	if n := strings.IndexFunc(rest, unicode.IsSpace); n >= 0 {
		return from, from + n
	}
	return from, len(line)
}

// lineNoise is a machine-written line: all of it, but for the names of
// exceptions and files in it.
func lineNoise(line string, offset int) []scope {
	var keep []scope
	for _, m := range exceptionName(line) {
		keep = append(keep, scope{m[0], m[1]})
	}
	for _, m := range pathRE().FindAllStringIndex(line, -1) {
		if base := baseName(line[m[0]:m[1]]); base > 0 && strings.ContainsFunc(line[m[0]+base:m[1]], unicode.IsLetter) {
			keep = append(keep, scope{m[0] + base, m[1]}) // a file's name, not a count ("1/1 Running")
		}
	}
	return subtract(scope{0, len(line)}, keep, offset)
}

// inlineNoise is the pasted material inside a line of prose: URLs, the
// directories of paths, the message after an exception's name.
//
// Each expression runs only on a line holding what any of its matches
// must hold (a scheme or "www.", a slash, an exception's colon): the
// three took 4 % of BenchmarkRoute on lines that had none.
func inlineNoise(line string, offset int) []scope {
	var out []scope
	if mayHoldURL(line) {
		for _, m := range urlRE().FindAllStringIndex(line, -1) {
			out = append(out, scope{offset + m[0], offset + m[1]})
		}
	}
	if mayHoldPath(line) {
		for _, m := range pathRE().FindAllStringIndex(line, -1) {
			p := line[m[0]:m[1]]
			if !isPath(p) {
				continue
			}
			if base := baseName(p); base > 0 {
				out = append(out, scope{offset + m[0], offset + m[0] + base})
			}
		}
	}
	return append(out, exceptionSpans(line, offset)...)
}

// exceptionSpans is the message after each exception's name in a line.
func exceptionSpans(line string, offset int) []scope {
	if !mayHoldException(line) {
		return nil
	}
	var out []scope
	for _, m := range exceptionRE().FindAllStringIndex(line, -1) {
		out = append(out, scope{offset + m[1], offset + len(line)})
	}
	return out
}

// mayHoldException reports whether a line holds what every match of
// exceptionRE holds: one of its names and the colon after it.
func mayHoldException(line string) bool {
	for _, name := range [...]string{"Error:", "Exception:", "Panic:", "Fault:"} {
		if strings.Contains(line, name) {
			return true
		}
	}
	return false
}

// mayHoldURL reports whether a line holds what every match of urlRE
// holds: a scheme's "://" or "www.".
func mayHoldURL(line string) bool {
	return strings.Contains(line, "://") || strings.Contains(line, "www.")
}

// mayHoldPath reports whether a line holds what every match of pathRE
// holds: a slash or a backslash.
func mayHoldPath(line string) bool { return strings.ContainsAny(line, "/\\") }

// exceptionName returns the spans of exception names in a line.
func exceptionName(line string) [][]int {
	if !mayHoldException(line) {
		return nil
	}
	var out [][]int
	for _, m := range exceptionRE().FindAllStringIndex(line, -1) {
		out = append(out, []int{m[0], m[1]}) // with its colon, as a rule's trigger reads it ("typeerror:")
	}
	return out
}

// isPath tells a path from a compound written with a slash ("ci/cd",
// "react/vue"): it starts at a root, has two slashes, or ends in a file
// name with an extension.
func isPath(p string) bool {
	switch {
	case strings.HasPrefix(p, "/"), strings.HasPrefix(p, "./"), strings.HasPrefix(p, "../"), strings.HasPrefix(p, "~/"),
		len(p) > 2 && p[1] == ':' && p[2] == '\\':
		return true
	case strings.Count(p, "/")+strings.Count(p, "\\") >= 2:
		return true
	}
	last := p[strings.LastIndexAny(p, "/\\")+1:]
	dot := strings.LastIndexByte(last, '.')
	return dot > 0 && dot < len(last)-1
}

// baseName returns where the last part of a path starts (0: none).
func baseName(p string) int {
	return strings.LastIndexAny(p, "/\\") + 1
}

// isCodeLine reports a line dense in code symbols.
func isCodeLine(line string) bool {
	if len(line) < minCodeLine {
		return false
	}
	symbols, all := 0, 0
	for _, r := range line {
		if unicode.IsSpace(r) {
			continue
		}
		all++
		if strings.ContainsRune("{}()[]<>;=/\\|&*#@$%^~+`\"'_:", r) {
			symbols++
		}
	}
	return all > 0 && float64(symbols) >= symbolShare*float64(all)
}

// subtract returns whole minus the kept spans, shifted by offset.
func subtract(whole scope, keep []scope, offset int) []scope {
	var out []scope
	from := whole.from
	for _, k := range sortScopes(keep) {
		if k.from > from {
			out = append(out, scope{offset + from, offset + k.from})
		}
		from = max(from, k.to)
	}
	if from < whole.to {
		out = append(out, scope{offset + from, offset + whole.to})
	}
	return out
}

func sortScopes(s []scope) []scope {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].from < s[j-1].from; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// pasted returns the byte ranges of the prompt that hold pasted
// material, read on the prompt as written where its bytes line up with
// the lower-cased text (a log level is upper case), else on that text.
func (p Text) pasted() []scope {
	if len(p.Raw) == len(p.Lower) {
		return noiseSpans(p.Raw)
	}
	return noiseSpans(p.Lower)
}

// Prose returns the prompt with its pasted material blanked out, each
// byte of it a space so that offsets still line up: the user's own words,
// with the names pasted material keeps (an exception's "TypeError:", a
// file's name, a fence's language). A disambiguation rule's trigger reads
// it: a region in a pasted manifest ("us-east-1") or a tool in pasted
// meeting notes says nothing of what the user asks for. On 100 noisy
// prompts for the built-in skills, written in session 17, rules that
// fired on pasted material held four clear matches to a near tie under
// another skill (87 -> 91 right); fresh2's unread half gained one,
// noisy.jsonl lost one.
//
// The router asks it of the prompt as written, where BM25 read the
// prompt with a continuation's cue words stripped, so the spans are read
// again here: a plain sentence costs one byte scan (noiseSpans), and
// BenchmarkRoute moved by no more than its spread (BENCHMARKS.md).
func (p Text) Prose() Text {
	spans := p.pasted()
	if len(spans) == 0 {
		return p
	}
	raw, lower := []byte(p.Raw), []byte(p.Lower)
	same := len(raw) == len(lower)
	for _, s := range spans {
		for i := s.from; i < s.to && i < len(lower); i++ {
			if lower[i] != '\n' {
				lower[i] = ' '
				if same {
					raw[i] = ' '
				}
			}
		}
	}
	if !same {
		raw = lower // no byte of the original lines up: the blanked text stands for it
	}
	return Text{Raw: string(raw), Lower: string(lower)}
}
