// Package skills reads the skills a router chooses between.
//
// A skill is a Claude Code SKILL.md file: YAML frontmatter followed by a
// Markdown body. skillroute understands Claude Code's own fields (name,
// description, when_to_use) and adds its routing fields:
//
//	triggers: ...      # trigger phrases and a fuller account, for the router only
//	situations: ...    # how users describe needing it, in their own words, for the router only
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
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

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
	// Name is what Claude Code invokes the skill by: for a skill in a
	// skills folder (personal, project, or a catalog given by path), its
	// folder's name; for a plugin's, "plugin:" and its header's name.
	Name string
	// Title is the header's name where the folder's name stands in for it
	// ("Root Cause Tracing" in folder root-cause-tracing): what a user may
	// call the skill, which Claude Code shows but does not invoke it by.
	Title       string
	Description string
	WhenToUse   string
	Triggers    string // routing text Claude Code does not list
	// Situations is routing text too: the situations in which users need
	// the skill, told as they tell them, without its technical words ("every
	// release someone clicks through the whole app by hand"). A paraphrased
	// prompt meets it where it meets no keyword. Users' everyday words, it
	// is no vocabulary (the glossary's filter leaves it out).
	Situations string
	Keywords   []Keyword // empty for plain Claude Code skills, and for one left unread until ReadKeywords
	Enhances   []string
	Requires   []string
	Conflicts  []string
	Maturity   string
	Body       string
	Source     string // where it was read: a path, "builtin:NAME", or "FILE#NAME"
	// UserOnly: the header says disable-model-invocation: true. Only the
	// user invokes such a skill (/NAME); Claude Code lists it not to the
	// model, so a hook that named it would name what the model cannot
	// load. Discover and LoadDir leave it out, after it has shadowed any
	// skill of its name as it does in Claude Code.
	UserOnly bool
	// Paths are the globs of the header's paths field: Claude Code loads
	// such a skill only while it works with a file they match, so the
	// router names it only for a prompt that names such a file, or in a
	// session that has used it (router). Empty for any other skill.
	Paths []string
	// Repaired is set when YAML refused the header as written and it was
	// read with its plain values quoted; nil otherwise, and for a skill
	// made from a FrontCache.
	Repaired *RepairedHeader

	// A skill whose file a FrontCache knew unchanged (same size and
	// modification time as when it was last read) is made from the cache
	// without reading it: unread, its Body empty until ReadBody, and sum
	// its ContentSum as computed from the file then. Its Keywords are
	// left in its cached header (rawKeywords, as the cache encodes
	// them) until ReadKeywords.
	unread      bool
	sum         Sum
	rawKeywords []byte
}

// Sum is a hash of a skill's content (ContentSum).
type Sum [16]byte

// ContentSum returns a hash of everything a skill holds but its name,
// which the folder or plugin it is found in gives: its header's fields,
// its body and its source. It changes when the skill does, and only then
// (TestContentSum): what is built from a skill can be kept under it. A
// skill left unread (Unread) has the sum its file had when last read,
// without reading it again.
func (s *Skill) ContentSum() Sum {
	if s.unread {
		return s.sum
	}
	return s.computeSum()
}

// computeSum hashes the fields, each with its length (a list with its
// count, absent apart from empty), so that no two skills hash alike by
// moving text from one field to the next.
func (s *Skill) computeSum() Sum {
	var buf [512]byte
	b := buf[:0]
	h := sha256.New()
	str := func(v string) {
		b = binary.AppendUvarint(b, uint64(len(v)))
		if len(b)+len(v) > len(buf) {
			h.Write(b)
			h.Write(unsafe.Slice(unsafe.StringData(v), len(v)))
			b = buf[:0]
			return
		}
		b = append(b, v...)
	}
	for _, v := range [...]string{s.Description, s.WhenToUse, s.Triggers, s.Situations, s.Maturity, s.Source, s.Body} {
		str(v)
	}
	for _, list := range [...][]string{s.Enhances, s.Requires, s.Conflicts} {
		n := uint64(0)
		if list != nil {
			n = 1 + uint64(len(list))
		}
		b = binary.AppendUvarint(b, n)
		for _, v := range list {
			str(v)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(s.Keywords)))
	for _, k := range s.Keywords {
		str(k.Text)
		b = append(b, byte(k.Tier))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(k.Weight))
	}
	// Paths last, and only where there are some: the sum of a skill
	// without them stays what it was before the field was read, and so
	// does what is keyed by its catalog's hash (index.SourceHash).
	if len(s.Paths) > 0 {
		b = binary.AppendUvarint(b, uint64(len(s.Paths)))
		for _, g := range s.Paths {
			str(g)
		}
	}
	h.Write(b)
	var sum Sum
	copy(sum[:], h.Sum(buf[:0]))
	return sum
}

