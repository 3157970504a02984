package index

import (
	"regexp"
	"strings"
	"sync"

	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// Most skills users have carry only a name and a description. For them the
// index derives keyword tiers from the text, with the same tokenizer that
// cuts prompts:
//
//   - core: the phrases the author quoted as triggers ("page loads slowly",
//     「接口很慢」) and the words of the skill's name;
//   - strong: description words that few other skills' descriptions use;
//   - extended: the remaining description words.

// distinctiveShare is the largest share of the catalog whose descriptions
// may use a word for it to count as distinctive (strong). One in ten: a
// word shared by a handful of neighbours still tells them from the rest.
const distinctiveShare = 0.1

// genericNameWords are name parts that say nothing about the task.
var genericNameWords = map[string]bool{
	"expert": true, "pro": true, "skill": true, "specialist": true, "master": true,
	"wizard": true, "helper": true, "assistant": true, "guardian": true, "builder": true,
}

// quotedRE finds quoted trigger phrases in ASCII, typographic or CJK quotes.
// Compiled on first use: only compilation needs it, and its bounded
// repetitions made it the costliest start-up work of the hook (0.36 ms).
var quotedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("\"([^\"\n]{2,60})\"|“([^”\n]{2,60})”|「([^」\n]{2,60})」|『([^』\n]{2,60})』|`([^`\n]{2,60})`")
})

type deriver struct {
	tok     *tokenize.Tokenizer
	df      map[string]int
	maxDF   int
	nSkills int
}

func newDeriver(cat *skills.Catalog, tok *tokenize.Tokenizer) *deriver {
	d := &deriver{tok: tok, df: map[string]int{}, nSkills: len(cat.Skills)}
	for i := range cat.Skills {
		seen := map[string]bool{}
		for _, w := range tok.Words(descriptionText(&cat.Skills[i])) {
			if !seen[w] {
				seen[w] = true
				d.df[w]++
			}
		}
	}
	d.maxDF = max(1, int(distinctiveShare*float64(len(cat.Skills))))
	return d
}

func descriptionText(s *skills.Skill) string {
	return s.Description + "\n" + s.WhenToUse
}

// derive returns keyword tiers for a skill from its name and description,
// cutting text with tok (the deriver's own, or a worker's copy of it).
func (d *deriver) derive(tok *tokenize.Tokenizer, s *skills.Skill) []skills.Keyword {
	var out []skills.Keyword
	seen := map[string]bool{}
	// Keywords are returned normalised, as the index stores them:
	// Normalize is not idempotent (Porter2 of a stem may cut again), so
	// words that come from the tokenizer must not pass through it twice.
	add := func(norm string, tier skills.Tier) {
		if norm == "" || seen[norm] {
			return
		}
		seen[norm] = true
		out = append(out, skills.Keyword{Text: norm, Tier: tier, Weight: tier.Weight()})
	}
	text := descriptionText(s)
	for _, part := range strings.FieldsFunc(strings.ToLower(s.Name), func(r rune) bool {
		return r == '-' || r == '_' || r == ':' || r == ' '
	}) {
		if len(part) > 1 && !genericNameWords[part] {
			add(tokenize.Normalize(part), skills.Core)
		}
	}
	for _, m := range quotedRE().FindAllStringSubmatch(text, -1) {
		for _, g := range m[1:] {
			if g = strings.TrimSpace(g); g != "" {
				add(tokenize.Normalize(g), skills.Core)
				// A long quoted phrase rarely recurs whole: its words count too.
				for _, w := range tok.Words(g) {
					add(w, skills.Strong)
				}
			}
		}
	}
	for _, w := range tok.Words(text) {
		if d.df[w] <= d.maxDF {
			add(w, skills.Strong)
		} else {
			add(w, skills.Extended)
		}
	}
	return out
}
