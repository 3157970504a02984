// Package skills reads the skills a router chooses between.
//
// A skill is a Claude Code SKILL.md file: YAML frontmatter followed by a
// Markdown body. skillroute understands Claude Code's own fields (name,
// description, when_to_use) and adds its routing fields:
//
//	triggers: ...      # trigger phrases and a fuller account, for the router only
//	keywords:
//	  core: [...]      # terms that belong to this skill alone    (weight 1.0)
//	  strong: [...]    # terms that point strongly to this skill (weight 0.7)
//	  extended: [...]  # shared terms that point here weakly     (weight 0.4)
//	enhances: [...]    # skills commonly used after this one
//	requires, conflicts: [...]
//	maturity: stable
//
// A catalog is loaded from a folder laid out as Claude Code lays skills
// (DIR/NAME/SKILL.md) or from the built-in skills embedded in this package;
// errors name the file and line. Another router's catalog file is read by
// its adapter (package bookworm), which builds the Skills and calls
// NewCatalog.
//
// Claude Code lists every skill's description and when_to_use to the model
// within a budget of characters (listing.go); the routing fields are not
// listed. So a skill's description can stay one short line for the model,
// and its trigger phrases go to triggers, which the router indexes with
// the description.
package skills

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Tier is the strength with which a keyword points at its skill.
type Tier uint8

// Keyword tiers, strongest first.
const (
	Core Tier = iota
	Strong
	Extended
)

// Tier weights. The seed's three-tier design: a core term identifies the
// skill, a strong one leans towards it, an extended one is shared. The
// ratios (1 : 0.7 : 0.4) keep two extended hits below one core hit.
const (
	CoreWeight     = 1.0
	StrongWeight   = 0.7
	ExtendedWeight = 0.4
)

// String returns the tier's name as written in SKILL.md.
func (t Tier) String() string {
	switch t {
	case Core:
		return "core"
	case Strong:
		return "strong"
	default:
		return "extended"
	}
}

// Weight returns the tier's default keyword weight.
func (t Tier) Weight() float64 {
	switch t {
	case Core:
		return CoreWeight
	case Strong:
		return StrongWeight
	default:
		return ExtendedWeight
	}
}

// Keyword is one routing term of a skill.
type Keyword struct {
	Text   string
	Tier   Tier
	Weight float64 // tier weight, or the weight an imported catalog gives
}

// Skill is one routable skill.
type Skill struct {
	Name        string
	Description string
	WhenToUse   string
	Triggers    string    // routing text Claude Code does not list
	Keywords    []Keyword // empty for plain Claude Code skills
	Enhances    []string
	Requires    []string
	Conflicts   []string
	Maturity    string
	Body        string
	Source      string // where it was read: a path, "builtin:NAME", or "FILE#NAME"
}

// Text is what the router reads as the skill's description field: the
// description, when_to_use and triggers.
func (s *Skill) Text() string {
	return s.Description + "\n" + s.WhenToUse + "\n" + s.Triggers
}

// frontmatter mirrors the YAML header of a SKILL.md.
type frontmatter struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	WhenToUse   string   `yaml:"when_to_use"`
	Triggers    string   `yaml:"triggers"`
	Keywords    tiers    `yaml:"keywords"`
	Enhances    []string `yaml:"enhances"`
	Requires    []string `yaml:"requires"`
	Conflicts   []string `yaml:"conflicts"`
	Maturity    string   `yaml:"maturity"`
}

type tiers struct {
	Core     []string `yaml:"core"`
	Strong   []string `yaml:"strong"`
	Extended []string `yaml:"extended"`
}

// Parse reads one SKILL.md. name is used in errors and as the skill's name
// when the frontmatter has none (Claude Code names a skill by its folder).
func Parse(source, dirName string, data []byte) (Skill, error) {
	return parse(source, dirName, data, nil)
}

