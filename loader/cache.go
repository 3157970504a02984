package loader

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillroute/skillroute/bookworm"
	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/internal/parallel"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
)

// How a cached index is found and kept current without a stat per skill
// per prompt (at 10,000 skills the old full check cost 45 ms of a 59 ms
// hook call).
//
// The cache file is named by a quick stamp: the format, the binary, the
// synonyms, the glossary, and the folders skills live in (their modification times
// change when a skill folder is added or removed), never the files inside
// them. The index itself carries the full stamp, which covers every
// SKILL.md, and its file's modification time is set to when its compile
// began (Built). A skill edited in place leaves the quick stamp as it
// was; it is caught three ways:
//
//   - after each prompt the hook checks the files of the skills it is
//     about to name (Changed: one stat each) against Built;
//   - at SessionStart, and in doctor and compile, the full stamp is
//     compared (Fresh);
//   - either starts a compile in the background, which replaces the cache
//     file under the same name; prompts meanwhile route with the old one.
//
// When a folder changes (a skill added or removed) the quick stamp moves
// and no index matches it yet: the last index compiled for the same
// catalog (named in a latest-* pointer file) is used meanwhile, so the
// hook is never silent for the length of a compile, and Config.OnStale
// tells the caller to start one.

// cacheKeep is how many compiled files of each kind the cache keeps: one
// per catalog and rules file in use, with room for a few, the oldest going
// first, so rebuilt binaries and edited files do not pile up.
const cacheKeep = 8

