package router

import (
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/skillroute/skillroute/bm25"
)

// Skills with paths. Claude Code loads a skill whose header has paths
// (index.SkillTable.Paths) only while it works with a file the globs
// match; until then the model is not told of it, and a hook that named
// it would name what the model cannot invoke. Such a skill stays a
// candidate only when the prompt names a file its globs match (Claude
// then opens the file, and the skill with it), or when the session has
// used it already or the previous turn was routed to it (it is loaded).
// A catalog without such skills, nearly every one, skips the check
// (SkillTable.Conditional). namedFiles is stricter than tokenize's path
// test (its noise spans), which takes "v1.2" for a file name: here a
// version number must not stand for a file.

// loadable reports whether skill may be named for this prompt: a skill
// without paths always, one with paths as the comment above says.
func (st *route) loadable(r *Router, skill int) bool {
	globs := r.Index.Skills.Paths(skill)
	name := r.Index.Skills.Name(skill)
	if len(globs) == 0 || slices.Contains(st.recent, name) || st.session.LastSkill == name {
		return true
	}
	if st.files == nil {
		st.files = namedFiles(st.prompt)
	}
	for _, g := range globs {
		for _, f := range st.files {
			if globMatches(g, f) {
				return true
			}
		}
	}
	return false
}

// keepLoadable drops from the scored lists the skills Claude Code has
// not loaded for this prompt, noting them for the decision.
func (st *route) keepLoadable(r *Router) {
	if !r.Index.Skills.Conditional() {
		return
	}
	unloaded := func(res bm25.Result) bool {
		if st.loadable(r, res.Skill) {
			return false
		}
		if name := r.Index.Skills.Name(res.Skill); !slices.Contains(st.unloaded, name) {
			st.unloaded = append(st.unloaded, name)
		}
		return true
	}
	st.results = slices.DeleteFunc(st.results, unloaded)
	st.base = slices.DeleteFunc(st.base, unloaded)
}

// globMatches reports whether a file the prompt names matches glob g, a
// glob of a skill's paths, relative to the project (src/**/*.ts, *.sql).
// A file named by its path matches as the glob says; one named by its
// name alone ("fix page.tsx"), or by a path from elsewhere, matches by
// the glob's last part, as Claude Code finds the file the prompt means.
// A glob of a folder alone (src/api/**) asks for the path.
func globMatches(g, file string) bool {
	g = strings.TrimPrefix(g, "./")
	if ok, _ := doublestar.Match(g, file); ok {
		return true
	}
	last := path.Base(g)
	if last == "**" || last == "*" {
		return false
	}
	ok, _ := doublestar.Match(last, path.Base(file))
	return ok
}

// namedFiles returns the files a prompt names: words that hold a slash
// (not a URL's) or end in an extension (src/app/page.tsx, @db/report.sql,
// schema.prisma; a bare Dockerfile is not told from a word), cleared of
// quotes, brackets, a leading "./" or "@" (Claude Code's file mention) and
// a trailing ":LINE:COL".
func namedFiles(prompt string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(prompt, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'`()[]{}<>,;，。；：、（）“”‘’", r)
	}) {
		w = strings.TrimRight(w, ".:!?")
		for {
			i := strings.LastIndexByte(w, ':')
			if i < 0 || strings.Trim(w[i+1:], "0123456789") != "" || i == len(w)-1 {
				break
			}
			w = w[:i] // a line or column number
		}
		w = strings.TrimPrefix(strings.TrimPrefix(w, "@"), "./")
		if w != "" && (strings.Contains(w, "/") && !strings.Contains(w, "://") || hasExtension(w)) {
			out = append(out, w)
		}
	}
	if out == nil {
		out = []string{} // looked, found none
	}
	return out
}

// hasExtension reports whether a word ends in a file extension: a dot
// after something, then one to eight letters or digits with a letter
// among them ("v1.2" and "3.14" are no files).
func hasExtension(w string) bool {
	i := strings.LastIndexByte(w, '.')
	if i <= 0 || len(w)-i-1 < 1 || len(w)-i-1 > 8 {
		return false
	}
	ext, letter := w[i+1:], false
	for _, r := range ext {
		switch {
		case unicode.IsLetter(r) && r < unicode.MaxASCII:
			letter = true
		case r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return letter
}
