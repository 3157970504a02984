// Package rules ships the default data of the router's rule stages: the
// disambiguation rules (disambiguation.yaml, read by package disambig) and
// the synonym groups (synonyms.yaml, read by package tokenize). Both are
// plain files, edited and linted like any user's own
// (`skillroute rules lint rules/disambiguation.yaml`), and embedded so the
// binary routes with them out of the box.
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

// Names under which the embedded files appear in messages.
const (
	DisambiguationName = "builtin:rules/disambiguation.yaml"
	SynonymsName       = "builtin:rules/synonyms.yaml"
)
