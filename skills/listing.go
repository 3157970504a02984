package skills

import (
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Claude Code shows the model, every turn, one line per skill it can load,
// "- NAME: DESCRIPTION - WHEN_TO_USE", and caps the whole listing at a
// budget of characters. Over the budget it keeps every name but drops the
// descriptions of the least-used skills, all or nothing per skill, and
// logs "Skill listing over budget: N skills, C chars > B budget". A skill
// listed by its bare name is one the model can hardly choose, which is
// what a router is there to prevent. Routing fields (keywords, triggers)
// are not listed and cost nothing.

// ListingMaxDesc caps one skill's description and when_to_use together in
// the listing (Claude Code's skillListingMaxDescChars default).
const ListingMaxDesc = 1536

// ListingBudget is the listing's budget with Claude Code's default model:
// 1 % of its context window at about 3 characters a token. Measured with
// Claude Code 2.1.328, whose default model has a 1M-token window: "Skill
// listing over budget: 63 skills, 45517 chars > 30000" (e2e/).
const ListingBudget = 30000

// SmallContextBudget is the listing's budget with a 200k-token model: 1 %
// of the window at 3 (newer models) to 4 characters a token.
const SmallContextBudget = 6000

// ClaudeCodeListing is what Claude Code's own bundled skills (code-review,
// init, loop, ...) take of the listing, never dropped, with the newline
// that joins them to the rest: with the 50 built-in skills (7,778 by
// ListingSize) Claude Code 2.1.328 counted 13,987. With the longer
// descriptions they had before, the same sum came to 6,215: Claude Code's
// count differs from ListingSize by a few characters in a thousand, which
// e2e/ checks against the version it pins.
const ClaudeCodeListing = 6209

// ListingEntry is the line Claude Code lists a skill by, as the model sees
// it, without its newline.
func ListingEntry(s Skill) string {
	desc := s.Description
	if s.WhenToUse != "" {
		desc += " - " + s.WhenToUse
	}
	if utf8.RuneCountInString(desc) > ListingMaxDesc {
		desc = string([]rune(desc)[:ListingMaxDesc-1]) + "…"
	}
	return "- " + s.Name + ": " + desc
}

// ListingSize is the characters the skills take of Claude Code's listing,
// the newlines between entries included, counted as Claude Code counts
// them: by width on a terminal, a Chinese character counting two.
func ListingSize(list []Skill) int {
	n := 0
	for i, s := range list {
		if i > 0 {
			n++
		}
		n += displayWidth(ListingEntry(s))
	}
	return n
}

// displayWidth counts East Asian wide characters (Han, kana, Hangul,
// fullwidth forms and CJK punctuation) as two columns, the rest as one.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		w++
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
			(r >= 0x3000 && r <= 0x303f) || (r >= 0xff01 && r <= 0xff60) || (r >= 0xffe0 && r <= 0xffe6) {
			w++
		}
	}
	return w
}

// Commands returns the user's and the project's command files
// (.claude/commands/NAME.md), which Claude Code lists with the skills.
// Files that do not parse, and files that are no regular file or too
// large (ReadFile: a FIFO there must not block the hook), are left out.
func (p Places) Commands() []Skill {
	var dirs []string
	if p.Home != "" {
		dirs = append(dirs, filepath.Join(p.Home, ".claude", "commands"))
	}
	if p.ProjectDir != "" {
		dirs = append(dirs, filepath.Join(p.ProjectDir, ".claude", "commands"))
	}
	var out []Skill
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.md"))
		sort.Strings(files)
		for _, f := range files {
			data, err := ReadFile(f)
			if err != nil {
				continue
			}
			name := strings.TrimSuffix(filepath.Base(f), ".md")
			if sk, err := Parse(f, name, data); err == nil {
				sk.Name = name // a command is named by its file
				out = append(out, sk)
			}
		}
	}
	return out
}
