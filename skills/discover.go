package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/skillroute/skillroute/internal/parallel"
	"github.com/skillroute/skillroute/store"
)

// Places says where Claude Code keeps skills on this machine.
type Places struct {
	Home       string // the user's home: ~/.claude/skills and plugin caches
	ProjectDir string // $CLAUDE_PROJECT_DIR: its .claude/skills
	PluginRoot string // $CLAUDE_PLUGIN_ROOT when running as a plugin: its skills/
}

// maxManifestBytes bounds a plugin manifest read: a name and a few fields
// take a few hundred bytes.
const maxManifestBytes = 1 << 20

// pluginName reads a plugin's name from its manifest, else its folder. The
// manifest is read only if it is a regular file, so that a FIFO in a
// plugin cache cannot block the hook.
func pluginName(root string) string {
	var m struct {
		Name string `json:"name"`
	}
	if data, err := store.ReadRegular(filepath.Join(root, ".claude-plugin", "plugin.json"), maxManifestBytes); err == nil {
		if json.Unmarshal(data, &m) == nil && m.Name != "" {
			return m.Name
		}
	}
	return filepath.Base(root)
}

// Dirs lists the skill folders to read, lowest precedence first, each with
// the prefix its skills are invoked by ("" or "plugin:"). As in Claude
// Code, a project's skills are read from its folder and each parent up to
// its repository's root, and a personal skill (~/.claude/skills) outranks
// a project's of the same name; plugin skills are namespaced and clash
// with neither.
func (p Places) Dirs() []SkillDir {
	var out []SkillDir
	if p.Home != "" {
		// Plugin skills: ~/.claude/plugins/cache/MARKETPLACE/PLUGIN/VERSION/skills.
		matches, _ := filepath.Glob(filepath.Join(p.Home, ".claude", "plugins", "cache", "*", "*", "*", "skills"))
		sort.Strings(matches)
		for _, m := range matches {
			if orphaned(filepath.Dir(m)) {
				continue
			}
			plugin := filepath.Base(filepath.Dir(filepath.Dir(m)))
			marketplace := filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(m))))
			out = append(out, SkillDir{Path: m, Prefix: plugin + ":", Plugin: plugin + "@" + marketplace})
		}
	}
	if p.PluginRoot != "" {
		out = append(out, SkillDir{Path: filepath.Join(p.PluginRoot, "skills"), Prefix: pluginName(p.PluginRoot) + ":"})
	}
	for _, dir := range projectDirs(p.ProjectDir) {
		out = append(out, SkillDir{Path: filepath.Join(dir, ".claude", "skills")})
	}
	if p.Home != "" {
		out = append(out, SkillDir{Path: filepath.Join(p.Home, ".claude", "skills")})
	}
	return out
}

// projectDirs lists the folders whose .claude/skills Claude Code reads
// for a project started in dir: dir and each parent up to the root of
// the git repository it is in, the farthest first (a nearer folder's
// skill outranks a parent's of the same name). Outside a repository, dir
// alone.
func projectDirs(dir string) []string {
	if dir == "" {
		return nil
	}
	dir = filepath.Clean(dir)
	var chain []string
	for d := dir; ; d = filepath.Dir(d) {
		chain = append(chain, d)
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			slices.Reverse(chain)
			return chain
		}
		if filepath.Dir(d) == d {
			return []string{dir} // no repository above: the folder alone
		}
	}
}

// orphaned reports whether a plugin version folder of Claude Code's
// cache is marked superseded (an .orphaned_at file, written when the
// plugin is updated or removed): Claude Code loads none of its skills,
// though it keeps the folder for weeks, and an old version's skill would
// otherwise be routed to, or stand for the installed version's.
func orphaned(version string) bool {
	_, err := os.Lstat(filepath.Join(version, ".orphaned_at"))
	return err == nil
}

// SkillDir is one folder of DIR/NAME/SKILL.md skills.
type SkillDir struct {
	Path   string
	Prefix string // "plugin:" for a plugin's skills
	// Plugin is "PLUGIN@MARKETPLACE" for a folder of Claude Code's
	// plugin cache, whose skills load only while the settings enable
	// that plugin (Visibility.PluginEnabled).
	Plugin string
}

// Discover returns the skills found in the places, merged over the
// built-in catalog when withBuiltin is set: a later place's skill overrides
// an earlier one's, and any of them a built-in skill of the same name.
// Without the built-in catalog it is what Claude Code itself can load, the
// only skills a hook may recommend. Skills the settings keep from the
// model (Visibility) are left out. A skill file that does not parse is
// left out and reported in warnings, so one broken file never stops
// routing.
func Discover(p Places, withBuiltin bool) (*Catalog, []error, error) {
	return DiscoverCached(p, withBuiltin, nil)
}