// Unread reports whether the skill was made from a FrontCache without
// reading its file: its Body is empty until ReadBody reads it.
func (s *Skill) Unread() bool { return s.unread }

// ReadBody reads the body of a skill left unread (a no-op for any other).
// The file may have changed since it was stat'ed: the body read is then
// the new one, and the skill's ContentSum is computed anew, so that what
// is kept under the sum describes what was built. A file that can no
// longer be read is an error naming it, and leaves the body empty, the
// sum that of a skill without one: the next load finds the file changed,
// or gone.
func (s *Skill) ReadBody() error {
	if !s.unread {
		return nil
	}
	s.ReadKeywords() // the sum computed from now on covers them
	s.unread, s.sum = false, Sum{}
	data, err := ReadFile(s.Source)
	if err != nil {
		return err
	}
	_, body, _, err := split(s.Source, data)
	if err != nil {
		return err
	}
	s.Body = string(body)
	return nil
}

// ReadKeywords makes the Keywords list of a skill left unread from its
// cached header, as parsing the file would (a no-op for any other skill,
// or once made). ReadBody makes it too.
func (s *Skill) ReadKeywords() {
	tiers := s.rawKeywords
	if tiers == nil {
		return
	}
	s.rawKeywords = nil
	n := 0
	eachRawKeyword(tiers, func(string, Tier) bool { n++; return true })
	if n == 0 {
		return // none, or blank ones only
	}
	s.Keywords = make([]Keyword, 0, n)
	eachRawKeyword(tiers, func(w string, tier Tier) bool {
		s.Keywords = append(s.Keywords, Keyword{Text: w, Tier: tier, Weight: tier.Weight()})
		return true
	})
}

// KeywordTexts yields the text of each of the skill's keywords: those of
// its Keywords list, or, for a skill left unread whose list is not made
// yet (ReadKeywords), of its cached header, without making the list.
func (s *Skill) KeywordTexts() iter.Seq[string] {
	return func(yield func(string) bool) {
		if s.rawKeywords != nil {
			eachRawKeyword(s.rawKeywords, func(w string, _ Tier) bool { return yield(w) })
			return
		}
		for _, k := range s.Keywords {
			if !yield(k.Text) {
				return
			}
		}
	}
}

// HasKeywords reports whether the skill has a keyword: whether its
// Keywords list, made (ReadKeywords), is not empty.
func (s *Skill) HasKeywords() bool {
	for range s.KeywordTexts() {
		return true
	}
	return false
}

// Text is what the router reads as the skill's description field: the
// description, when_to_use, triggers and situations.
func (s *Skill) Text() string {
	return s.TechnicalText() + "\n" + s.Situations
}

// TechnicalText is Text without the situations: the skill's description,
// when_to_use and triggers, its author's own words for what it does. The
// glossary takes its vocabulary from it; situations are users' everyday
// words.
func (s *Skill) TechnicalText() string {
	return s.Description + "\n" + s.WhenToUse + "\n" + s.Triggers
}

// frontmatter mirrors the YAML header of a SKILL.md.
type frontmatter struct {
	Name        string   `yaml:"name"`
	Description string   `yaml:"description"`
	WhenToUse   string   `yaml:"when_to_use"`
	Triggers    string   `yaml:"triggers"`
	Situations  string   `yaml:"situations"`
	Keywords    tiers    `yaml:"keywords"`
	Enhances    []string `yaml:"enhances"`
	Requires    []string `yaml:"requires"`
	Conflicts   []string `yaml:"conflicts"`
	Maturity    string   `yaml:"maturity"`
	// DisableModelInvocation is Claude Code's field, as written: "true"
	// makes the skill the user's alone (Skill.UserOnly).
	DisableModelInvocation string `yaml:"disable-model-invocation"`
	// Paths is Claude Code's paths field: globs, as a list or one
	// comma-separated string (Skill.Paths).
	Paths globs `yaml:"paths"`
}

