// Package prefs holds the user's own settings for skillroute, read from
// settings.yaml in the state folder:
//
//	# ~/.claude/skillroute/settings.yaml
//	log_prompts: false   # keep only prompt hashes in every log and state file
//
// The command reads the file once (Load), into the app every subcommand
// gets, and passes the Settings down; no package below the command reads
// the file or the environment on its own.
//
// # log_prompts
//
// By default skillroute keeps the text of routed prompts where it needs
// it: the session's last prompt (so that a correction names it), the
// feedback log (so that the learner finds the keywords a correction is
// about). With log_prompts: false every file skillroute writes holds a
// prompt's hash instead (Hash: the first 8 bytes of its SHA-256, in hex,
// the same hash decisions.jsonl has always used): Prompt gives the text to
// store ("") and the hash to store beside it. What is then lost is what
// the text was for: the learner can move a skill's weight as a whole but
// no keyword of it, calibration counts every outcome as the category
// "other", and a typed skill with arguments cannot be compared with the
// routed prompt, so it is taken as a new request rather than a verdict.
//
// A settings file that exists but cannot be read (bad YAML, an unknown
// key, not a regular file) is an error naming the file and line, and
// until it is fixed skillroute keeps prompts out of its files: a user who
// wrote log_prompts: false with a typo beside it meant to keep them out.
package prefs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/skillroute/skillroute/store"
	"gopkg.in/yaml.v3"
)

// File is the settings file's name in the state folder.
const File = "settings.yaml"

// maxBytes bounds the settings file: it has one line today; 64 KiB takes
// any number of comments and refuses a file that is something else.
const maxBytes = 64 << 10

// Settings are the user's settings for skillroute.
type Settings struct {
	// LogPrompts keeps the text of prompts in the feedback log and the
	// session files (true, the default). False keeps only their hashes,
	// in every log and state file (see the package doc).
	LogPrompts bool `yaml:"log_prompts"`
}

// Default is what applies when there is no settings file.
func Default() Settings { return Settings{LogPrompts: true} }

// private is what applies while a settings file cannot be read.
func private() Settings { return Settings{LogPrompts: false} }

// Load reads dir/settings.yaml. A missing file gives Default and no
// error. A file that cannot be read gives settings that keep prompts out
// of every file, and an error naming the file (and line, for bad YAML).
func Load(dir string) (Settings, error) {
	path := filepath.Join(dir, File)
	data, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Default(), nil
	}
	if err != nil {
		return private(), err
	}
	return Parse(path, data)
}

// Parse reads settings from data, the content of the file named path (for
// errors). Unknown keys are errors, so that a misspelt log_prompts is not
// silently ignored.
func Parse(path string, data []byte) (Settings, error) {
	s := Default()
	if len(bytes.TrimSpace(data)) == 0 {
		return s, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return private(), fmt.Errorf("%s: %v (prompts are kept out of skillroute's files until it is fixed)", path, err)
	}
	return s, nil
}

// readBounded reads a regular file of at most maxBytes.
func readBounded(path string) ([]byte, error) {
	data, err := store.ReadRegular(path, maxBytes)
	if errors.Is(err, store.ErrNotRegular) || errors.Is(err, store.ErrTooLarge) {
		return nil, fmt.Errorf("%w (prompts are kept out of skillroute's files until it is fixed)", err)
	}
	return data, err
}

// Prompt returns what may be stored of a prompt: its text (or "" when
// LogPrompts is off) and its hash, to store beside or instead of it.
func (s Settings) Prompt(text string) (stored, hash string) {
	if s.LogPrompts {
		stored = text
	}
	return stored, Hash(text)
}

// Hash is a prompt's hash as every skillroute file records it: the first
// 8 bytes of its SHA-256, in hex. Short, since it only has to tell one
// user's prompts apart, and the same in decisions.jsonl, the feedback log
// and the session files, so that records of one prompt can be joined.
func Hash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}
