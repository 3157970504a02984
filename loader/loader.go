// Package loader opens what the router routes over: it reads a catalog
// (a skills folder, the built-in skills, a bookworm index, or the skills
// Claude Code loads on this machine), compiles it into an index or takes
// the compiled one from the cache while its sources are unchanged, reads
// the rules (from their own cache likewise), and the learner's weights and
// calibration table from the state folder, and returns a ready
// router.Router.
//
// It is the one place that touches the file system for routing. Nothing
// here reads the environment: where Claude Code keeps skills, the state
// folder and the running binary are resolved once, by the command, and
// passed in a Config.
//
// A cached index is used only while its stamp matches: a hash of the
// format version, the binary (a rebuilt compiler may cut text
// differently), the built-in data and the path, size and modification time
// of every source file. Compiled files of both kinds are pruned to the
// newest few, so rebuilt binaries and edited catalogs do not pile up.
package loader

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// Builtin names the built-in catalog, rules or synonyms in a Config.
const Builtin = "builtin"

// Installed names, as Config.Catalog, the skills Claude Code itself can
// load on this machine (personal, project and plugin skills, no built-in
// ones unless installed): what a hook may recommend.
const Installed = "installed"

// Config says where the router's data comes from. Empty fields mean the
// defaults: the built-in rules and synonyms, and the built-in catalog
// merged with the skills Claude Code has on this machine (skills.Discover).
type Config struct {
	Catalog  string // a skills folder, a bookworm skills-index.json, "builtin", or "" for discovery
	Rules    string // a rules file (our YAML or bookworm JSON), or "builtin"
	Synonyms string // a synonym file (our YAML or bookworm JSON), or "builtin"
	// DeriveKeywords ignores written keyword tiers (see index.Options).
	DeriveKeywords bool
	// Places are where Claude Code keeps skills on this machine: read for
	// the default and "installed" catalogs.
	Places skills.Places
	// Binary is the running executable, part of the cache stamp ("" for
	// none: tests, and callers that never cache).
	Binary string
	// CacheDir, when set, keeps the compiled index there and reuses it
	// while its sources are unchanged.
	CacheDir string
	// StateDir, when set, is where the learner keeps weights.json and the
	// calibration table calibration.json; those present are applied.
	StateDir string
	// Warn receives problems that do not stop routing (a bookworm rule
	// that names a skill not in the catalog). May be nil.
	Warn io.Writer
}

// CalibrationFile is the calibration table's name in the state folder.
const CalibrationFile = "calibration.json"

// Open loads the catalog and synonyms (or their compiled index) and the
// rules, and returns a router over them.
func Open(cfg Config) (*router.Router, error) {
	ix, err := OpenIndex(cfg)
	if err != nil {
		return nil, err
	}
	set, err := LoadRules(cfg.Rules, ix, cfg.Warn, cfg.CacheDir)
	if err != nil {
		return nil, err
	}
	r := router.New(ix, set)
	if cfg.StateDir != "" {
		// What was learned only adjusts; a damaged file is skipped, with
		// a warning, rather than stopping the router.
		if w, err := learn.LoadWeights(filepath.Join(cfg.StateDir, learn.WeightsFile)); err == nil {
			r.Weights = w
		} else if !errors.Is(err, fs.ErrNotExist) && cfg.Warn != nil {
			fmt.Fprintf(cfg.Warn, "warning: learned weights ignored: %v\n", err)
		}
		if t, err := learn.LoadTable(filepath.Join(cfg.StateDir, CalibrationFile)); err == nil {
			if t.Catalog == "" || t.Catalog == ix.SourceHash {
				r.Table = t
			} else if cfg.Warn != nil {
				fmt.Fprintf(cfg.Warn, "warning: calibration table was built for another catalog; ignored until `skillroute calibrate` is run again\n")
			}
		} else if !errors.Is(err, fs.ErrNotExist) && cfg.Warn != nil {
			fmt.Fprintf(cfg.Warn, "warning: calibration table ignored: %v\n", err)
		}
	}
	return r, nil
}

// LoadRules reads a rules file ("" or "builtin" for the default) and
// checks it against the index's skills. With a cache folder, a file already
// checked against the same catalog is loaded from the cache instead.
func LoadRules(path string, ix *index.Index, warn io.Writer, cacheDir string) (*disambig.Set, error) {
	name, data := rules.DisambiguationName, rules.Disambiguation
	if path != "" && path != Builtin {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
		name = path
	}
	var cache string
	if cacheDir != "" {
		// ix.Stamp already covers the binary (and the catalog): the
		// built-in rules are part of the binary, so it keys them too.
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", name, ix.SourceHash, ix.Stamp)
		if name != rules.DisambiguationName {
			h.Write(data)
		}
		cache = filepath.Join(cacheDir, "rules-"+hex.EncodeToString(h.Sum(nil))[:16]+".bin")
		if set, problems, err := disambig.LoadCached(cache); err == nil {
			warnProblems(warn, name, problems)
			return set, nil
		}
	}
	// A user's rules must name skills of the catalog; the built-in ones
	// are fitted to whatever is installed.
	known := func(s string) bool { return ix.Resolve(s) >= 0 }
	if name == rules.DisambiguationName {
		known = func(string) bool { return true }
	}
	set, problems, err := disambig.Parse(name, data, known)
	if err != nil {
		return nil, err
	}
	set.Restrict(func(s string) (string, bool) {
		if id := ix.Resolve(s); id >= 0 {
			return ix.Skills[id].Name, true
		}
		return "", false
	})
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Error()
	}
	warnProblems(warn, name, msgs)
	if cache != "" {
		_ = set.Save(cache, problems) // a cache that cannot be written is only slower
	}
	return set, nil
}