// DiscoverCached is Discover with a cache of parsed frontmatter (nil:
// none), which it reads and adds this discovery's headers to.
func DiscoverCached(p Places, withBuiltin bool, fc *FrontCache) (*Catalog, []error, error) {
	// The skills found, and by name the one that stands (a later place's
	// overrides an earlier one's): an index into found, not a copy of the
	// skill, which at 100,000 skills made a map of 26 MB to copy in and
	// out.
	var found []Skill
	byName := map[string]int32{}
	if withBuiltin {
		base, err := Builtin()
		if err != nil {
			return nil, nil, err
		}
		for _, s := range base.Skills {
			byName[s.Name] = int32(len(found))
			found = append(found, s)
		}
	}
	vis, warnings := ReadVisibility(p.SettingsFiles())
	var leftOut []string
	for _, d := range p.Dirs() {
		if d.Plugin != "" && !vis.PluginEnabled(d.Plugin) {
			// Installed but not enabled: Claude Code loads none of it.
			// Named once, though each of its versions is a folder.
			if why := d.Plugin + " (plugin not enabled)"; !slices.Contains(leftOut, why) {
				leftOut = append(leftOut, why)
			}
			continue
		}
		names, err := fc.listed(d.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // absent folders are normal
		} else if err != nil {
			// There but not listed (its mode, a file in its place):
			// every skill in it is left out, which must not go unsaid.
			warnings = append(warnings, fmt.Errorf("skills folder %s cannot be read: %w", d.Path, err))
			continue
		}
		// Each folder's skills are read on every core (at 10,000 skills,
		// one after the other, reading was a fifth of a recompile), into
		// found, then taken in folder order, as one after the other would.
		base := len(found)
		found = slices.Grow(found, len(names))[:base+len(names)]
		errs := make([]error, len(names))
		parallel.For(len(names), 64, func(i int) {
			file := filepath.Join(d.Path, names[i], "SKILL.md")
			found[base+i], errs[i] = fc.load(file, names[i], func() ([]byte, error) { return ReadFile(file) })
		})
		for i, name := range names {
			sk := &found[base+i]
			if err := errs[i]; errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				continue // not a skill folder
			} else if err != nil {
				// A FIFO, a device, a link loop, a huge file, a header
				// that does not parse.
				warnings = append(warnings, err)
				continue
			}
			// Claude Code invokes personal and project skills by folder name.
			if d.Prefix == "" {
				sk.nameByFolder(name)
			} else if !strings.Contains(sk.Name, ":") {
				// A plugin's "p:x" stands for the built-in "x" it shadows
				// (skillroute's own plugin ships the built-in skills).
				if b, ok := byName[sk.Name]; ok && strings.HasPrefix(found[b].Source, "builtin:") {
					delete(byName, sk.Name)
				}
				sk.Name = d.Prefix + sk.Name
			}
			byName[sk.Name] = int32(base + i)
		}
	}
	// The skills that stand, in the order they were found: a folder's
	// come sorted by name (ReadDirNames), which sortedCatalog then need not
	// sort (taken from the map, in its random order, sorting 100,000 was
	// a tenth of a second).
	keep := make([]int32, 0, len(byName))
	for i := range found {
		j, ok := byName[found[i].Name]
		switch {
		case !ok || int(j) != i:
		case found[i].UserOnly:
			leftOut = append(leftOut, found[i].Name+" (disable-model-invocation)")
		case vis.Hidden(found[i].Name):
			leftOut = append(leftOut, found[i].Name+" (settings)")
		default:
			keep = append(keep, j)
		}
	}
	cat, err := sortedCatalog(found, keep)
	if cat != nil {
		cat.LeftOut = leftOut
	}
	return cat, warnings, err
}

// InstallResult says what Install did with one skill.
type InstallResult struct {
	Name   string
	Path   string
	Action string // "written", "unchanged", "skipped (differs; use --force)", "overwritten", "failed"
}

// Install writes the built-in skills as DIR/NAME/SKILL.md: all of them,
// or only those named (each skill Claude Code loads takes a line of its
// skill listing, ListingSize). A file that exists with other content is
// the user's: it is kept unless force is set. An unknown name writes
// nothing and is an error that lists the known ones. A skill that cannot
// be written (its path a folder or a FIFO, its folder read-only) does not
// stop the others: each is "failed" in the results and named in the
// error.
func Install(dir string, force bool, only ...string) ([]InstallResult, error) {
	files, err := BuiltinFiles()
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(only) > 0 {
		for _, n := range only {
			if _, ok := files[n]; !ok {
				return nil, fmt.Errorf("no built-in skill %q; the built-in skills are: %s", n, strings.Join(names, ", "))
			}
		}
		names = slices.Compact(slices.Sorted(slices.Values(only)))
	}
	var out []InstallResult
	var failed []error
	for _, name := range names {
		path := filepath.Join(dir, name, "SKILL.md")
		res := InstallResult{Name: name, Path: path}
		// Read as a skill is (ReadFile): a FIFO there would block
		// os.ReadFile for good. A file over the bound is the user's.
		old, err := store.ReadRegular(path, MaxSkillBytes)
		exists := err == nil || errors.Is(err, store.ErrTooLarge)
		switch {
		case err != nil && !exists && !errors.Is(err, fs.ErrNotExist):
			// A FIFO, a folder, unreadable: named, left untouched, and
			// the other skills still installed.
			res.Action = "failed"
			failed = append(failed, err)
		case err == nil && string(old) == string(files[name]):
			res.Action = "unchanged"
		case exists && !force:
			res.Action = "skipped (differs; use --force)"
		default:
			res.Action = "written"
			if exists {
				res.Action = "overwritten"
			}
			if err := store.Write(path, files[name], store.Public); err != nil {
				res.Action = "failed"
				failed = append(failed, fmt.Errorf("%s: %w", path, err))
			}
		}
		out = append(out, res)
	}
	return out, errors.Join(failed...)
}
