package index

import (
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/skillroute/skillroute/internal/table"
)

// The skills are stored by column, not one after the other: their names,
// descriptions, sources and titles as four string tables, what they enhance and
// conflict with as two more with a start per skill, and their keyword
// counts, derived flags and lengths as arrays. A loaded index reads them
// where they lie in the file (SkillTable), and builds nothing per skill:
// at 100,000 skills, building a list of them (a SkillInfo each) was 40 %
// of a hook process, with the page faults of its 12 MB (perf record over
// 60 hooks); at 10,000, decoding them field by field had been most of
// loading (4 ms, 3,000 allocations).

// SkillTable is an index's skills, by column: what a SkillInfo holds,
// read per skill and field. Skills are numbered from 0 in index order.
// A table read from a damaged file gives empty strings and lists where
// its offsets are out of order, never a panic; a number out of range
// panics, as a slice index does.
type SkillTable struct {
	names, descs, sources table.Strings
	titles                table.Strings // "" but where a header names a skill otherwise than its folder
	enhances, conflicts   table.Strings // every skill's, in skill order
	enhStart, conStart    []uint32      // skill i's are [start[i], start[i+1])
	paths                 table.Strings // every skill's paths globs, in skill order
	pathStart             []uint32      // as enhStart
	keywords              []uint32
	derived               []byte
	lengths               []uint32 // float64 bits, low word first
	sorted                bool     // names in order (Index.SkillID)
	plugins               bool     // some name has a plugin's namespace (Index.Resolve)
	titled                bool     // some skill has a title (Index.Resolve)
	conditional           bool     // some skill has paths (SkillTable.Conditional)
}

// NewSkillTable builds the table of a list of skills.
func NewSkillTable(list []SkillInfo) SkillTable {
	n := len(list)
	names := make([]string, n)
	descs := make([]string, n)
	sources := make([]string, n)
	titles := make([]string, n)
	t := SkillTable{
		keywords: make([]uint32, n), derived: make([]byte, n), lengths: make([]uint32, 2*n),
		enhStart: make([]uint32, 0, n+1), conStart: make([]uint32, 0, n+1), pathStart: make([]uint32, 0, n+1),
	}
	var enhances, conflicts, paths []string
	for i, s := range list {
		names[i], descs[i], sources[i], titles[i] = s.Name, s.Description, s.Source, s.Title
		t.titled = t.titled || s.Title != ""
		t.enhStart = append(t.enhStart, uint32(len(enhances)))
		enhances = append(enhances, s.Enhances...)
		t.conStart = append(t.conStart, uint32(len(conflicts)))
		conflicts = append(conflicts, s.Conflicts...)
		t.pathStart = append(t.pathStart, uint32(len(paths)))
		paths = append(paths, s.Paths...)
		t.keywords[i] = uint32(min(s.Keywords, math.MaxUint32))
		t.derived[i] = byte(boolNum(s.Derived))
		bits := math.Float64bits(s.Length)
		t.lengths[2*i], t.lengths[2*i+1] = uint32(bits), uint32(bits>>32)
	}
	t.enhStart = append(t.enhStart, uint32(len(enhances)))
	t.conStart = append(t.conStart, uint32(len(conflicts)))
	t.pathStart = append(t.pathStart, uint32(len(paths)))
	t.paths, t.conditional = table.New(paths), len(paths) > 0
	t.names, t.descs, t.sources, t.titles = table.New(names), table.New(descs), table.New(sources), table.New(titles)
	t.enhances, t.conflicts = table.New(enhances), table.New(conflicts)
	t.sorted = slices.IsSorted(names)
	t.plugins = strings.Contains(t.names.Blob, ":")
	return t
}

// Len returns the number of skills.
func (t *SkillTable) Len() int { return len(t.keywords) }

// Name returns skill i's name.
func (t *SkillTable) Name(i int) string { return t.names.At(i) }

// Description returns skill i's description.
func (t *SkillTable) Description(i int) string { return t.descs.At(i) }

// Source returns the path of skill i's SKILL.md ("" for none).
func (t *SkillTable) Source(i int) string { return t.sources.At(i) }

// Title returns the name skill i's header gives, where it is not the name
// the skill is invoked by ("" otherwise): skills.Skill.Title.
func (t *SkillTable) Title(i int) string { return t.titles.At(i) }

