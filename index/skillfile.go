package index

import (
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/skillroute/skillroute/internal/table"
)

// The skills are stored by column, not one after the other: their names,
// descriptions and sources as three string tables, what they enhance and
// conflict with as two more with a start per skill, and their keyword
// counts, derived flags and lengths as arrays. Loading then allocates the
// skill list and one array of names for all enhances and conflicts, and
// fills them from the columns in place, with no read of a length per
// field: at 10,000 skills the field by field decoding was most of
// loading (4 ms, 3,000 allocations), and the hook loads on every prompt.

// skills writes the skill list by column.
func (w writer) skills(list []SkillInfo) {
	names := make([]string, len(list))
	descs := make([]string, len(list))
	sources := make([]string, len(list))
	keywords := make([]uint32, len(list))
	derived := make([]byte, len(list))
	lengths := make([]uint32, 2*len(list)) // float64 bits, low word first
	var enhances, conflicts []string
	enhStart := make([]uint32, 0, len(list)+1)
	conStart := make([]uint32, 0, len(list)+1)
	for i, s := range list {
		names[i], descs[i], sources[i] = s.Name, s.Description, s.Source
		enhStart = append(enhStart, uint32(len(enhances)))
		enhances = append(enhances, s.Enhances...)
		conStart = append(conStart, uint32(len(conflicts)))
		conflicts = append(conflicts, s.Conflicts...)
		keywords[i] = uint32(min(s.Keywords, math.MaxUint32))
		derived[i] = byte(boolNum(s.Derived))
		bits := math.Float64bits(s.Length)
		lengths[2*i], lengths[2*i+1] = uint32(bits), uint32(bits>>32)
	}
	enhStart = append(enhStart, uint32(len(enhances)))
	conStart = append(conStart, uint32(len(conflicts)))
	w.num(uint64(len(list)))
	w.num(boolNum(slices.IsSortedFunc(list, func(a, b SkillInfo) int { return strings.Compare(a.Name, b.Name) })))
	for _, col := range [][]string{names, descs, sources, enhances, conflicts} {
		w.table(table.New(col))
	}
	w.u32(enhStart)
	w.u32(conStart)
	w.u32(keywords)
	w.bytes(derived)
	w.u32(lengths)
}

// skills reads the skill list written by writer.skills into ix, with
// whether it is in name order (for SkillID, which would otherwise check
// every name once). Every column's length is checked against the count;
// offsets are checked as they are read, so that a damaged file gives
// empty strings and lists, never a panic.
func (r *reader) skills(ix *Index) {
	n := r.length(8) // each skill takes at least its 8-byte length
	sorted := r.num() == 1
	var cols [5]table.Strings
	for i := range cols {
		cols[i] = r.table()
	}
	enhStart, conStart := r.u32(), r.u32()
	keywords, derived, lengths := r.u32(), r.bytes(), r.u32()
	names, descs, sources, enhances, conflicts := cols[0], cols[1], cols[2], cols[3], cols[4]
	if r.err == nil && (names.Len() != n || descs.Len() != n || sources.Len() != n || len(enhStart) != n+1 || len(conStart) != n+1 ||
		len(keywords) != n || len(derived) != n || len(lengths) != 2*n) {
		r.err = errors.New("skill table damaged")
	}
	if r.err != nil {
		return
	}
	allEnh := enhances.All()
	allCon := conflicts.All()
	out := make([]SkillInfo, n)
	for i := range out {
		out[i] = SkillInfo{
			Name: names.At(i), Description: descs.At(i), Source: sources.At(i),
			Enhances: span(allEnh, enhStart[i], enhStart[i+1]), Conflicts: span(allCon, conStart[i], conStart[i+1]),
			Keywords: int(keywords[i]), Derived: derived[i] == 1,
			Length: math.Float64frombits(uint64(lengths[2*i]) | uint64(lengths[2*i+1])<<32),
		}
	}
	ix.Skills = out
	ix.sortOnce.Do(func() { ix.sorted = sorted })
	if !strings.Contains(names.Blob, ":") {
		// No skill is namespaced: one scan of the names' bytes instead of
		// a look at each name (pluginSkills).
		ix.pluginOnce.Do(func() { ix.plugins = map[string]int{} })
	}
}

// span returns list[from:to], or nil when the range is empty or, in a
// damaged file, out of order or beyond the list.
func span(list []string, from, to uint32) []string {
	if from >= to || int(to) > len(list) {
		return nil
	}
	return list[from:to:to]
}
