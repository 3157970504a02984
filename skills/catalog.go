package skills

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// builtinFS holds the built-in catalog, one folder per skill, exactly as
// `skillroute skills install` writes it to ~/.claude/skills.
//
//go:embed */SKILL.md
var builtinFS embed.FS

// Catalog is the set of skills a router chooses between, in name order.
type Catalog struct {
	Skills []Skill
}

// Lookup returns the skill with the given name.
func (c *Catalog) Lookup(name string) (*Skill, bool) {
	i := sort.Search(len(c.Skills), func(i int) bool { return c.Skills[i].Name >= name })
	if i < len(c.Skills) && c.Skills[i].Name == name {
		return &c.Skills[i], true
	}
	return nil, false
}

// Names returns the skill names in order.
func (c *Catalog) Names() []string {
	names := make([]string, len(c.Skills))
	for i, s := range c.Skills {
		names[i] = s.Name
	}
	return names
}

// newCatalog sorts skills by name and rejects duplicates, naming both sources.
func newCatalog(list []Skill) (*Catalog, error) {
	sort.SliceStable(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	for i := 1; i < len(list); i++ {
		if list[i].Name == list[i-1].Name {
			return nil, fmt.Errorf("%s: skill %q is already defined in %s", list[i].Source, list[i].Name, list[i-1].Source)
		}
	}
	return &Catalog{Skills: list}, nil
}

// Builtin returns the catalog embedded in the binary.
func Builtin() (*Catalog, error) {
	return loadFS(builtinFS, ".", "builtin:")
}

// BuiltinFiles returns the embedded SKILL.md files by skill folder name.
func BuiltinFiles() (map[string][]byte, error) {
	out := map[string][]byte{}
	err := fs.WalkDir(builtinFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Base(p) != "SKILL.md" {
			return err
		}
		data, err := builtinFS.ReadFile(p)
		out[path.Dir(p)] = data
		return err
	})
	return out, err
}

// Load reads a catalog from a skills folder (DIR/NAME/SKILL.md) or from a
// bookworm skills-index.json file.
func Load(p string) (*Catalog, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if info.IsDir() {
		return LoadDir(p)
	}
	return LoadBookworm(p)
}

// LoadDir reads every DIR/NAME/SKILL.md under dir.
func LoadDir(dir string) (*Catalog, error) {
	return loadFS(os.DirFS(dir), dir, "")
}

func loadFS(fsys fs.FS, root, prefix string) (*Catalog, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("catalog %s: %w", root, err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			dirs = append(dirs, e.Name())
		}
	}
	// Reading and parsing (YAML) is most of loading a large catalog: the
	// folders are shared out among the cores, and the results kept in
	// folder order, so that the first error reported is the first in that
	// order, as one after the other would find it.
	type result struct {
		skill Skill
		ok    bool
		err   error
	}
	results := make([]result, len(dirs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := min(runtime.GOMAXPROCS(0), max(1, len(dirs)/64)); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(dirs); i = int(next.Add(1) - 1) {
				name := dirs[i]
				data, err := fs.ReadFile(fsys, path.Join(name, "SKILL.md"))
				if err != nil {
					continue // a folder without SKILL.md is not a skill
				}
				source := prefix + name
				if prefix == "" {
					source = filepath.Join(root, name, "SKILL.md")
				}
				sk, err := Parse(source, name, data)
				results[i] = result{sk, err == nil, err}
			}
		}()
	}
	wg.Wait()
	list := make([]Skill, 0, len(dirs))
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		if r.ok {
			list = append(list, r.skill)
		}
	}
	return newCatalog(list)
}

// bookwormIndex is the skills-index.json of the bookworm router.
type bookwormIndex struct {
	Skills []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Maturity    string `json:"maturity"`
		Keywords    []struct {
			Keyword string  `json:"keyword"`
			Weight  float64 `json:"weight"`
			Tier    string  `json:"tier"`
		} `json:"keywords"`
		Composable struct {
			Enhances []string `json:"enhances"`
		} `json:"composable"`
	} `json:"skills"`
}

// LoadBookworm reads a bookworm skills-index.json. Keyword weights are
// taken as given (bookworm's tiers are 2.0 / 1.5 / 1.0); the precomputed
// tfidfWeight is ignored, since the index applies IDF itself, once.
func LoadBookworm(file string) (*Catalog, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	var bw bookwormIndex
	if err := json.Unmarshal(data, &bw); err != nil {
		return nil, fmt.Errorf("%s: %s", file, jsonErrorPosition(data, err))
	}
	list := make([]Skill, 0, len(bw.Skills))
	for i, s := range bw.Skills {
		if s.Name == "" {
			return nil, fmt.Errorf("%s: skills[%d] has no name", file, i)
		}
		sk := Skill{
			Name:        s.Name,
			Description: s.Description,
			Maturity:    s.Maturity,
			Enhances:    s.Composable.Enhances,
			Source:      file + "#" + s.Name,
		}
		for _, k := range s.Keywords {
			if strings.TrimSpace(k.Keyword) == "" {
				continue
			}
			sk.Keywords = append(sk.Keywords, Keyword{Text: k.Keyword, Tier: parseTier(k.Tier), Weight: k.Weight})
		}
		list = append(list, sk)
	}
	return newCatalog(list)
}

func parseTier(s string) Tier {
	switch strings.ToLower(s) {
	case "core":
		return Core
	case "strong":
		return Strong
	default:
		return Extended
	}
}

// jsonErrorPosition turns a JSON error's byte offset into a line number.
func jsonErrorPosition(data []byte, err error) string {
	var offset int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		offset = e.Offset
	case *json.UnmarshalTypeError:
		offset = e.Offset
	}
	if offset < 0 {
		return err.Error()
	}
	line := 1 + strings.Count(string(data[:min(int(offset), len(data))]), "\n")
	return fmt.Sprintf("line %d: %v", line, err)
}
