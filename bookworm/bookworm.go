// Package bookworm reads the data files of the bookworm router, the
// Node.js router of the design seed, so that skillroute can route over
// exactly its catalog, rules and synonyms and the two be compared side by
// side (README: "Side by side with the bookworm router"). The core
// packages read only skillroute's own formats; this adapter decodes
// bookworm's three JSON files into their types:
//
//   - skills-index.json, {"skills": [{"name", "description", "maturity",
//     "keywords": [{"keyword", "weight", "tier", "tfidfWeight"}],
//     "composable": {"enhances"}}]}: by Catalog into a skills.Catalog.
//     Each keyword keeps its weight as given (bookworm's tiers weigh
//     2.0 / 1.5 / 1.0) and its tier by name ("core", "strong", anything
//     else extended); tfidfWeight is ignored, since the index applies IDF
//     itself, once.
//   - synonyms.json, {"groups": [{"id", "words"}]}: by Synonyms into a
//     tokenize.Synonyms. As bookworm expands them, the first three words
//     of a group are added at 0.7 and the rest at 0.4.
//   - disambiguation-rules.json, {"rules": [{"id", "note", "trigger",
//     "boost", "penalty", "weight", "mutual_exclusion": {"with",
//     "on_keyword"}}]}: by Rules into a disambig.Set, built leniently
//     (disambig.BuildOptions): the file was written for a larger catalog,
//     so rules that name skills absent here, or whose trigger compiles in
//     no engine, are skipped and returned as problems to warn about,
//     counted by rule (disambig.Summary). Triggers written for
//     JavaScript's regular expressions (look-around) load, and run on
//     disambig's backtracking engine with a time bound.
//
// Users pass these files by name (--catalog skills-index.json, …); Is
// tells a loader which reader a file needs. Errors name the file and, for
// malformed JSON, the line.
package bookworm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Is reports whether a data file the user named is one of bookworm's: its
// name ends in .json (in any case). A name without an extension
// (/dev/stdin, a shell's process substitution /dev/fd/63) is judged by
// data instead: bookworm's files are JSON objects and open with '{',
// which skillroute's block-style YAML files never do. data may be nil
// when the file has not been read.
func Is(path string, data []byte) bool {
	ext := filepath.Ext(path)
	if ext == "" {
		return bytes.HasPrefix(bytes.TrimSpace(data), []byte("{"))
	}
	return strings.EqualFold(ext, ".json")
}

// jsonError names the file and, when the error has a byte offset, the
// line it points at.
func jsonError(name string, data []byte, err error) error {
	var offset int64 = -1
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		offset = syntax.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	}
	if offset < 0 {
		return fmt.Errorf("%s: %v", name, err)
	}
	line := 1 + bytes.Count(data[:min(int(offset), len(data))], []byte("\n"))
	return fmt.Errorf("%s: line %d: %v", name, line, err)
}