// Enhances returns the skills that skill i enhances (a new list).
func (t *SkillTable) Enhances(i int) []string { return listAt(t.enhances, t.enhStart, i) }

// Conflicts returns the skills that skill i conflicts with (a new list).
func (t *SkillTable) Conflicts(i int) []string { return listAt(t.conflicts, t.conStart, i) }

// Keywords returns skill i's keyword count.
func (t *SkillTable) Keywords(i int) int { return int(t.keywords[i]) }

// Derived reports whether skill i's keywords were derived from its
// text, not written.
func (t *SkillTable) Derived(i int) bool { return t.derived[i] == 1 }

// Paths returns skill i's paths globs: Claude Code loads the skill only
// while it works with a file they match. Nil for a skill it always loads.
func (t *SkillTable) Paths(i int) []string {
	if !t.conditional {
		return nil
	}
	return listAt(t.paths, t.pathStart, i)
}

// Conditional reports whether some skill of the table has paths: a
// catalog without any (nearly every one) skips the router's check.
func (t *SkillTable) Conditional() bool { return t.conditional }

// Length returns skill i's BM25 document length.
func (t *SkillTable) Length(i int) float64 {
	return math.Float64frombits(uint64(t.lengths[2*i]) | uint64(t.lengths[2*i+1])<<32)
}

// Info returns all that the table holds of skill i.
func (t *SkillTable) Info(i int) SkillInfo {
	return SkillInfo{
		Name: t.Name(i), Description: t.Description(i), Source: t.Source(i), Title: t.Title(i),
		Enhances: t.Enhances(i), Conflicts: t.Conflicts(i), Paths: t.Paths(i),
		Keywords: t.Keywords(i), Derived: t.Derived(i), Length: t.Length(i),
	}
}

// listAt returns the strings of list that start gives skill i, or nil
// when the range is empty or, in a damaged file, out of order or beyond
// the list.
func listAt(list table.Strings, start []uint32, i int) []string {
	from, to := start[i], start[i+1]
	if from >= to || int(to) > list.Len() {
		return nil
	}
	out := make([]string, 0, to-from)
	for j := from; j < to; j++ {
		out = append(out, list.At(int(j)))
	}
	return out
}

// skills writes the skill table by column.
func (w writer) skills(t *SkillTable) {
	w.num(uint64(t.Len()))
	w.num(boolNum(t.sorted) | boolNum(t.plugins)<<1 | boolNum(t.titled)<<2 | boolNum(t.conditional)<<3)
	for _, col := range []table.Strings{t.names, t.descs, t.sources, t.titles, t.enhances, t.conflicts, t.paths} {
		w.table(col)
	}
	w.u32(t.enhStart)
	w.u32(t.conStart)
	w.u32(t.pathStart)
	w.u32(t.keywords)
	w.bytes(t.derived)
	w.u32(t.lengths)
}

// skills reads the skill table written by writer.skills into ix, where it
// lies in the file. Every column's length is checked against the count;
// offsets are checked as they are read (SkillTable).
func (r *reader) skills(ix *Index) {
	n := r.length(8) // each skill takes at least its 8-byte length
	flags := r.num()
	t := SkillTable{sorted: flags&1 != 0, plugins: flags&2 != 0, titled: flags&4 != 0, conditional: flags&8 != 0}
	t.names, t.descs, t.sources, t.titles, t.enhances, t.conflicts, t.paths = r.table(), r.table(), r.table(), r.table(), r.table(), r.table(), r.table()
	t.enhStart, t.conStart, t.pathStart = r.u32(), r.u32(), r.u32()
	t.keywords, t.derived, t.lengths = r.u32(), r.bytes(), r.u32()
	if r.err == nil && (t.names.Len() != n || t.descs.Len() != n || t.sources.Len() != n || t.titles.Len() != n || len(t.enhStart) != n+1 || len(t.conStart) != n+1 || len(t.pathStart) != n+1 ||
		len(t.keywords) != n || len(t.derived) != n || len(t.lengths) != 2*n) {
		r.err = errors.New("skill table damaged")
	}
	if r.err != nil {
		return
	}
	ix.Skills = t
	if !t.plugins {
		// No name has a namespace: read from a flag, as scanning the
		// names for one was 2 % of a hook process at 100,000 skills.
		ix.pluginOnce.Do(func() { ix.plugins = map[string]int{} }) // pluginSkills: none
	}
}
