package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// RepairedHeader reports a skill whose frontmatter YAML refused and which
// was read after quoting its plain values: the skill is routed, but tools
// that read YAML strictly drop it, so its author should quote them.
type RepairedHeader struct {
	Source string // the SKILL.md
	Err    error  // what YAML said of the header as written, its line counted from the top of the file
}

func (e *RepairedHeader) Error() string {
	return e.Source + ":" + e.Err.Error() + " (read with its unquoted values quoted; quote them so that every tool reads it)"
}

func (e *RepairedHeader) Unwrap() error { return e.Err }

// unmarshalHeader parses a frontmatter's YAML into fm. A header YAML
// refuses is read a second time with its top-level plain values quoted
// (quotePlainValues); if that parses, repaired is YAML's first error.
// "description: Use when: you need X" is the commonest cause: published
// skills write colons in prose, Claude Code reads them as text, and the
// skill would otherwise be lost to routing.
func unmarshalHeader(text []byte, fm *frontmatter) (repaired, err error) {
	err = yaml.Unmarshal(text, fm)
	var te *yaml.TypeError
	if err == nil || errors.As(err, &te) {
		return nil, err // a type error is a field of the wrong shape: no quoting mends it
	}
	quoted, ok := quotePlainValues(text)
	if !ok {
		return nil, err
	}
	var again frontmatter
	if yaml.Unmarshal(quoted, &again) != nil {
		return nil, err
	}
	*fm = again
	return err, nil
}

// proseKeys are the header's fields written as prose, where a colon is
// punctuation. In another field ("name: x\n  bad: indent") it is more
// likely a mistake of indentation, which quoting would hide.
var proseKeys = map[string]bool{"description": true, "when_to_use": true, "triggers": true, "situations": true}

// topKey is a top-level "key: value" line of a header. Compiled on first
// use: only a header YAML refuses needs it, and a hook process that
// compiled it at start paid for it on every prompt.
var topKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*):[ \t]+(\S.*)$`) })

// quotePlainValues rewrites each top-level prose field whose value is a
// plain (unquoted) scalar holding ": " — which YAML takes for a nested mapping —
// as one double-quoted value: its lines folded as YAML folds a plain
// scalar (a line break is a space, a blank line a line break). ok is
// false when there is no such value. Values that open otherwise (quotes,
// a block scalar's | or >, a flow list, an anchor, a tag) are left as
// written.
func quotePlainValues(text []byte) (out []byte, ok bool) {
	lines := strings.Split(string(text), "\n")
	var b bytes.Buffer
	for i := 0; i < len(lines); i++ {
		if m := topKey().FindStringSubmatch(lines[i]); m != nil && proseKeys[m[1]] && !strings.ContainsRune(`"'|>[{&*!%@#`+"`", rune(m[2][0])) {
			end := valueEnd(lines, i)
			if value := fold(m[2], lines[i+1:end]); strings.Contains(value, ": ") || strings.HasSuffix(value, ":") {
				q, _ := json.Marshal(value) // JSON's string syntax is YAML's double-quoted scalar
				b.WriteString(m[1] + ": ")
				b.Write(q)
				b.WriteByte('\n')
				ok = true
				i = end - 1
				continue
			}
		}
		b.WriteString(lines[i])
		b.WriteByte('\n')
	}
	return b.Bytes(), ok
}

// valueEnd returns where the value of the key on line i ends: its
// continuation lines are indented or blank, up to the next line at the
// margin, and trailing blank lines are not its own.
func valueEnd(lines []string, i int) int {
	end := i + 1
	for j := i + 1; j < len(lines); j++ {
		if l := lines[j]; l != "" && l[0] != ' ' && l[0] != '\t' {
			break
		} else if strings.TrimSpace(l) != "" {
			end = j + 1
		}
	}
	return end
}

// fold joins a plain scalar's first line and its continuation lines as
// YAML does: each line trimmed, a line break read as a space, a blank
// line as a line break.
func fold(first string, rest []string) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(first))
	blank := false
	for _, l := range rest {
		l = strings.TrimSpace(l)
		switch {
		case l == "":
			b.WriteByte('\n')
			blank = true
		case blank:
			b.WriteString(l)
			blank = false
		default:
			b.WriteByte(' ')
			b.WriteString(l)
		}
	}
	return b.String()
}