// globs reads a paths field written as a list of globs or as one string
// of them separated by commas, as Claude Code takes either.
type globs []string

// UnmarshalYAML reads a list or a comma-separated string; another shape
// is an error on its line.
func (g *globs) UnmarshalYAML(n *yaml.Node) error {
	v := resolve(n)
	switch {
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
		*g = nil
		return nil
	case v.Kind == yaml.ScalarNode:
		*g = strings.Split(v.Value, ",")
		return nil
	case v.Kind == yaml.SequenceNode:
		var list []string
		if err := v.Decode(&list); err != nil {
			return err
		}
		*g = list
		return nil
	}
	return shapeError(n, "paths takes globs (paths: [\"src/**/*.ts\"] or paths: \"src/**/*.ts, *.sql\")")
}

type tiers struct {
	Core     []string `yaml:"core"`
	Strong   []string `yaml:"strong"`
	Extended []string `yaml:"extended"`
}

// UnmarshalYAML reads keywords as a map of tiers to lists, and says which
// shape is expected, on the line of the one written, when it is another:
// yaml.v3 said "cannot unmarshal !!seq into skills.tiers".
func (t *tiers) UnmarshalYAML(n *yaml.Node) error {
	m := resolve(n)
	if m.Kind != yaml.MappingNode {
		return shapeError(n, "keywords takes a list per tier (keywords: {core: [a, b], strong: [c], extended: [d]})")
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		switch m.Content[i].Value {
		case "core", "strong", "extended":
		default:
			continue // another key is ignored, as ever
		}
		if v := resolve(m.Content[i+1]); v.Kind != yaml.SequenceNode && v.ShortTag() != "!!null" {
			return shapeError(m.Content[i+1], "keywords."+m.Content[i].Value+" takes a list ([a, b])")
		}
	}
	type plain tiers // without this method
	return n.Decode((*plain)(t))
}

// resolve is the node an alias stands for, or n.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// shapeError is a type error on the line of node n, whose value is not
// what want says.
func shapeError(n *yaml.Node, want string) error {
	got := "a list"
	switch v := resolve(n); v.Kind {
	case yaml.MappingNode:
		got = "a map"
	case yaml.ScalarNode:
		got = strconv.Quote(v.Value)
	}
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s, not %s", n.Line, want, got)}}
}

// Parse reads one SKILL.md. name is used in errors and as the skill's name
// when the frontmatter has none (Claude Code names a skill by its folder).
func Parse(source, dirName string, data []byte) (Skill, error) {
	sk, _, err := parse(source, dirName, data, nil)
	return sk, err
}

// parse is Parse, taking the frontmatter from fc when it holds the same
// YAML (nil: none). It also returns what fc keeps of the file (fileEntry)
// so that a later load can make the same skill without reading it; its
// identity and sum are the caller's to fill in.
func parse(source, dirName string, data []byte, fc *FrontCache) (Skill, fileEntry, error) {
	sk := Skill{Source: source, Name: dirName}
	header, body, front, err := split(source, data)
	if err != nil {
		return sk, fileEntry{}, err
	}
	var e fileEntry
	var fm frontmatter
	if front {
		var repaired error
		if fm, e.header, repaired, err = fc.parse(header); err != nil {
			if err := checkText(source, header); err != nil {
				return sk, fileEntry{}, err // where the bytes YAML refused are
			}
			return sk, fileEntry{}, fmt.Errorf("%s:%w", source, shiftYAMLError(err, 1))
		}
		if repaired != nil {
			sk.Repaired = &RepairedHeader{Source: source, Err: shiftYAMLError(repaired, 1)}
		}
		e.front = true
	}
	// A copy of the body alone: the frontmatter's text is half of each
	// file, and a catalog of 100,000 skills is held whole while it
	// compiles.
	sk.Body = string(body)
	if strings.TrimSpace(fm.Description) == "" {
		// No description: Claude Code takes the first paragraph.
		e.desc = firstParagraph(sk.Body)
	}
	if err := sk.apply(front, &fm, e.desc); err != nil {
		return sk, fileEntry{}, err
	}
	return sk, e, nil
}

