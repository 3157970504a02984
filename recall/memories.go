// Package recall keeps what the action layer can put in front of the
// model besides a skill: the facts a user asked to remember and the tools
// they declared, with their files and their retrieval.
//
// Memories live in the state folder as memories.jsonl, one JSON line per
// fact: {"id","text","scope","project","created"}. `skillroute remember`
// adds one, `skillroute memories forget ID` removes one; both rewrite the
// file atomically under its lock, so concurrent sessions never lose a
// fact, and touch only the line they add or remove: comments (#), blank
// lines and fields a person wrote stay. A project-scoped memory belongs to the project folder it was
// stored in and is recalled only there; a user-scoped one everywhere.
// Fixture files may give "age_days" instead of a creation time.
//
// Tools are declared in tools.yaml (the state folder's, or a file passed
// with --tools): a list of {name, description, risk, cost} with risk and
// cost in [0, 1], and optionally the step types that must come before the
// tool (requires: [memory]).
//
// Both are retrieved by the router's own machinery: each memory or tool
// is compiled as a small document into an index.Index (its text as the
// description field, keyword tiers derived from it) and scored with BM25,
// with the synonyms of glossary.yaml bridging Chinese prompts and English
// facts ("端口" meets "port"). See search.go.
package recall

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/skillroute/skillroute/store"
)

// MemoriesFile is the memories' file name in the state folder.
const MemoriesFile = "memories.jsonl"

// Scopes of a memory.
const (
	ScopeUser    = "user"    // recalled in every project
	ScopeProject = "project" // recalled only in the project it was stored in
)

// MaxMemoryText caps a remembered fact, in bytes. A memory is injected
// whole into the prompt's context, which stays in the transcript: a fact
// is a sentence or two, not a document, and with a skill line it must fit
// the hook's 600-byte injection.
const MaxMemoryText = 400

// Memory is one remembered fact.
type Memory struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Scope string `json:"scope"`
	// Project is the project folder a project-scoped memory belongs to;
	// empty means every project (fixtures).
	Project string    `json:"project,omitempty"`
	Created time.Time `json:"created,omitzero"`
	// AgeDays stands in for Created in fixture files: the fact's age.
	AgeDays float64 `json:"age_days,omitempty"`
}

// Age returns how old the memory is at now.
func (m Memory) Age(now time.Time) time.Duration {
	if !m.Created.IsZero() {
		if age := now.Sub(m.Created); age > 0 {
			return age
		}
		return 0
	}
	return time.Duration(m.AgeDays * float64(24*time.Hour))
}