// parse is Parse, taking the frontmatter from fc when it holds the same
// YAML (nil: none).
func parse(source, dirName string, data []byte, fc *FrontCache) (Skill, error) {
	// Read as bytes: only the body is copied into a string (the whole
	// file was copied twice, which at 100,000 skills is 1.7 GB of
	// garbage a compile makes before it starts).
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if bytes.Contains(data, []byte("\r\n")) {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}
	sk := Skill{Source: source, Name: dirName}
	if !bytes.HasPrefix(data, []byte("---\n")) {
		// No frontmatter: Claude Code takes the first paragraph as description.
		sk.Body = string(data)
		sk.Description = firstParagraph(sk.Body)
		return sk, nil
	}
	// The frontmatter ends at the first line that is exactly "---" (it
	// may be empty: "---\n---").
	rest := data[len("---\n"):]
	var header, body []byte
	closed := false
	for off := 0; off <= len(rest); {
		line, next := rest[off:], len(rest)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], off+i+1
		}
		if string(bytes.TrimRight(line, " \t")) == "---" {
			header, body, closed = rest[:off], rest[next:], true
			break
		}
		if next == len(rest) {
			break
		}
		off = next
	}
	if !closed {
		return sk, fmt.Errorf("%s:1: frontmatter opened with --- is never closed", source)
	}
	fm, err := fc.parse(header)
	if err != nil {
		return sk, fmt.Errorf("%s:%w", source, shiftYAMLError(err, 1))
	}
	if fm.Name != "" {
		sk.Name = fm.Name
	}
	if sk.Name == "" {
		return sk, fmt.Errorf("%s:2: skill has no name (no name field and no folder name)", source)
	}
	sk.Description = strings.TrimSpace(fm.Description)
	sk.WhenToUse = strings.TrimSpace(fm.WhenToUse)
	sk.Triggers = strings.TrimSpace(fm.Triggers)
	sk.Enhances, sk.Requires, sk.Conflicts = fm.Enhances, fm.Requires, fm.Conflicts
	sk.Maturity = fm.Maturity
	// A copy of the body alone: the frontmatter's text is half of each
	// file, and a catalog of 100,000 skills is held whole while it
	// compiles.
	sk.Body = string(body)
	if sk.Description == "" {
		sk.Description = firstParagraph(sk.Body)
	}
	if n := len(fm.Keywords.Core) + len(fm.Keywords.Strong) + len(fm.Keywords.Extended); n > 0 {
		sk.Keywords = make([]Keyword, 0, n) // one allocation, not one per doubling
	}
	for _, t := range []struct {
		words []string
		tier  Tier
	}{{fm.Keywords.Core, Core}, {fm.Keywords.Strong, Strong}, {fm.Keywords.Extended, Extended}} {
		for _, w := range t.words {
			if w = strings.TrimSpace(w); w != "" {
				sk.Keywords = append(sk.Keywords, Keyword{Text: w, Tier: t.tier, Weight: t.tier.Weight()})
			}
		}
	}
	if len(sk.Keywords) == 0 {
		sk.Keywords = nil // blank keywords only: none, as before the list was sized
	}
	return sk, nil
}

// shiftYAMLError moves yaml.v3's line numbers by offset, so that they count
// from the top of the file rather than from the top of the frontmatter.
func shiftYAMLError(err error, offset int) error {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) {
		msg = strings.Join(te.Errors, "; ")
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	var line int
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		rest := msg[strings.IndexByte(msg, ':')+1:]
		return fmt.Errorf("%d:%s", line+offset+syntaxLineShift(msg), rest)
	}
	if i := strings.Index(msg, "line "); i >= 0 {
		if _, scanErr := fmt.Sscanf(msg[i:], "line %d", &line); scanErr == nil {
			return fmt.Errorf("%d: %s", line+offset, msg)
		}
	}
	return fmt.Errorf("%d: %s", offset+1, msg)
}

// syntaxLineShift corrects yaml.v3's report of an unclosed flow collection
// ("did not find expected ',' or ']'"), which names the line before the one
// that holds the opening bracket.
func syntaxLineShift(msg string) int {
	if strings.Contains(msg, "did not find expected") {
		return 1
	}
	return 0
}

func firstParagraph(text string) string {
	for _, para := range strings.Split(text, "\n\n") {
		p := strings.TrimSpace(para)
		if p != "" && !strings.HasPrefix(p, "#") {
			return strings.Join(strings.Fields(p), " ")
		}
	}
	return ""
}

// BareName strips a "plugin:" namespace from a skill's name: a plugin's
// skill "acme:deploy" is "deploy" to a user who types it, and Claude Code
// may report either.
func BareName(name string) string {
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		return name[i+1:]
	}
	return name
}
