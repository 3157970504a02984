package skills

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/skillroute/skillroute/internal/parallel"
)

// builtinFS holds the built-in catalog, one folder per skill, exactly as
// `skillroute skills install` writes it to ~/.claude/skills.
//
//go:embed */SKILL.md
var builtinFS embed.FS

// Catalog is the set of skills a router chooses between, in name order.
type Catalog struct {
	Skills []Skill
	// LeftOut names, for Discover, what was found but is not in Skills
	// because the model cannot invoke it: "NAME (disable-model-invocation)",
	// "NAME (settings)", "PLUGIN@MARKETPLACE (plugin not enabled)".
	LeftOut []string
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

// NewCatalog makes a catalog of skills read from any source, sorted by
// name (list itself is left as it is), and rejects a name defined twice,
// naming both sources. An adapter for another router's catalog builds its
// Skills and calls it.
func NewCatalog(list []Skill) (*Catalog, error) {
	all := make([]int32, len(list))
	for i := range all {
		all[i] = int32(i)
	}
	return sortedCatalog(list, all)
}

// sortedCatalog is NewCatalog of the skills of list at the indexes keep.
// The indexes are sorted, and each skill moved once, into the catalog:
// sorting the skills themselves moved each (over 200 bytes) some log n
// times, a quarter of making 100,000 skills from their cached headers,
// and every copy of the list made before is garbage a load of 100,000
// skills left for the collector, a peak 100 MB higher.
func sortedCatalog(list []Skill, keep []int32) (*Catalog, error) {
	byName := func(a, b int32) int { return strings.Compare(list[a].Name, list[b].Name) }
	if !slices.IsSortedFunc(keep, byName) {
		slices.SortStableFunc(keep, byName)
	}
	sorted := make([]Skill, len(keep))
	for i, j := range keep {
		sorted[i] = list[j]
	}
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Name == sorted[i-1].Name {
			return nil, fmt.Errorf("%s: skill %q is already defined in %s", sorted[i].Source, sorted[i].Name, sorted[i-1].Source)
		}
	}
	return &Catalog{Skills: sorted}, nil
}

// Builtin returns the catalog embedded in the binary.
func Builtin() (*Catalog, error) {
	return loadFS(builtinFS, ".", "builtin:", nil, func(name string) ([]byte, error) {
		return builtinFS.ReadFile(path.Join(name, "SKILL.md"))
	})
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

// Load reads a catalog from a skills folder (DIR/NAME/SKILL.md). Unlike
// LoadDir it says plainly when p is a file: other routers' catalog files
// are read by their adapters (package bookworm).
func Load(p string) (*Catalog, error) { return LoadCached(p, nil) }

// LoadCached is Load with a cache of parsed frontmatter (nil: none),
// which it reads and adds this load's headers to.
func LoadCached(p string, fc *FrontCache) (*Catalog, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("catalog %s: not a skills folder (DIR/NAME/SKILL.md)", p)
	}
	return loadDir(p, fc)
}

// LoadDir reads every DIR/NAME/SKILL.md under dir.
// Files are read by ReadFile: a FIFO, device or oversized file is an
// error naming it.
func LoadDir(dir string) (*Catalog, error) { return loadDir(dir, nil) }

func loadDir(dir string, fc *FrontCache) (*Catalog, error) {
	return loadFS(os.DirFS(dir), dir, "", fc, func(name string) ([]byte, error) {
		return ReadFile(filepath.Join(dir, name, "SKILL.md"))
	})
}

// loadFS reads the skill folders of fsys, their headers through fc; read
// returns a folder's SKILL.md.
func loadFS(fsys fs.FS, root, prefix string, fc *FrontCache, read func(name string) ([]byte, error)) (*Catalog, error) {
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
	found := make([]Skill, len(dirs))
	errs := make([]error, len(dirs))
	parallel.For(len(dirs), 64, func(i int) {
		name := dirs[i]
		source := prefix + name
		if prefix == "" {
			source = filepath.Join(root, name, "SKILL.md")
		}
		found[i], errs[i] = fc.load(source, name, func() ([]byte, error) { return read(name) })
	})
	keep := make([]int32, 0, len(dirs))
	for i := range dirs {
		switch err := errs[i]; {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			// a folder without SKILL.md is not a skill, nor is a link
			// to a file (as Discover has it)
		case err != nil:
			return nil, err
		case found[i].UserOnly:
			// the user's alone: no route may name it (Skill.UserOnly)
		default:
			found[i].nameByFolder(dirs[i])
			keep = append(keep, int32(i))
		}
	}
	return sortedCatalog(found, keep)
}
