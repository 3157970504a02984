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
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillroute/skillroute/bookworm"
	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/disambig"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn"
	"github.com/skillroute/skillroute/learn/calibrate"
	"github.com/skillroute/skillroute/learn/memory"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
	"github.com/skillroute/skillroute/tokenize"
)

// Builtin names the built-in catalog, rules, synonyms or glossary in a
// Config.
const Builtin = "builtin"

// NoGlossary, as Config.Glossary, compiles the index without one.
const NoGlossary = "none"

// Installed names, as Config.Catalog, the skills Claude Code itself can
// load on this machine (personal, project and plugin skills, no built-in
// ones unless installed): what a hook may recommend.
const Installed = "installed"

// Config says where the router's data comes from. Empty fields mean the
// defaults: the built-in rules, synonyms and glossary, and the built-in catalog
// merged with the skills Claude Code has on this machine (skills.Discover).
type Config struct {
	Catalog  string // a skills folder, a bookworm skills-index.json, "builtin", or "" for discovery
	Rules    string // a rules file (our YAML or bookworm JSON), or "builtin"
	Synonyms string // a synonym file (our YAML or bookworm JSON), or "builtin"
	Glossary string // a glossary file (rules/glossary.yaml's format), "builtin", or "none"
	// DeriveKeywords ignores written keyword tiers (see index.Options).
	DeriveKeywords bool
	// ReadAll makes a compile read and hash every skill file. Otherwise
	// a file of the size and modification time it had when the last
	// compile read it is taken as unchanged, and not read
	// (skills.FrontCache): a full check.
	ReadAll bool
	// Places are where Claude Code keeps skills on this machine: read for
	// the default and "installed" catalogs.
	Places skills.Places
	// Binary is the running executable, part of the cache stamp ("" for
	// none: tests, and callers that never cache).
	Binary string
	// CacheDir, when set, keeps the compiled index there and reuses it
	// while its sources are unchanged.
	CacheDir string
	// StateDir, when set, is where the learner keeps weights.json, the
	// calibration table calibration.json and the prompt memory
	// memory.bin; those present are applied.
	StateDir string
	// OnCompile, when set, is called as a compile of the index begins:
	// the hook's runtime learns that the slow part is the compile, with no
	// stat after its deadline to find out.
	OnCompile func()
	// OnStale, when set, lets OpenIndex use the last index compiled for
	// this catalog while the catalog's folders have changed since (a skill
	// added or removed), and is called when it does: the caller starts a
	// compile in the background. Unset, such a change compiles at once.
	OnStale func()
	// CheckFiles makes OpenIndex stat every skill file before it takes a
	// cached index (Fresh), so that a file edited in place is compiled
	// again: what a command a person runs (route, eval, skills list)
	// needs after an edit. The hook leaves it off: it checks the file of
	// the skill it is about to name, and every file at session start.
	CheckFiles bool
	// MustCache makes a compile that cannot write its index to CacheDir
	// fail, as the compile command must; otherwise it warns and returns
	// the index, which routes all the same.
	MustCache bool
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
	// The binary's stamp keys both caches below: taken once, one stat.
	bin := binaryStamp(cfg)
	set, err := loadRules(cfg, ix, bin)
	if err != nil {
		return nil, err
	}
	r := router.New(ix, set)
	if r.Projects, err = projectFavours(cfg.CacheDir, bin); err != nil {
		return nil, err
	}
	if cfg.StateDir != "" {
		// What was learned only adjusts; a damaged file is skipped, with
		// a warning, rather than stopping the router.
		if w, err := learn.LoadWeights(filepath.Join(cfg.StateDir, learn.WeightsFile)); err == nil {
			r.Weights = w
		} else if !errors.Is(err, fs.ErrNotExist) && cfg.Warn != nil {
			fmt.Fprintf(cfg.Warn, "warning: learned weights ignored: %v\n", err)
		}
		// The prompt memory is mapped, not read: ten thousand remembered
		// prompts cost the hook microseconds to open (and its journal of
		// recent verdicts, a few kilobytes, is read).
		m, err := memory.LoadDir(cfg.StateDir)
		r.Memory = m
		if err != nil && !errors.Is(err, fs.ErrNotExist) && cfg.Warn != nil {
			fmt.Fprintf(cfg.Warn, "warning: prompt memory ignored until the next correction or `skillroute learn` rebuilds it: %v\n", err)
		}
		if t, err := calibrate.LoadTable(filepath.Join(cfg.StateDir, CalibrationFile)); err == nil {
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

// projectFavours returns the shipped table of the skills each project
// type favours. Parsing its YAML costs about 0.2 ms and a thousand
// allocations (BenchmarkParseProjectFavours), a tenth of a hook call, so
// with a cache folder the parsed table is kept there, in a store frame:
// per type its name and count of skills, per skill its name and weight.
// Kept as JSON, decoding it was 6 % of a hook process's instructions
// (callgrind at 50 skills), most of it encoding/json reflecting on the
// type in a fresh process. The table is part of the binary, so the
// binary's stamp (bin, "" without a binary) names its cache; hashing the
// table itself on every call was another 2 % (89,000 instructions).
func projectFavours(cacheDir, bin string) (sctx.ProjectFavours, error) {
	var cache string
	if cacheDir != "" {
		key := bin
		if key == "" {
			sum := sha256.Sum256(rules.Projects)
			key = hex.EncodeToString(sum[:])
		}
		cache = filepath.Join(cacheDir, "projects-"+key[:16]+".bin")
		if data, err := store.LoadCache(cache, projectsKind, projectsVersion); err == nil {
			if f, ok := decodeFavours(data); ok && len(f) > 0 {
				return f, nil
			}
		}
	}
	f, err := sctx.ParseProjectFavours(rules.ProjectsName, rules.Projects)
	if err != nil {
		return nil, err
	}
	if cache != "" {
		_ = store.WriteCache(cache, projectsKind, projectsVersion, encodeFavours(f)) // a cache that cannot be written is only slower
	}
	return f, nil
}

// The cached project table's kind and format version in its store frame.
const (
	projectsKind    = "projects"
	projectsVersion = 2 // 1 was JSON
)

// encodeFavours writes a project table as counted fields: uvarint counts
// and lengths, weights as their float64 bits.
func encodeFavours(f sctx.ProjectFavours) []byte {
	var b []byte
	str := func(s string) { b = append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	b = binary.AppendUvarint(b, uint64(len(f)))
	for _, t := range slices.Sorted(maps.Keys(f)) {
		str(t)
		b = binary.AppendUvarint(b, uint64(len(f[t])))
		for _, skill := range slices.Sorted(maps.Keys(f[t])) {
			str(skill)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f[t][skill]))
		}
	}
	return b
}

// decodeFavours reads what encodeFavours wrote; false for anything else.
func decodeFavours(b []byte) (sctx.ProjectFavours, bool) {
	ok := true
	num := func() int {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > uint64(len(b)) {
			ok, b = false, nil
			return 0
		}
		b = b[n:]
		return int(v)
	}
	str := func() string {
		n := num()
		if n > len(b) {
			ok, b = false, nil
			return ""
		}
		s := string(b[:n])
		b = b[n:]
		return s
	}
	types := num()
	f := make(sctx.ProjectFavours, types)
	for range types {
		t, skills := str(), num()
		if !ok {
			break
		}
		favoured := make(map[string]float64, skills)
		for range skills {
			skill := str()
			if !ok || len(b) < 8 {
				return nil, false
			}
			favoured[skill] = math.Float64frombits(binary.LittleEndian.Uint64(b))
			b = b[8:]
		}
		f[t] = favoured
	}
	ok = ok && len(b) == 0
	return f, ok
}

// LoadRules reads the rules file of cfg.Rules ("" or "builtin" for the
// default) and checks it against the index's skills. With a cache folder,
// a file already checked against the same skill names, by the same
// binary, is loaded from the cache instead: a skill edited but not renamed
// leaves it as it was (parsing the built-in rules was a twentieth of a
// recompile of 10,000 skills).
func LoadRules(cfg Config, ix *index.Index) (*disambig.Set, error) {
	return loadRules(cfg, ix, binaryStamp(cfg))
}

// loadRules is LoadRules with the binary's stamp taken (binaryStamp).
func loadRules(cfg Config, ix *index.Index, bin string) (*disambig.Set, error) {
	path, warn := cfg.Rules, cfg.Warn
	name, data := rules.DisambiguationName, rules.Disambiguation
	if path != "" && path != Builtin {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
		name = path
	}
	var cache string
	if cfg.CacheDir != "" {
		// The binary's stamp covers the built-in rules, which are part of
		// it, and the code that checks them; without one (tests, library
		// use), the index's stamp does, which covers the catalog too.
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00", name)
		if cfg.Binary != "" {
			fmt.Fprintf(h, "binary %s\x00", bin)
		} else {
			fmt.Fprintf(h, "%s\x00%s\x00", ix.SourceHash, ix.Stamp)
		}
		fmt.Fprintf(h, "names %s\x00", ix.NamesHash)
		if name != rules.DisambiguationName {
			h.Write(data)
		}
		cache = filepath.Join(cfg.CacheDir, "rules-"+hex.EncodeToString(h.Sum(nil))[:16]+".bin")
		if set, problems, err := disambig.LoadCached(cache); err == nil {
			warnProblems(warn, name, set.Read, problems)
			return set, nil
		}
	}
	// A user's rules must name skills of the catalog; the built-in ones
	// are fitted to whatever is installed.
	known := func(s string) bool { return ix.Resolve(s) >= 0 }
	if name == rules.DisambiguationName {
		known = func(string) bool { return true }
	}
	parse := disambig.Parse
	if bookworm.Is(name, data) {
		parse = bookworm.Rules
	}
	set, problems, err := parse(name, data, known)
	if err != nil {
		return nil, err
	}
	set.Restrict(func(s string) (string, bool) {
		if id := ix.Resolve(s); id >= 0 {
			return ix.Skills.Name(id), true
		}
		return "", false
	})
	warnProblems(warn, name, set.Read, problems)
	if cache != "" {
		_ = set.Save(cache, problems) // a cache that cannot be written is only slower
	}
	return set, nil
}

// warnProblems says, in one line, how many of the file's rules are not
// usable here as written: rules counted, not problems.
func warnProblems(warn io.Writer, name string, read int, problems []disambig.Problem) {
	if warn != nil && len(problems) > 0 {
		fmt.Fprintf(warn, "warning: %s: %s (first problem: %s; `skillroute rules lint` lists them)\n", name, disambig.Summary(read, problems), problems[0].Error())
	}
}

// emptyCatalog is the error of a catalog without a skill, naming where
// it looked: a folder given one level off (a plugin's root, ~/.claude)
// is otherwise not told from an empty one.
func emptyCatalog(cfg Config) error {
	switch {
	case cfg.Catalog == "" || cfg.Catalog == Installed || cfg.Catalog == Builtin:
		var dirs []string
		for _, d := range cfg.Places.Dirs() {
			dirs = append(dirs, d.Path)
		}
		if len(dirs) == 0 {
			return errors.New("catalog has no skills")
		}
		return fmt.Errorf("catalog has no skills (looked in %s)", strings.Join(dirs, ", "))
	case bookworm.Is(cfg.Catalog, nil):
		return fmt.Errorf("catalog %s has no skills", cfg.Catalog)
	}
	return fmt.Errorf("catalog %s has no skills: it holds no DIR/NAME/SKILL.md", cfg.Catalog)
}

// sources are the bytes an index is compiled from.
type sources struct {
	catalog  *skills.Catalog
	synonyms *tokenize.Synonyms
	glossary *tokenize.GlossaryFile
}

// readSources reads the sources, the skills' headers through fc (nil:
// every one parsed).
func readSources(cfg Config, fc *skills.FrontCache) (sources, error) {
	var src sources
	var err error
	switch cfg.Catalog {
	case "", Installed:
		var warnings []error
		src.catalog, warnings, err = skills.DiscoverCached(cfg.Places, cfg.Catalog == "", fc)
		for _, w := range warnings {
			if cfg.Warn != nil {
				fmt.Fprintf(cfg.Warn, "warning: skill left out: %v\n", w)
			}
		}
	case Builtin:
		src.catalog, err = skills.Builtin()
	default:
		if bookworm.Is(cfg.Catalog, nil) {
			src.catalog, err = bookworm.Catalog(cfg.Catalog)
		} else {
			src.catalog, err = skills.LoadCached(cfg.Catalog, fc)
		}
	}
	if err != nil {
		return src, err
	}
	if len(src.catalog.Skills) == 0 {
		return src, emptyCatalog(cfg)
	}
	if cfg.Warn != nil {
		for i := range src.catalog.Skills {
			if r := src.catalog.Skills[i].Repaired; r != nil {
				fmt.Fprintf(cfg.Warn, "warning: %v\n", r)
			}
		}
	}
	name, data := rules.SynonymsName, rules.Synonyms
	if cfg.Synonyms != "" && cfg.Synonyms != Builtin {
		if data, err = os.ReadFile(cfg.Synonyms); err != nil {
			return src, fmt.Errorf("synonyms: %w", err)
		}
		name = cfg.Synonyms
	}
	parseSynonyms := tokenize.ParseSynonyms
	if bookworm.Is(name, data) {
		parseSynonyms = bookworm.Synonyms
	}
	if src.synonyms, err = parseSynonyms(name, data); err != nil {
		return src, err
	}
	switch cfg.Glossary {
	case NoGlossary:
		return src, nil
	case "", Builtin:
		name, data = rules.GlossaryName, rules.Glossary
	default:
		if data, err = os.ReadFile(cfg.Glossary); err != nil {
			return src, fmt.Errorf("glossary: %w", err)
		}
		name = cfg.Glossary
	}
	src.glossary, err = tokenize.ParseGlossary(name, data)
	return src, err
}
