package recall

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/store"
)

// The hook opens the memories and tools on every prompt, and a thousand
// facts take longer to parse and compile than its whole budget
// (BenchmarkHookActions1000). So each file's compiled index is cached,
// keyed by the file's path, size and modification time (as the router's
// own index is), and carries the rest of every memory and tool in its
// documents' metadata: while the file is unchanged, opening it is one
// stat and one mapped load, and the file itself is never parsed.

// OpenMemories returns the memories of a file and their index, from
// cacheDir while the file is unchanged (cacheDir "" compiles every time).
// A missing file holds no memories.
func OpenMemories(path, cacheDir string) ([]Memory, *Index, error) {
	x, err := open(path, cacheDir, "memories", func() ([]Doc, error) {
		mems, err := ReadMemories(path)
		return MemoryDocs(mems), err
	})
	if err != nil || x == nil {
		return nil, nil, err
	}
	mems, err := x.memories()
	return mems, x, err
}

// OpenTools returns the tools of a file and their index, as OpenMemories
// does. A missing file is fs.ErrNotExist, unless optional (the state
// folder's), when it declares no tools.
func OpenTools(path, cacheDir string, optional bool) ([]Tool, *Index, error) {
	x, err := open(path, cacheDir, "tools", func() ([]Doc, error) {
		tools, err := ReadTools(path)
		return ToolDocs(tools), err
	})
	if errors.Is(err, fs.ErrNotExist) && optional {
		return nil, nil, nil
	}
	if err != nil || x == nil {
		return nil, nil, err
	}
	tools, err := x.tools()
	return tools, x, err
}

// FileCached reports whether the file is compiled in cacheDir (or absent:
// nothing to compile).
func FileCached(path, cacheDir string) bool {
	k, err := fileKey(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(cacheDir, "recall-"+k+".bin"))
	return err == nil
}

func open(path, cacheDir, kind string, read func() ([]Doc, error)) (*Index, error) {
	k, err := fileKey(path)
	if errors.Is(err, fs.ErrNotExist) && kind == "memories" {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	cached := filepath.Join(cacheDir, "recall-"+k+".bin")
	if cacheDir != "" {
		if ix, err := index.Load(cached); err == nil {
			return &Index{ix: ix}, nil
		}
	}
	docs, err := read()
	if err != nil {
		return nil, err
	}
	x, err := Build(docs)
	if err != nil {
		return nil, err
	}
	if cacheDir != "" && os.MkdirAll(cacheDir, 0o700) == nil { // private, as store makes state folders
		if x.ix.Save(cached) == nil {
			prune(cacheDir)
		}
	}
	return x, nil
}

// fileKey fingerprints a file as the cache knows it: its path, size and
// modification time, the index format, and the binary that compiles it
// (builtinStamp), which embeds the synonyms and glossary the index is
// tokenized with.
func fileKey(path string) (string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	h := sha256.New()
	fmt.Fprintf(h, "recall\x00%d\x00%s\x00%d\x00%d\x00%s\x00", index.FormatVersion, abs, info.Size(), info.ModTime().UnixNano(), builtinStamp())
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// builtinStamp identifies the built-in data a compiled file depends on:
// the running binary's path, size and modification time, which change
// when a rebuild changes the embedded synonyms (150 KB) or glossary, or
// the code that tokenizes with them. Hashing those bytes instead took
// 0.13 ms per memories or tools file on every prompt that has them
// (BenchmarkFileKey: 130 µs, 3 µs this way).
// Where the binary cannot be found, the bytes are hashed after all. A
// variable so that a test can stand in for a rebuilt binary.
var builtinStamp = sync.OnceValue(func() string {
	if exe, err := os.Executable(); err == nil {
		if info, err := os.Stat(exe); err == nil {
			return fmt.Sprintf("binary %s %d %d", exe, info.Size(), info.ModTime().UnixNano())
		}
	}
	h := sha256.New()
	h.Write(rules.Synonyms)
	h.Write(glossary)
	return "data " + hex.EncodeToString(h.Sum(nil))
})

// cacheKeep is how many compiled files are kept: the memories' and the
// tools' current ones, and a few just replaced (another session may
// still be reading one).
const cacheKeep = 6

// prune removes all but the newest cacheKeep compiled files.
func prune(dir string) { store.PruneCaches(dir, "recall-*.bin", cacheKeep) }

// metaSep separates the fields of a document's metadata: a control
// character no fact or path holds.
const metaSep = "\x1f"

func memoryMeta(m Memory) string {
	created := ""
	if !m.Created.IsZero() {
		created = m.Created.UTC().Format(time.RFC3339Nano)
	}
	return strings.Join([]string{m.Scope, m.Project, created, strconv.FormatFloat(m.AgeDays, 'g', -1, 64)}, metaSep)
}

func toolMeta(t Tool) string {
	return strings.Join([]string{strconv.FormatFloat(t.Risk, 'g', -1, 64), strconv.FormatFloat(t.Cost, 'g', -1, 64),
		strings.Join(t.Requires, ",")}, metaSep)
}

// memories decodes the memories an index was compiled from.
func (x *Index) memories() ([]Memory, error) {
	out := make([]Memory, x.ix.Skills.Len())
	for i := range out {
		s := x.ix.Skills.Info(i)
		f := strings.Split(s.Source, metaSep)
		if len(f) != 4 {
			return nil, fmt.Errorf("compiled memories: document %d has no metadata", i)
		}
		m := Memory{ID: strings.TrimPrefix(s.Name, "#"), Text: s.Description, Scope: f[0], Project: f[1]}
		var err error
		if f[2] != "" {
			if m.Created, err = time.Parse(time.RFC3339Nano, f[2]); err != nil {
				return nil, fmt.Errorf("compiled memories: %v", err)
			}
		}
		if m.AgeDays, err = strconv.ParseFloat(f[3], 64); err != nil {
			return nil, fmt.Errorf("compiled memories: %v", err)
		}
		out[i] = m
	}
	return out, nil
}

// tools decodes the tools an index was compiled from.
func (x *Index) tools() ([]Tool, error) {
	out := make([]Tool, x.ix.Skills.Len())
	for i := range out {
		s := x.ix.Skills.Info(i)
		f := strings.Split(s.Source, metaSep)
		if len(f) != 3 {
			return nil, fmt.Errorf("compiled tools: document %d has no metadata", i)
		}
		t := Tool{Name: s.Name, Description: s.Description}
		var err error
		if t.Risk, err = strconv.ParseFloat(f[0], 64); err != nil {
			return nil, fmt.Errorf("compiled tools: %v", err)
		}
		if t.Cost, err = strconv.ParseFloat(f[1], 64); err != nil {
			return nil, fmt.Errorf("compiled tools: %v", err)
		}
		if f[2] != "" {
			t.Requires = strings.Split(f[2], ",")
		}
		out[i] = t
	}
	return out, nil
}