// OpenIndex returns the compiled index for the configuration: from the
// cache when one matches its quick stamp (or, while that one compiles, the
// last one of the same catalog, see Config.OnStale), else compiled afresh
// and cached, when a cache folder is given.
func OpenIndex(cfg Config) (*index.Index, error) {
	quick, err := Stamp(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.CacheDir != "" {
		if ix, err := loadIndex(indexFile(cfg, quick)); err == nil && (!cfg.CheckFiles || Fresh(cfg, ix)) {
			return ix, nil
		}
		if cfg.OnStale != nil {
			if prev, err := os.ReadFile(latestFile(cfg)); err == nil {
				if ix, err := loadIndex(filepath.Join(cfg.CacheDir, filepath.Base(string(prev)))); err == nil {
					cfg.OnStale()
					return ix, nil
				}
			}
		}
	}
	return compile(cfg, quick)
}

// Compile compiles the index for the configuration, whatever the cache
// holds, and caches it when a cache folder is given.
func Compile(cfg Config) (*index.Index, error) {
	quick, err := Stamp(cfg)
	if err != nil {
		return nil, err
	}
	return compile(cfg, quick)
}

// Stamps are a configuration's quick and full stamps, taken once: a
// compile that first asks whether the cache is current (Current) then
// compiles from the same stamps, not statting every skill file twice.
type Stamps struct {
	quick, full string
	taken       time.Time // before the files were statted: what a compile from them is dated
	// The skill folders and files as the full stamp saw them: the
	// compile reads the files' sizes and times, and the folders' names,
	// from here (skills.FrontCache.Stats, Listings).
	seen *seen
	// The frontmatter cache a compile from the stamps reads the skills
	// through, loaded while the files were statted (takeFull).
	fronts *preload
}

// preload is a frontmatter cache loaded on a goroutine of its own, for
// the first compile that asks for it.
type preload struct {
	path, ident string
	done        chan struct{}
	fc          *skills.FrontCache
	taken       atomic.Bool
}

// seen is what a full stamp saw of the skill folders: each SKILL.md's
// size and modification time, by path, and each folder's names, sorted.
type seen struct {
	files map[string]skills.FileStat
	dirs  map[string][]string
}

// TakeStamps takes a configuration's stamps.
func TakeStamps(cfg Config) (Stamps, error) {
	st := Stamps{taken: time.Now()}
	var err error
	if st.quick, err = Stamp(cfg); err != nil {
		return st, err
	}
	err = st.takeFull(cfg)
	return st, err
}

// takeFull takes st's full stamp. Meanwhile, when a compile from it
// reads skill files, the frontmatter cache they are read through is
// loaded on another goroutine (frontCache): at 100,000 skills both take
// a core, the stamp for 0.4 s, the cache for 0.2, one after the other
// before. When no compile follows (Current), the load was for nothing.
func (st *Stamps) takeFull(cfg Config) (err error) {
	if cfg.CacheDir != "" && readsSkillFiles(cfg) {
		p := &preload{path: frontFile(cfg), ident: binaryStamp(cfg), done: make(chan struct{})}
		go func() {
			defer close(p.done)
			p.fc = skills.LoadFrontCache(p.path, p.ident)
		}()
		st.fronts = p
	}
	st.full, st.seen, err = fullStamp(cfg)
	return err
}

// frontCache returns the frontmatter cache of cfg: the one loaded beside
// st's stamps (takeFull) for the first compile from them, else loaded
// now. Each compile reads and saves a cache of its own.
func (st Stamps) frontCache(cfg Config) *skills.FrontCache {
	path, ident := frontFile(cfg), binaryStamp(cfg)
	if p := st.fronts; p != nil && p.path == path && p.ident == ident && p.taken.CompareAndSwap(false, true) {
		<-p.done
		return p.fc
	}
	return skills.LoadFrontCache(path, ident)
}

// Current reports whether the cache folder holds the index of the
// sources as st saw them, reading only its file's head
// (index.ReadStamp): deciding that a changed catalog is to be compiled
// loads no index.
func Current(cfg Config, st Stamps) bool {
	if cfg.CacheDir == "" || st.quick == "" {
		return false
	}
	stamp, err := index.ReadStamp(indexFile(cfg, st.quick))
	return err == nil && stamp == st.full
}

// compile is Compile with the configuration's quick stamp already taken.
func compile(cfg Config, quick string) (*index.Index, error) {
	st := Stamps{quick: quick, taken: time.Now()}
	if err := st.takeFull(cfg); err != nil {
		return nil, err
	}
	return CompileStamped(cfg, st)
}

// compileStamped compiles from the stamps st.
func CompileStamped(cfg Config, st Stamps) (*index.Index, error) {
	if cfg.OnCompile != nil {
		cfg.OnCompile()
	}
	began, quick, full := st.taken, st.quick, st.full
	var err error
	defer index.TightGC()() // reading the catalog makes as much garbage as compiling it
	var fronts *skills.FrontCache
	if cfg.CacheDir != "" && readsSkillFiles(cfg) {
		// Each skill's parsed frontmatter, by its YAML text
		// (skills.FrontCache): after one edit, at most that header is
		// parsed again.
		fronts = st.frontCache(cfg)
		fronts.ReadAll = cfg.ReadAll
		if st.seen != nil {
			fronts.Stats, fronts.Listings = st.seen.files, st.seen.dirs
		}
	}
	// Making skills from cached headers makes next to no garbage: what
	// the heap grows by is the catalog, live until compiled. The
	// collector is paused while it is made, unless files are read
	// (parsed) past readsGarbage; at 100,000 skills it otherwise ran
	// about ten cycles over a heap growing to 310 MB, freeing almost
	// nothing, with one of the two cores its own while it marked.
	resume := func() {}
	if fronts != nil && !cfg.ReadAll && fronts.Loaded() {
		resume = index.PauseGC()
		fronts.OnReads, fronts.ReadsNoted = resume, readsGarbage
	}
	src, err := readSources(cfg, fronts)
	resume()
	if err != nil {
		return nil, err
	}
	// The headers are cached while the index compiles, and let go: at
	// 100,000 skills they hold 7 million keyword strings beside the
	// catalog's own.
	var cached sync.WaitGroup
	if fronts != nil {
		save := fronts
		cached.Go(func() {
			if err := save.Save(frontFile(cfg)); err != nil && cfg.Warn != nil {
				fmt.Fprintf(cfg.Warn, "warning: cannot cache the skills' headers: %v\n", err)
			}
			save.Release()
		})
		fronts = nil
	}
	n := len(src.catalog.Skills)
	// Compile empties the skills it is done with (src is not used again),
	// but those Calibrate reads: a catalog of 100,000 skills is half a
	// gigabyte beside its postings. Their bodies are read now if the
	// frontmatter cache left them unread: before the compile takes their
	// sums.
	sampled, per := router.Sample(src.catalog.Names())
	kept := make([]bool, n)
	parallel.For(len(sampled), 16, func(k int) {
		kept[sampled[k]] = true
		_ = src.catalog.Skills[sampled[k]].ReadBody() // one that cannot be read is calibrated without
	})
	opt := index.Options{DeriveKeywords: cfg.DeriveKeywords, Glossary: src.glossary, Release: true, Keep: func(i int) bool { return kept[i] }}
	if cfg.CacheDir != "" {
		// The words of every skill whose text did not change since the
		// last compile of this kind of catalog (index.CutCache): after one
		// edit, only that skill is cut again.
		opt.Cuts = index.LoadCutCache(cutsFile(cfg), binaryStamp(cfg))
		// And the last index of this kind of catalog, with its skills'
		// sums: the postings of the terms no changed skill uses are
		// copied from it (index.Previous).
		if last, err := os.ReadFile(latestFile(cfg)); err == nil {
			if prev, err := index.LoadPrevious(filepath.Join(cfg.CacheDir, filepath.Base(string(last))), sumsFile(cfg)); err == nil {
				opt.Previous = prev
			}
		}
	}
	ix := index.Compile(src.catalog, src.synonyms, opt)
	opt.Previous = nil
	// The skills' words are cached while calibration runs, and let go
	// before the index is written: at 100,000 skills they are 215 MB.
	if opt.Cuts != nil {
		save := opt.Cuts
		cached.Go(func() {
			if err := save.Save(cutsFile(cfg)); err != nil && cfg.Warn != nil {
				fmt.Fprintf(cfg.Warn, "warning: cannot cache the skills' words: %v\n", err)
			}
		})
		opt.Cuts = nil
	}
	ix.Stamp = full
	ix.Built = began
	// The index is written while its calibration is measured, which is
	// written last (index.SaveCacheLate), once the caches are: each file
	// written is read back whole (store.WriteCacheStream), and a cold
	// compile's caches are 200 MB at 100,000 skills, better not mapped
	// beside the index's 320. After an edit the caches write deltas, and
	// are done at once.
	path := indexFile(cfg, quick)
	var saved sync.WaitGroup
	cal := make(chan index.Calibration, 1)
	if cfg.CacheDir != "" {
		saved.Go(func() {
			cached.Wait()
			err = ix.SaveCacheLate(path, cal)
		})
	}
	// Each catalog's abstain and HIGH lines, measured once here and kept
	// in the index (router.Calibrate).
	calibration := router.CalibrateSample(ix, sampled, per, func(i int) (string, string) {
		s := &src.catalog.Skills[i]
		return s.Text(), s.Body
	})
	cal <- calibration
	saved.Wait()
	ix.Calibration = calibration
	cached.Wait()
	if cfg.CacheDir == "" {
		return ix, nil
	}
	if errors.Is(err, index.ErrLateCalibration) {
		err = ix.SaveCache(path)
	}
	if err == nil {
		// The file's time is when the sources were read: a skill saved
		// during the compile is newer than it, and Changed sees it. The
		// write's verification stands (store.Retime).
		err = store.Retime(path, began)
	}
	if err == nil {
		// The sums first: a sums file is used only with the index it was
		// written beside (its source hash), which latest names.
		if err := ix.SaveSums(sumsFile(cfg)); err != nil && cfg.Warn != nil {
			fmt.Fprintf(cfg.Warn, "warning: cannot cache the skills' sums: %v\n", err)
		}
		err = store.WriteFile(latestFile(cfg), []byte(filepath.Base(path)))
	}
	if err != nil && cfg.MustCache {
		return nil, fmt.Errorf("cannot cache index in %s: %w", cfg.CacheDir, err)
	}
	if err != nil && cfg.Warn != nil {
		fmt.Fprintf(cfg.Warn, "warning: cannot cache index: %v\n", err)
	}
	pruneCache(cfg.CacheDir)
	return ix, nil
}

// readsGarbage is how many skill files a load may read and parse with
// the collector paused (index.PauseGC): parsing a header and copying its body
// leaves some tens of kilobytes of garbage per file, a few megabytes in
// all, against the catalog's hundreds that the load keeps.
const readsGarbage = 256

// loadIndex loads a cached index and dates it by its file.
func loadIndex(path string) (*index.Index, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	ix, err := index.Load(path)
	if err != nil {
		return nil, err
	}
	ix.Built = info.ModTime()
	return ix, nil
}

// Cached reports whether an index matching the configuration's quick
// stamp is in the cache folder (it may be older than an edit to a skill
// file, which Fresh and Changed tell).
func Cached(cfg Config) bool {
	quick, err := Stamp(cfg)
	if err != nil || cfg.CacheDir == "" {
		return false
	}
	_, err = os.Stat(indexFile(cfg, quick))
	return err == nil
}

// Fresh reports whether ix was compiled from the sources as they are now:
// its full stamp, which covers every skill file, is the current one. It
// stats every skill file, so the hook calls it only at SessionStart.
func Fresh(cfg Config, ix *index.Index) bool {
	full, err := FullStamp(cfg)
	return err == nil && full == ix.Stamp
}

// Changed returns those of the named skills whose file is missing or was
// modified after ix was built: one stat per name. The built-in skills,
// part of the binary, never are.
func Changed(ix *index.Index, names ...string) []string {
	var out []string
	for _, name := range names {
		id := ix.Resolve(name)
		if id < 0 {
			continue
		}
		src := ix.Skills.Source(id)
		if filepath.Base(src) != "SKILL.md" {
			// Embedded ("builtin:NAME"), or an entry of a catalog file
			// the quick stamp covers ("FILE#NAME"). Told apart by what a
			// skill file is called, not by a "#", which a folder's name
			// may hold (c#-helper).
			continue
		}
		if info, err := os.Stat(src); err != nil || info.ModTime().After(ix.Built) {
			out = append(out, name)
		}
	}
	return out
}

// indexFile is the cache file of the index for a quick stamp.
func indexFile(cfg Config, quick string) string {
	return filepath.Join(cfg.CacheDir, "index-"+quick[:16]+".bin")
}

// latestFile names the file that holds the name of the last index
// compiled for this kind of catalog, whatever its skills and wherever they
// were found: what OpenIndex uses while a changed catalog compiles. A
// session in a new project folder thus starts with the index of the
// user's own skills (what `install` compiled) instead of compiling on the
// prompt's clock; the project's skills join when the compile lands.
func latestFile(cfg Config) string {
	return filepath.Join(cfg.CacheDir, "latest-"+catalogKind(cfg))
}

// catalogKind names a kind of catalog: its options and the binary.
func catalogKind(cfg Config) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%v\x00%s", cfg.Catalog, cfg.Synonyms, cfg.Glossary, cfg.DeriveKeywords, cfg.Binary)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// cutsFile names the cut cache of a kind of catalog (index.CutCache):
// one per kind, rewritten by each compile with the words of its skills.
func cutsFile(cfg Config) string {
	return filepath.Join(cfg.CacheDir, "cuts-"+catalogKind(cfg)+".bin")
}

// sumsFile names the skill sums of the last compile of a kind of catalog
// (index.Index.SaveSums), which tell the next compile what changed.
func sumsFile(cfg Config) string {
	return filepath.Join(cfg.CacheDir, "sums-"+catalogKind(cfg)+".bin")
}

// readsSkillFiles reports whether the configuration's catalog is read
// from SKILL.md files (a skills folder, or Claude Code's places), whose
// headers the frontmatter cache keeps: not the built-in skills nor a
// bookworm catalog file.
func readsSkillFiles(cfg Config) bool {
	switch cfg.Catalog {
	case "", Installed:
		return true
	case Builtin:
		return false
	}
	return !bookworm.Is(cfg.Catalog, nil)
}

// frontFile names the frontmatter cache of a kind of catalog
// (skills.FrontCache), rewritten by each compile like the cut cache.
func frontFile(cfg Config) string {
	return filepath.Join(cfg.CacheDir, "front-"+catalogKind(cfg)+".bin")
}

// binaryStamp identifies the binary that cuts text (its path, size and
// time), for the cut cache: a rebuilt binary may cut differently.
func binaryStamp(cfg Config) string {
	if cfg.Binary == "" {
		return ""
	}
	h := sha256.New()
	_ = stampPath(h, cfg.Binary, nil)
	return hex.EncodeToString(h.Sum(nil))
}

// Stamp is the quick stamp of a configuration's sources: the format and
// options, the binary (a rebuilt compiler may cut text differently, and
// it embeds the built-in data), the synonyms, the glossary, and the
// folders skills are read from, not the files in them. See the notes at the top of this file.
func Stamp(cfg Config) (string, error) {
	h := sha256.New()
	if err := stampSources(h, cfg, nil); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FullStamp is Stamp with every skill file's path, size and modification
// time: it changes whenever a source does.
func FullStamp(cfg Config) (string, error) {
	full, _, err := fullStamp(cfg)
	return full, err
}

// fullStamp is FullStamp, with what it saw of the skill folders.
func fullStamp(cfg Config) (string, *seen, error) {
	h := sha256.New()
	s := &seen{files: map[string]skills.FileStat{}, dirs: map[string][]string{}}
	if err := stampSources(h, cfg, s); err != nil {
		return "", nil, err
	}
	return hex.EncodeToString(h.Sum(nil)), s, nil
}

// stampSources writes what the stamps cover to h; with files set (the
// full stamp), every skill file too, and keeps what it saw of them in
// it.
func stampSources(h hash.Hash, cfg Config, files *seen) error {
	fmt.Fprintf(h, "format %d derive %v\n", index.FormatVersion, cfg.DeriveKeywords)
	if cfg.Binary != "" {
		_ = stampPath(h, cfg.Binary, nil)
	}
	if cfg.Catalog == "" || cfg.Catalog == Installed {
		for _, d := range cfg.Places.Dirs() {
			if err := stampPath(h, d.Path, files); err != nil {
				fmt.Fprintf(h, "%s missing\n", d.Path)
			}
		}
		// The settings say which plugins are enabled and which skills
		// the model may not invoke (skills.Visibility).
		for _, f := range cfg.Places.SettingsFiles() {
			if err := stampPath(h, f, nil); err != nil {
				fmt.Fprintf(h, "%s missing\n", f)
			}
		}
	}
	if cfg.Catalog == "" || cfg.Catalog == Builtin {
		// Inside the binary, whose stamp covers them; hashed when there is
		// no binary to stamp (tests, library use).
		if cfg.Binary == "" || files != nil {
			stamped, err := skills.BuiltinFiles()
			if err != nil {
				return err
			}
			for _, name := range slices.Sorted(maps.Keys(stamped)) {
				fmt.Fprintf(h, "builtin %s %d\n", name, len(stamped[name]))
				h.Write(stamped[name])
			}
		}
	} else if cfg.Catalog != Installed {
		if err := stampPath(h, cfg.Catalog, files); err != nil {
			return fmt.Errorf("catalog: %w", err)
		}
	}
	if cfg.Synonyms == "" || cfg.Synonyms == Builtin {
		// Inside the binary too: hashing its 150 KB was 3 % of a hook
		// process (perf record of 200 prompt events at 50 skills).
		if cfg.Binary == "" || files != nil {
			fmt.Fprintf(h, "builtin synonyms %d\n", len(rules.Synonyms))
			h.Write(rules.Synonyms)
		}
	} else if err := stampPath(h, cfg.Synonyms, nil); err != nil {
		return fmt.Errorf("synonyms: %w", err)
	}
	switch cfg.Glossary {
	case "", Builtin:
		// Inside the binary, like the built-in skills: 33 KB not hashed
		// on every hook call.
		if cfg.Binary == "" || files != nil {
			fmt.Fprintf(h, "builtin glossary %d\n", len(rules.Glossary))
			h.Write(rules.Glossary)
		}
	case NoGlossary:
		fmt.Fprintf(h, "no glossary\n")
	default:
		if err := stampPath(h, cfg.Glossary, nil); err != nil {
			return fmt.Errorf("glossary: %w", err)
		}
	}
	return nil
}

// stampPath writes a file's or folder's path, size and modification time,
// and with files set, those of every DIR/NAME/SKILL.md in a folder, which
// it keeps in files, with the folder's names. The files are stat'ed on
// every core (at 100,000 skills, one after the other, the stamp took most
// of a second), and written in folder order.
func stampPath(w io.Writer, path string, files *seen) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	fmt.Fprintf(w, "%s %d %d\n", abs, info.Size(), info.ModTime().UnixNano())
	if !info.IsDir() || files == nil {
		return nil
	}
	names, err := skills.ReadDirNames(path)
	if err != nil {
		return err
	}
	files.dirs[path] = names
	type stat struct {
		path string
		st   skills.FileStat
		ok   bool
	}
	stats := make([]stat, len(names))
	parallel.For(len(names), 256, func(i int) {
		p := filepath.Join(path, names[i], "SKILL.md")
		if fi, err := os.Stat(p); err == nil {
			stats[i] = stat{p, skills.FileStat{Size: fi.Size(), ModTime: fi.ModTime().UnixNano()}, fi.Mode().IsRegular()}
		}
	})
	var line []byte
	for _, s := range stats {
		if s.path == "" {
			continue
		}
		line = append(append(line[:0], s.path...), ' ')
		line = strconv.AppendInt(line, s.st.Size, 10)
		line = append(line, ' ')
		line = strconv.AppendInt(line, s.st.ModTime, 10)
		w.Write(append(line, '\n'))
		if s.ok {
			files.files[s.path] = s.st
		}
	}
	return nil
}

func pruneCache(dir string) {
	for _, pattern := range []string{"index-*.bin", "rules-*.bin", "cuts-*.bin", "front-*.bin", "sums-*.bin", "projects-*.bin", "cuts-*.bin.delta", "front-*.bin.delta"} {
		store.PruneCaches(dir, pattern, cacheKeep)
	}
}
