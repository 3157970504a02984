package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"

	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/store"
)

// dataFlags are the flags that choose the router's data.
type dataFlags struct {
	catalog, rules, synonyms string
	derive                   bool
}

func (d *dataFlags) register(fs *flag.FlagSet, withRules bool) {
	fs.StringVar(&d.catalog, "catalog", "", "skills folder (DIR/NAME/SKILL.md), bookworm skills-index.json, \"builtin\", or \"installed\" (what Claude Code loads; default: the built-in skills merged with yours)")
	fs.StringVar(&d.synonyms, "synonyms", "", "synonym file, our YAML or bookworm synonyms.json (default: built-in)")
	if withRules {
		fs.StringVar(&d.rules, "rules", "", "disambiguation rules, our YAML or bookworm JSON (default: built-in)")
	}
}

func (d *dataFlags) options(stderr io.Writer) router.Options {
	return router.Options{
		Catalog: d.catalog, Rules: d.rules, Synonyms: d.synonyms,
		DeriveKeywords: d.derive, CacheDir: cacheDir(), LearnDir: stateDir(), Warn: stderr,
	}
}

// stateDir is where skillroute keeps its files (store.DefaultDir).
func stateDir() string {
	home, _ := os.UserHomeDir()
	return store.DefaultDir(os.Getenv, home)
}

func cacheDir() string { return cacheDirIn(stateDir()) }

func cacheDirIn(dir string) string { return filepath.Join(dir, "cache") }

// hookOptions are the options for the commands that must see the catalog
// the hook sees (correct, learn, calibrate): what they record and learn is
// keyed by skill names, and the hook routes the skills Claude Code loads.
// When nothing is installed, the default catalog stands in.
func (d *dataFlags) hookOptions(stderr io.Writer) router.Options {
	opt := d.options(stderr)
	if d.catalog == "" {
		opt.Catalog = router.Installed
		if _, err := router.OpenIndex(opt); err != nil {
			opt.Catalog = ""
		}
	}
	return opt
}