// AppliesIn reports whether the memory is recalled in the folder cwd: a
// user memory everywhere, a project memory inside its project (any
// project when it names none, or when cwd is unknown).
func (m Memory) AppliesIn(cwd string) bool {
	if m.Scope != ScopeProject || m.Project == "" || cwd == "" {
		return true
	}
	rel, err := filepath.Rel(m.Project, cwd)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// ReadMemories reads a memories file. A missing file holds no memories; a
// malformed line is an error naming the file and line.
func ReadMemories(path string) ([]Memory, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseMemories(path, data)
}

// ParseMemories parses memories.jsonl content; name is used in errors.
func ParseMemories(name string, data []byte) ([]Memory, error) {
	var out []Memory
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		var m Memory
		if err := json.Unmarshal([]byte(text), &m); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		m.Text = strings.TrimSpace(m.Text)
		switch {
		case m.ID == "":
			return nil, fmt.Errorf("%s:%d: memory without an id", name, line)
		case m.Text == "":
			return nil, fmt.Errorf("%s:%d: memory %s has no text", name, line, m.ID)
		case seen[m.ID] > 0:
			return nil, fmt.Errorf("%s:%d: memory id %s already used on line %d", name, line, m.ID, seen[m.ID])
		}
		if m.Scope == "" {
			m.Scope = ScopeUser
		}
		if m.Scope != ScopeUser && m.Scope != ScopeProject {
			return nil, fmt.Errorf("%s:%d: memory %s: scope %q is neither %q nor %q", name, line, m.ID, m.Scope, ScopeUser, ScopeProject)
		}
		if m.AgeDays < 0 {
			return nil, fmt.Errorf("%s:%d: memory %s: negative age_days", name, line, m.ID)
		}
		seen[m.ID] = line
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return out, nil
}

// Remember stores a fact in the memories file at path and returns it with
// its new id ("m" and the next number). The same text in the same scope
// and project is stored once: remembering it again returns the stored one
// with added false.
func Remember(ctx context.Context, path string, m Memory) (stored Memory, added bool, err error) {
	m.Text = strings.Join(strings.Fields(m.Text), " ")
	if m.Text == "" {
		return m, false, errors.New("nothing to remember: the text is empty")
	}
	if len(m.Text) > MaxMemoryText {
		return m, false, fmt.Errorf("a memory is at most %d bytes (this one has %d): store the fact, not the document", MaxMemoryText, len(m.Text))
	}
	if m.Scope == "" {
		m.Scope = ScopeUser
	}
	if m.Scope != ScopeUser && m.Scope != ScopeProject {
		return m, false, fmt.Errorf("scope %q is neither %q nor %q", m.Scope, ScopeUser, ScopeProject)
	}
	if m.Scope == ScopeUser {
		m.Project = ""
	}
	err = store.Lock(ctx, path, func() error {
		data, mems, err := readMemoriesFile(path)
		if err != nil {
			return err
		}
		next := forgottenHigh(data)
		for _, old := range mems {
			if old.Text == m.Text && old.Scope == m.Scope && old.Project == m.Project {
				stored = old
				return nil
			}
			next = max(next, idNumber(old.ID))
		}
		m.ID = "m" + strconv.Itoa(next+1)
		stored, added = m, true
		line, err := json.Marshal(m)
		if err != nil {
			return err
		}
		// Appended to the file as it is: its comments, blank lines and
		// fields this version does not know stay as written.
		if len(data) > 0 && data[len(data)-1] != '\n' {
			data = append(data, '\n')
		}
		return store.WriteFile(path, append(append(data, line...), '\n'))
	})
	return stored, added, err
}

// Forget removes the memory with the given id and returns it. An unknown
// id is an error that lists the ids there are.
func Forget(ctx context.Context, path, id string) (Memory, error) {
	var gone Memory
	err := store.Lock(ctx, path, func() error {
		data, mems, err := readMemoriesFile(path)
		if err != nil {
			return err
		}
		for _, m := range mems {
			if m.ID == id {
				gone = m
			}
		}
		if gone.ID == "" {
			ids := make([]string, len(mems))
			for i, m := range mems {
				ids[i] = m.ID
			}
			if len(ids) == 0 {
				return fmt.Errorf("no memory %q: nothing is remembered", id)
			}
			sortIDs(ids)
			return fmt.Errorf("no memory %q (there are: %s)", id, strings.Join(ids, ", "))
		}
		// Only the memory's line goes, for a comment that keeps its id
		// taken (forgottenHigh): every other line stays as written.
		var kept []byte
		for _, line := range bytes.SplitAfter(data, []byte("\n")) {
			if lineID(line) != id {
				kept = append(kept, line...)
			} else if idNumber(id) > 0 {
				kept = append(kept, forgottenMark+id+"\n"...)
			}
		}
		return store.WriteFile(path, kept)
	})
	return gone, err
}

// forgottenMark opens the comment Forget leaves for a memory: its id is
// never given again, as the policy's success rates and failures are kept
// by id (action), and a new fact must not inherit a forgotten one's.
const forgottenMark = "# forgotten "

// forgottenHigh is the highest id number the file's forgotten marks hold.
func forgottenHigh(data []byte) int {
	high := 0
	for _, line := range bytes.Split(data, []byte("\n")) {
		if id, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte(forgottenMark)); ok {
			high = max(high, idNumber(string(bytes.TrimSpace(id))))
		}
	}
	return high
}

// idNumber is N of an id "mN", 0 for an id of another form.
func idNumber(id string) int {
	if n, err := strconv.Atoi(strings.TrimPrefix(id, "m")); err == nil && strings.HasPrefix(id, "m") && n > 0 {
		return n
	}
	return 0
}

// readMemoriesFile reads a memories file (a missing one is empty) and
// parses it.
func readMemoriesFile(path string) ([]byte, []Memory, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	mems, err := ParseMemories(path, data)
	return data, mems, err
}

// lineID is the id of the memory a line of the file holds, "" for a
// comment or a blank line.
func lineID(line []byte) string {
	text := bytes.TrimSpace(line)
	if len(text) == 0 || text[0] == '#' {
		return ""
	}
	var m struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(text, &m) != nil {
		return "" // ParseMemories has accepted every line
	}
	return m.ID
}

// sortIDs orders "m2" before "m10".
func sortIDs(ids []string) {
	num := func(s string) int {
		n, err := strconv.Atoi(strings.TrimPrefix(s, "m"))
		if err != nil {
			return -1
		}
		return n
	}
	sort.SliceStable(ids, func(i, j int) bool {
		a, b := num(ids[i]), num(ids[j])
		if a != b {
			return a < b
		}
		return ids[i] < ids[j]
	})
}