// split cuts a SKILL.md into its frontmatter's YAML and its body; front
// is false for a file without frontmatter, all body. A UTF-8 byte order
// mark is dropped and CRLF line ends read as LF; a UTF-16 file is an error.
func split(source string, data []byte) (header, body []byte, front bool, err error) {
	// Read as bytes: only the body is copied into a string (the whole
	// file was copied twice, which at 100,000 skills is 1.7 GB of
	// garbage a compile makes before it starts).
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		// Windows PowerShell 5 writes UTF-16 (`echo ... > SKILL.md`):
		// read as bytes, it is a skill with no header and a description
		// of NULs, which routes nothing.
		return nil, nil, false, fmt.Errorf("%s:1: the file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8", source)
	}
	if bytes.Contains(data, []byte("\r\n")) {
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}
	// The frontmatter opens with a line of "---", and ends at the next
	// (it may be empty: "---\n---"); either may end in spaces or tabs.
	first, _, opened := bytes.Cut(data, []byte("\n"))
	if !opened || string(bytes.TrimRight(first, " \t")) != "---" {
		return nil, data, false, nil
	}
	rest := data[len(first)+1:]
	for off := 0; off <= len(rest); {
		line, next := rest[off:], len(rest)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], off+i+1
		}
		if string(bytes.TrimRight(line, " \t")) == "---" {
			return rest[:off], rest[next:], true, nil
		}
		if next == len(rest) {
			break
		}
		off = next
	}
	return nil, nil, false, fmt.Errorf("%s:1: frontmatter opened with --- is never closed", source)
}

// checkText finds, in a header YAML refused, text YAML cannot read: bytes
// that are not UTF-8 (a file saved as Latin-1), or a control character
// YAML does not allow (a NUL, an escape), and names the line of the first.
// yaml.v3 says only "invalid leading UTF-8 octet" or "control characters
// are not allowed", which the error would place on line 2. Only called
// on a header that failed: a compile reads every header, and most parse.
func checkText(source string, header []byte) error {
	for i := 0; i < len(header); {
		r, n := utf8.DecodeRune(header[i:])
		bad := ""
		switch {
		case r == utf8.RuneError && n == 1:
			bad = fmt.Sprintf("is not valid UTF-8 (byte 0x%02x); save the file as UTF-8", header[i])
		case !yamlChar(r):
			bad = fmt.Sprintf("holds control character U+%04X, which YAML does not allow", r)
		}
		if bad != "" {
			line := 2 + bytes.Count(header[:i], []byte("\n")) // the header starts on line 2
			return fmt.Errorf("%s:%d: frontmatter %s", source, line, bad)
		}
		i += n
	}
	return nil
}

// yamlChar reports whether YAML allows r in a document (YAML 1.1's
// printable set, which yaml.v3's reader checks).
func yamlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0x7e || r == 0x85 ||
		r >= 0xa0 && r <= 0xd7ff || r >= 0xe000 && r <= 0xfffd || r >= 0x10000 && r <= 0x10ffff
}

// apply fills a skill's fields from its parsed frontmatter (front: the
// file has one) and the description its body gives (bodyDesc), used when
// the frontmatter has none.
func (sk *Skill) apply(front bool, fm *frontmatter, bodyDesc string) error {
	if !front {
		sk.Description = bodyDesc
		return nil
	}
	if err := sk.setText(fm.Name, fm.Description, fm.WhenToUse, fm.Triggers, fm.Situations, fm.Maturity, fm.DisableModelInvocation, bodyDesc); err != nil {
		return err
	}
	sk.Enhances, sk.Requires, sk.Conflicts = fm.Enhances, fm.Requires, fm.Conflicts
	sk.Paths = cleanGlobs(fm.Paths)
	if n := len(fm.Keywords.Core) + len(fm.Keywords.Strong) + len(fm.Keywords.Extended); n > 0 {
		sk.Keywords = make([]Keyword, 0, n) // one allocation, not one per doubling
	}
	for _, t := range []struct {
		words []string
		tier  Tier
	}{{fm.Keywords.Core, Core}, {fm.Keywords.Strong, Strong}, {fm.Keywords.Extended, Extended}} {
		for _, w := range t.words {
			sk.addKeyword(w, t.tier)
		}
	}
	if len(sk.Keywords) == 0 {
		sk.Keywords = nil // blank keywords only: none, as before the list was sized
	}
	return nil
}

// nameByFolder names a skill by its folder, as Claude Code invokes a
// skill of a skills folder, keeping a header's other name as its Title.
func (sk *Skill) nameByFolder(folder string) {
	if sk.Name != folder {
		sk.Title = sk.Name
		sk.Name = folder
	}
}

