// Package rules ships the default data of the router's rule stages: the
// disambiguation rules (disambiguation.yaml, read by package disambig),
// the synonym groups (synonyms.yaml, read by package tokenize) and the
// skills each project type favours (projects.yaml, read by package
// context). They are plain files, edited like any user's own (the rules
// linted with `skillroute rules lint rules/disambiguation.yaml`), and
// embedded so the binary routes with them out of the box.
package rules

import _ "embed"

// Disambiguation is the default rules file.
//
//go:embed disambiguation.yaml
var Disambiguation []byte

// Synonyms is the default synonym file.
//
//go:embed synonyms.yaml
var Synonyms []byte

// Projects is the default table of the skills each project type
// favours.
//
//go:embed projects.yaml
var Projects []byte

// Names under which the embedded files appear in messages.
const (
	DisambiguationName = "builtin:rules/disambiguation.yaml"
	SynonymsName       = "builtin:rules/synonyms.yaml"
	ProjectsName       = "builtin:rules/projects.yaml"
)
