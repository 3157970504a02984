package rules_test

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/tokenize"
)

// TestSynonymGroupsKeepTheFileRules checks the rules synonyms.yaml states
// for its editors: a word sits in one group only (expansion is one hop,
// so a word in two groups would join meanings the file keeps apart),
// and every group has a unique id and a note saying what it means.
func TestSynonymGroupsKeepTheFileRules(t *testing.T) {
	var f struct {
		Groups []struct {
			ID    string   `yaml:"id"`
			Note  string   `yaml:"note"`
			Words []string `yaml:"words"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(rules.Synonyms, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Groups) < 100 {
		t.Fatalf("read %d groups; the file has more than a thousand", len(f.Groups))
	}
	group := map[string]string{}
	ids := map[string]bool{}
	for _, g := range f.Groups {
		if g.ID == "" || strings.TrimSpace(g.Note) == "" {
			t.Errorf("group %q (words %v) needs an id and a note", g.ID, g.Words)
		}
		if ids[g.ID] {
			t.Errorf("group id %q is used twice", g.ID)
		}
		ids[g.ID] = true
		for _, w := range g.Words {
			w = strings.ToLower(strings.TrimSpace(w))
			if other, ok := group[w]; ok && other != g.ID {
				t.Errorf("%q is in groups %s and %s", w, other, g.ID)
			}
			group[w] = g.ID
		}
	}
}

// TestSynonymWordsMeetPrompts: every word of synonyms.yaml, typed as a
// prompt, is read as that word, so that it can expand at all. A phrase
// that starts or ends with a stop word, or longer than the tokenizer's
// phrases, never is; nor, until words of both scripts were read across
// the change of script (tokenize/mixed.go), was "sql注入".
func TestSynonymWordsMeetPrompts(t *testing.T) {
	syn, err := tokenize.ParseSynonyms(rules.SynonymsName, rules.Synonyms)
	if err != nil {
		t.Fatal(err)
	}
	words := syn.WordList()
	tok := tokenize.New(words, syn)
	dead := 0
	for _, w := range words {
		want := tokenize.ReadAs(w)
		found := false
		for _, term := range tok.Tokenize(w).Terms {
			if term.Text == want && term.From == "" {
				found = true
				break
			}
		}
		if !found {
			dead++
			t.Errorf("%q is never read from a prompt (want term %q)", w, want)
		}
	}
	t.Logf("%d words, %d never read", len(words), dead)
}