// setText sets a skill's name (when given; a skill must end up with one),
// its text fields trimmed, and its maturity; the body's description
// stands in for a missing one.
func (sk *Skill) setText(name, desc, whenToUse, triggers, situations, maturity, disableModel, bodyDesc string) error {
	if name != "" {
		sk.Name = name
	}
	if sk.Name == "" {
		return fmt.Errorf("%s:2: skill has no name (no name field and no folder name)", sk.Source)
	}
	sk.Description = strings.TrimSpace(desc)
	sk.WhenToUse = strings.TrimSpace(whenToUse)
	sk.Triggers = strings.TrimSpace(triggers)
	sk.Situations = strings.TrimSpace(situations)
	sk.Maturity = maturity
	// YAML 1.2's true, as Claude Code's reader takes it ("yes" is a string).
	sk.UserOnly = strings.EqualFold(strings.TrimSpace(disableModel), "true")
	if sk.Description == "" {
		sk.Description = bodyDesc
	}
	return nil
}

// cleanGlobs trims a paths field's globs and drops blank ones; none left
// is nil, a skill Claude Code loads like any other.
func cleanGlobs(list []string) []string {
	var out []string
	for _, g := range list {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// addKeyword adds keyword w of the tier, trimmed; a blank one adds nothing.
func (sk *Skill) addKeyword(w string, tier Tier) {
	if w = trimSpace(w); w != "" {
		sk.Keywords = append(sk.Keywords, Keyword{Text: w, Tier: tier, Weight: tier.Weight()})
	}
}

// trimSpace is strings.TrimSpace, which for a word that starts or ends
// outside ASCII (a Chinese keyword) decodes runes and calls a function on
// each: a fifth of making 100,000 skills from their cached headers. A
// word that starts and ends with a printable ASCII byte or a CJK
// character (UTF-8 lead bytes 0xE4 to 0xE9, which no space has) has
// nothing to trim.
func trimSpace(w string) string {
	if w == "" {
		return w
	}
	plain := func(b byte) bool { return b > ' ' && b < utf8.RuneSelf || b >= 0xE4 && b <= 0xE9 }
	last := len(w) - 1
	for last > 0 && w[last]&0xC0 == 0x80 && len(w)-last < utf8.UTFMax { // back to the last rune's first byte
		last--
	}
	if plain(w[0]) && plain(w[last]) {
		return w
	}
	return strings.TrimSpace(w)
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
		return fmt.Errorf("%d:%s", line+offset+syntaxLineShift(msg), shiftLineRefs(rest, offset))
	}
	if i := strings.Index(msg, "line "); i >= 0 {
		if _, scanErr := fmt.Sscanf(msg[i:], "line %d", &line); scanErr == nil {
			return fmt.Errorf("%d: %s", line+offset, msg)
		}
	}
	return fmt.Errorf("%d: %s", offset+1, msg)
}

// shiftLineRefs moves the other lines a message names ("mapping key
// \"name\" already defined at line 1", a second type error's "; line 4:")
// by offset, as the line it is reported on.
func shiftLineRefs(msg string, offset int) string {
	const ref = "line "
	var b strings.Builder
	for {
		i := strings.Index(msg, ref)
		if i < 0 {
			break
		}
		i += len(ref)
		j := i
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
			j++
		}
		b.WriteString(msg[:i])
		if n, err := strconv.Atoi(msg[i:j]); err == nil {
			b.WriteString(strconv.Itoa(n + offset))
		} else {
			b.WriteString(msg[i:j])
		}
		msg = msg[j:]
	}
	b.WriteString(msg)
	return b.String()
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

// Unversioned returns a name without the version it ends in
// ("pandas-3-0-3", "jq-1-8-2", "api-v2"): a skill written for one release
// of a tool is named for the tool, and a prompt, a correction or a rule
// that names the tool names it. A name that is all version stays as it is.
func Unversioned(name string) string {
	tool := name
	for {
		i := strings.LastIndexByte(tool, '-')
		if i <= 0 || !isVersion(tool[i+1:]) {
			break
		}
		tool = tool[:i]
	}
	if isVersion(tool) {
		return name
	}
	return tool
}

// isVersion reports whether a name's part is a version number: digits,
// after an optional "v".
func isVersion(part string) bool {
	part = strings.TrimPrefix(part, "v")
	return part != "" && strings.IndexFunc(part, func(r rune) bool { return r < '0' || r > '9' }) < 0
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