func warnProblems(warn io.Writer, name string, problems []string) {
	if warn != nil && len(problems) > 0 {
		fmt.Fprintf(warn, "warning: %s: %d rules not usable here, skipped or trimmed (first: %s)\n", name, len(problems), problems[0])
	}
}

// sources are the bytes an index is compiled from.
type sources struct {
	catalog  *skills.Catalog
	synonyms *tokenize.Synonyms
}

// OpenIndex returns the compiled index for the options, from the cache
// when its stamp still matches the sources, else compiled afresh (and
// cached, when a cache folder is given).
func OpenIndex(cfg Config) (*index.Index, error) {
	stamp, err := Stamp(cfg)
	if err != nil {
		return nil, err
	}
	var cache string
	if cfg.CacheDir != "" {
		cache = filepath.Join(cfg.CacheDir, "index-"+stamp[:16]+".bin")
		if ix, err := index.Load(cache); err == nil && ix.Stamp == stamp {
			return ix, nil
		}
	}
	src, err := readSources(cfg)
	if err != nil {
		return nil, err
	}
	ix := index.Compile(src.catalog, src.synonyms, index.Options{DeriveKeywords: cfg.DeriveKeywords})
	ix.Calibration = router.Calibrate(ix, func(i int) (string, string) {
		s := &src.catalog.Skills[i]
		return s.Description + "\n" + s.WhenToUse, s.Body
	})
	ix.Stamp = stamp
	if cache != "" {
		if err := ix.Save(cache); err != nil && cfg.Warn != nil {
			fmt.Fprintf(cfg.Warn, "warning: cannot cache index: %v\n", err)
		}
		pruneCache(cfg.CacheDir)
	}
	return ix, nil
}

// Cached reports whether the index for the options is compiled and
// current in the cache folder.
func Cached(cfg Config) bool {
	stamp, err := Stamp(cfg)
	if err != nil || cfg.CacheDir == "" {
		return false
	}
	_, err = os.Stat(filepath.Join(cfg.CacheDir, "index-"+stamp[:16]+".bin"))
	return err == nil
}

// Stamp fingerprints the sources of an index cheaply: the content of the
// built-in data, and the path, size and modification time of files. It
// changes whenever a source does, so a stale cached index is never used.
func Stamp(cfg Config) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "format %d derive %v\n", index.FormatVersion, cfg.DeriveKeywords)
	// The compiler is a source too: a rebuilt binary may cut text
	// differently, so its own file is part of the stamp.
	if cfg.Binary != "" {
		_ = stampPath(h, cfg.Binary)
	}
	if cfg.Catalog == "" || cfg.Catalog == Installed {
		for _, f := range cfg.Places.Files() {
			if err := stampPath(h, f); err != nil {
				fmt.Fprintf(h, "%s missing\n", f)
			}
		}
	}
	if cfg.Catalog == "" || cfg.Catalog == Builtin {
		files, err := skills.BuiltinFiles()
		if err != nil {
			return "", err
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			fmt.Fprintf(h, "builtin %s %d\n", name, len(files[name]))
			h.Write(files[name])
		}
	} else if cfg.Catalog != Installed {
		if err := stampPath(h, cfg.Catalog); err != nil {
			return "", fmt.Errorf("catalog: %w", err)
		}
	}
	if cfg.Synonyms == "" || cfg.Synonyms == Builtin {
		h.Write(rules.Synonyms)
	} else if err := stampPath(h, cfg.Synonyms); err != nil {
		return "", fmt.Errorf("synonyms: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func stampPath(w io.Writer, path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	fmt.Fprintf(w, "%s %d %d\n", abs, info.Size(), info.ModTime().UnixNano())
	if !info.IsDir() {
		return nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(path, e.Name(), "SKILL.md")
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(w, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return nil
}

func readSources(cfg Config) (sources, error) {
	var src sources
	var err error
	switch cfg.Catalog {
	case "", Installed:
		var warnings []error
		src.catalog, warnings, err = skills.Discover(cfg.Places, cfg.Catalog == "")
		for _, w := range warnings {
			if cfg.Warn != nil {
				fmt.Fprintf(cfg.Warn, "warning: skill left out: %v\n", w)
			}
		}
	case Builtin:
		src.catalog, err = skills.Builtin()
	default:
		src.catalog, err = skills.Load(cfg.Catalog)
	}
	if err != nil {
		return src, err
	}
	if len(src.catalog.Skills) == 0 {
		return src, errors.New("catalog has no skills")
	}
	name, data := rules.SynonymsName, rules.Synonyms
	if cfg.Synonyms != "" && cfg.Synonyms != Builtin {
		if data, err = os.ReadFile(cfg.Synonyms); err != nil {
			return src, fmt.Errorf("synonyms: %w", err)
		}
		name = cfg.Synonyms
	}
	src.synonyms, err = tokenize.ParseSynonyms(name, data)
	return src, err
}

// cacheKeep is how many compiled files of each kind the cache keeps: one
// per catalog and rules file in use, with room for a few, the oldest going
// first, so rebuilt binaries and edited files do not pile up.
const cacheKeep = 8

func pruneCache(dir string) {
	for _, pattern := range []string{"index-*.bin", "rules-*.bin"} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		if len(files) <= cacheKeep {
			continue
		}
		type aged struct {
			path string
			mod  int64
		}
		var list []aged
		for _, f := range files {
			if info, err := os.Stat(f); err == nil {
				list = append(list, aged{f, info.ModTime().UnixNano()})
			}
		}
		sort.Slice(list, func(i, j int) bool { return list[i].mod > list[j].mod })
		for _, a := range list[min(cacheKeep, len(list)):] {
			os.Remove(a.path)
		}
	}
}
