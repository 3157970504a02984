package router

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
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// Builtin names the built-in catalog, rules or synonyms in Options.
const Builtin = "builtin"

// Installed names, as Options.Catalog, the skills Claude Code itself can
// load on this machine (personal, project and plugin skills, no built-in
// ones unless installed): what a hook may recommend.
const Installed = "installed"

// Options say where the router's data comes from. Empty fields mean the
// defaults: the built-in rules and synonyms, and the built-in catalog
// merged with the skills Claude Code has on this machine (skills.Discover).
type Options struct {
	Catalog  string // a skills folder, a bookworm skills-index.json, "builtin", or "" for discovery
	Rules    string // a rules file (our YAML or bookworm JSON), or "builtin"
	Synonyms string // a synonym file (our YAML or bookworm JSON), or "builtin"
	// DeriveKeywords ignores written keyword tiers (see index.Options).
	DeriveKeywords bool
	// CacheDir, when set, keeps the compiled index there and reuses it
	// while its sources are unchanged.
	CacheDir string
	// LearnDir, when set, is where the learner keeps weights.json and the
	// calibration table calibration.json; those present are applied.
	LearnDir string
	// Warn receives problems that do not stop routing (a bookworm rule
	// that names a skill not in the catalog). May be nil.
	Warn io.Writer
}

// CalibrationFile is the calibration table's name in the learn folder.
const CalibrationFile = "calibration.json"

// Open loads the catalog and synonyms (or their compiled index) and the
// rules, and returns a router over them.
func Open(opt Options) (*Router, error) {
	ix, err := OpenIndex(opt)
	if err != nil {
		return nil, err
	}
	set, err := LoadRules(opt.Rules, ix, opt.Warn, opt.CacheDir)
	if err != nil {
		return nil, err
	}
	r := New(ix, set)
	if opt.LearnDir != "" {
		// What was learned only adjusts; a damaged file is skipped, with
		// a warning, rather than stopping the router.
		if w, err := learn.LoadWeights(filepath.Join(opt.LearnDir, learn.WeightsFile)); err == nil {
			r.Weights = w
		} else if !errors.Is(err, fs.ErrNotExist) && opt.Warn != nil {
			fmt.Fprintf(opt.Warn, "warning: learned weights ignored: %v\n", err)
		}
		if t, err := learn.LoadTable(filepath.Join(opt.LearnDir, CalibrationFile)); err == nil {
			if t.Catalog == "" || t.Catalog == ix.SourceHash {
				r.Table = t
			} else if opt.Warn != nil {
				fmt.Fprintf(opt.Warn, "warning: calibration table was built for another catalog; ignored until `skillroute calibrate` is run again\n")
			}
		} else if !errors.Is(err, fs.ErrNotExist) && opt.Warn != nil {
			fmt.Fprintf(opt.Warn, "warning: calibration table ignored: %v\n", err)
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
func OpenIndex(opt Options) (*index.Index, error) {
	stamp, err := Stamp(opt)
	if err != nil {
		return nil, err
	}
	var cache string
	if opt.CacheDir != "" {
		cache = filepath.Join(opt.CacheDir, "index-"+stamp[:16]+".bin")
		if ix, err := index.Load(cache); err == nil && ix.Stamp == stamp {
			return ix, nil
		}
	}
	defer index.TightGC()() // reading the catalog makes as much garbage as compiling it
	src, err := readSources(opt)
	if err != nil {
		return nil, err
	}
	ix := index.Compile(src.catalog, src.synonyms, index.Options{DeriveKeywords: opt.DeriveKeywords, Release: true}) // src is not used again
	ix.Stamp = stamp
	if cache != "" {
		if err := ix.Save(cache); err != nil && opt.Warn != nil {
			fmt.Fprintf(opt.Warn, "warning: cannot cache index: %v\n", err)
		}
		pruneCache(opt.CacheDir)
	}
	return ix, nil
}

// Cached reports whether the index for the options is compiled and
// current in the cache folder.
func Cached(opt Options) bool {
	stamp, err := Stamp(opt)
	if err != nil || opt.CacheDir == "" {
		return false
	}
	_, err = os.Stat(filepath.Join(opt.CacheDir, "index-"+stamp[:16]+".bin"))
	return err == nil
}

// Stamp fingerprints the sources of an index cheaply: the content of the
// built-in data, and the path, size and modification time of files. It
// changes whenever a source does, so a stale cached index is never used.
func Stamp(opt Options) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "format %d derive %v\n", index.FormatVersion, opt.DeriveKeywords)
	// The compiler is a source too: a rebuilt binary may cut text
	// differently, so its own file is part of the stamp.
	if exe, err := os.Executable(); err == nil {
		_ = stampPath(h, exe)
	}
	if opt.Catalog == "" || opt.Catalog == Installed {
		for _, f := range skills.PlacesFromEnv().Files() {
			if err := stampPath(h, f); err != nil {
				fmt.Fprintf(h, "%s missing\n", f)
			}
		}
	}
	if opt.Catalog == "" || opt.Catalog == Builtin {
		files, err := skills.BuiltinFiles()
		if err != nil {
			return "", err
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			fmt.Fprintf(h, "builtin %s %d\n", name, len(files[name]))
			h.Write(files[name])
		}
	} else if opt.Catalog != Installed {
		if err := stampPath(h, opt.Catalog); err != nil {
			return "", fmt.Errorf("catalog: %w", err)
		}
	}
	if opt.Synonyms == "" || opt.Synonyms == Builtin {
		h.Write(rules.Synonyms)
	} else if err := stampPath(h, opt.Synonyms); err != nil {
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

func readSources(opt Options) (sources, error) {
	var src sources
	var err error
	switch opt.Catalog {
	case "", Installed:
		var warnings []error
		src.catalog, warnings, err = skills.Discover(skills.PlacesFromEnv(), opt.Catalog == "")
		for _, w := range warnings {
			if opt.Warn != nil {
				fmt.Fprintf(opt.Warn, "warning: skill left out: %v\n", w)
			}
		}
	case Builtin:
		src.catalog, err = skills.Builtin()
	default:
		src.catalog, err = skills.Load(opt.Catalog)
	}
	if err != nil {
		return src, err
	}
	if len(src.catalog.Skills) == 0 {
		return src, errors.New("catalog has no skills")
	}
	name, data := rules.SynonymsName, rules.Synonyms
	if opt.Synonyms != "" && opt.Synonyms != Builtin {
		if data, err = os.ReadFile(opt.Synonyms); err != nil {
			return src, fmt.Errorf("synonyms: %w", err)
		}
		name = opt.Synonyms
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
