package tokenize_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/internal/table"
	"github.com/skillroute/skillroute/tokenize"
)

// terms returns the query's terms by text.
func terms(q tokenize.Query) map[string]tokenize.Term {
	out := make(map[string]tokenize.Term, len(q.Terms))
	for _, t := range q.Terms {
		out[t.Text] = t
	}
	return out
}

// texts returns the query's term texts in order.
func texts(q tokenize.Query) []string {
	out := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		out[i] = t.Text
	}
	return out
}

// TestTokenizeTerms protects the basic cut of Chinese, English and mixed
// prompts: the words a user types come back as the terms the index stores.
func TestTokenizeTerms(t *testing.T) {
	dict := []string{"页面", "加载", "慢", "数据库", "存储", "库存", "缓存"}
	tests := []struct {
		name    string
		prompt  string
		want    []string // all of these terms
		exclude []string // none of these terms
	}{
		{
			name:   "mixed Chinese and English",
			prompt: "React 页面加载慢",
			want:   []string{"react", "页面", "加载", "慢"},
		},
		{
			name:    "dictionary words win over windows",
			prompt:  "数据库存储",
			want:    []string{"数据库", "存储"},
			exclude: []string{"库存", "据库", "数据"},
		},
		{
			name:   "windows over text the dictionary lacks",
			prompt: "数据库索引失效",
			want:   []string{"数据库", "索引", "索引失效", "失效", "引失"},
		},
		{
			name:    "particles do not start windows",
			prompt:  "帮我优化",
			want:    []string{"优化"},
			exclude: []string{"帮我", "我优", "帮我优化"},
		},
		{
			name:    "filler words are no terms",
			prompt:  "有没有办法",
			want:    []string{"办法"},
			exclude: []string{"有没有"},
		},
		{
			// 到底 and 究竟 ("on earth") stress a question: the dictionary's
			// "end, last" sent "到底有啥区别" to a skill whose body says "last".
			name:    "emphatic adverbs are fillers",
			prompt:  "到底有啥区别，究竟怎么回事",
			want:    []string{"区别"},
			exclude: []string{"到底", "究竟"},
		},
		{
			name:    "english words are lower-cased and stemmed",
			prompt:  "Crawling Pages",
			want:    []string{"crawl", "page", "crawl page"},
			exclude: []string{"Crawling", "crawling", "pages"},
		},
		{
			name:   "compound parts",
			prompt: "ci/cd",
			want:   []string{"ci/cd", "ci", "cd"},
		},
		{
			name:   "dotted names keep their form and give parts",
			prompt: "Next.js",
			want:   []string{"next.js", "next", "js"},
		},
		{
			name:    "stop words are dropped",
			prompt:  "the cache and the database",
			want:    []string{"cach", "databas"},
			exclude: []string{"the", "and", "and the", "the cach"},
		},
		{
			name:    "contractions are stop words, with either apostrophe",
			prompt:  "I can't reproduce it and it's flaky; can’t see why",
			want:    []string{"reproduc", "flaki", "see"},
			exclude: []string{"can't", "it's", "can’t", "can", "t"},
		},
	}
	tok := tokenize.New(dict, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := texts(tok.Tokenize(tt.prompt))
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
			for _, w := range tt.exclude {
				assert.NotContains(t, got, w)
			}
		})
	}
}

// TestTokenizeExact pins the full output for a few prompts, so that noise
// terms creeping in are noticed.
func TestTokenizeExact(t *testing.T) {
	tok := tokenize.New([]string{"页面", "加载", "慢", "数据库", "存储", "库存"}, nil)
	tests := []struct {
		prompt string
		want   []string
	}{
		{"React 页面加载慢", []string{"react", "加载", "慢", "页面"}},
		{"数据库存储", []string{"存储", "数据库"}},
		{"ci/cd", []string{"cd", "ci", "ci/cd"}},
		{"", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			q := tok.Tokenize(tt.prompt)
			assert.Equal(t, tt.want, texts(q))
			for _, tm := range q.Terms {
				assert.Equal(t, 1.0, tm.Weight, tm.Text)
				assert.False(t, tm.Negated, tm.Text)
				assert.Empty(t, tm.From, tm.Text)
			}
		})
	}
}

// TestHyphenatedWordSpaced: a hyphenated prompt word also gives its words
// as a phrase, the form a skill name's adjacent words take as derived
// keywords ("test driven"), as another form of the word itself (From):
// one piece of evidence with it. Words of one letter, non-letters and
// more words than a phrase holds give none.
func TestHyphenatedWordSpaced(t *testing.T) {
	tok := tokenize.New(nil, nil)
	tests := []struct {
		prompt string
		want   []string
	}{
		{"test-driven", []string{"driven", "test", "test driven", "test-driven"}},
		{"x-ray", []string{"ray", "x-ray"}},
		{"a-b-c-d", []string{"a-b-c-d"}},
		{"gpt-4o", []string{"4o", "gpt", "gpt-4o"}},
		{"one-two-three-four", []string{"four", "one", "one-two-three-four", "three", "two"}},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			q := tok.Tokenize(tt.prompt)
			assert.Equal(t, tt.want, texts(q))
			for _, tm := range q.Terms {
				assert.Equal(t, 1.0, tm.Weight, tm.Text)
				if strings.Contains(tm.Text, " ") {
					assert.Equal(t, tt.prompt, tm.From, tm.Text)
				} else {
					assert.Empty(t, tm.From, tm.Text)
				}
			}
		})
	}
}

// TestQueryWords pins what a prompt's words are read back as, to find a
// skill's name spelled out: split at hyphens and underscores, joined to
// the word before by one space, hyphen or underscore alone.
func TestQueryWords(t *testing.T) {
	tok := tokenize.New(nil, nil)
	type w struct {
		text   string
		joined bool
	}
	tests := []struct {
		prompt string
		want   []w
	}{
		{"use Test-Driven  development", []w{{"use", false}, {"test", true}, {"driven", true}, {"development", false}}},
		{"root_cause tracing", []w{{"root", false}, {"cause", true}, {"tracing", true}}},
		{"utils.go, then write-plans", []w{{"utils", false}, {"go", false}, {"then", false}, {"write", true}, {"plans", true}}},
		{"写 writing plans 吧", []w{{"writing", false}, {"plans", true}}},
		{"ci/cd", []w{{"ci", false}, {"cd", false}}},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.prompt, func(t *testing.T) {
			q := tok.Tokenize(tt.prompt)
			var got []w
			lower := strings.ToLower(tt.prompt)
			for _, word := range q.Words {
				got = append(got, w{word.Text, word.Joined})
				assert.Equal(t, word.Text, lower[word.Pos:word.End], "its bytes in the prompt")
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestTokenizePhrases protects compound keyword matching: adjacent English
// words form phrases of two and three words, never more.
func TestTokenizePhrases(t *testing.T) {
	tok := tokenize.New(nil, nil)
	got := texts(tok.Tokenize("slow query in core web vitals report"))
	for _, w := range []string{"slow queri", "core web", "core web vital", "web vital report"} {
		assert.Contains(t, got, w)
	}
	for _, term := range got {
		assert.LessOrEqual(t, strings.Count(term, " "), 2, "phrase %q has more than three words", term)
	}
	// Phrases never start or end with a stop word.
	assert.NotContains(t, got, "queri in")
	assert.NotContains(t, got, "in core")

	// Punctuation between words breaks a phrase.
	got = texts(tok.Tokenize("docker, nginx"))
	assert.NotContains(t, got, "docker nginx")

	// Words does not build phrases the synonyms do not hold.
	for _, w := range tok.Words("core web vitals") {
		assert.NotContains(t, w, " ")
	}
}

// TestWordsKnownPhrases protects what a skill's text is indexed by beside
// its words: the phrases the synonyms hold, so that a
// prompt expanded to "screen reader" (from 读屏软件) meets the skill whose
// text says "screen reader" whole, not every skill with a screen. Other
// adjacent words make no term.
func TestWordsKnownPhrases(t *testing.T) {
	syn, err := tokenize.NewSynonyms(
		tokenize.SynonymGroup{ID: "screen-reader", Words: []tokenize.SynonymWord{{Text: "读屏软件"}, {Text: "screen reader"}}},
		tokenize.SynonymGroup{ID: "primary-key", Words: []tokenize.SynonymWord{{Text: "主键"}, {Text: "primary key"}}})
	require.NoError(t, err)
	tok := tokenize.NewWithTable(table.New(nil), syn, nil)
	tests := []struct {
		text string
		want []string
	}{
		{"Test with a screen reader, then fix it.", []string{"test", "screen", "reader", "screen reader", "fix"}},
		{"Screen Readers announce the primary keys", []string{"screen", "reader", "screen reader", "announc", "primari", "key", "primari key"}},
		{"a screen. Reader", []string{"screen", "reader"}},    // punctuation parts them
		{"the reader screen", []string{"reader", "screen"}},   // not the phrase
		{"core web vitals", []string{"core", "web", "vital"}}, // no group holds it
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tok.Words(tt.text), "%q", tt.text)
	}
}

// TestStemming protects "crawls" meeting "crawling" in prompts, keywords
// and texts alike.
func TestStemming(t *testing.T) {
	tok := tokenize.New(nil, nil)
	tests := []struct{ a, b string }{
		{"crawls", "crawling"},
		{"crawl", "crawled"},
		{"Queries", "query"},
		{"deployment", "deployments"},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			assert.Equal(t, tokenize.Normalize(tt.a), tokenize.Normalize(tt.b))
			assert.Equal(t, texts(tok.Tokenize(tt.a)), texts(tok.Tokenize(tt.b)))
			assert.Equal(t, tok.Words(tt.a), tok.Words(tt.b))
		})
	}
	// Names are kept as written.
	for _, name := range []string{"next.js", "k8s", "c++", "gin"} {
		assert.Equal(t, name, tokenize.Normalize(name))
	}
	assert.Equal(t, "slow queri", tokenize.Normalize("  Slow   Queries "))
}

// TestToolNames: a word Porter2 would fold into a tool's name keeps a stem
// of its own, and its forms still meet.
func TestToolNames(t *testing.T) {
	for _, tt := range []struct{ word, tool string }{
		{"expressions", "express"},
		{"expression", "express"},
		{"expressive", "express"},
		{"puppeteer", "puppet"},
	} {
		assert.NotEqual(t, tokenize.Normalize(tt.tool), tokenize.Normalize(tt.word), tt.word)
	}
	assert.Equal(t, tokenize.Normalize("expression"), tokenize.Normalize("Expressions"))
	assert.Equal(t, tokenize.Normalize("puppeteer"), tokenize.Normalize("puppeteers"))
}

// TestWordsOfOtherSenses: words Porter2 folds into a technical word of
// another sense keep stems of their own, and their forms still meet each
// other: "responsive" is no API "response", "several" no "severity".
func TestWordsOfOtherSenses(t *testing.T) {
	for _, tt := range []struct{ word, other string }{
		{"responsive", "response"},
		{"responsiveness", "responses"},
		{"responsible", "response"},
		{"important", "import"},
		{"importance", "imports"},
		{"several", "severity"},
		{"busy", "business"},
	} {
		assert.NotEqual(t, tokenize.Normalize(tt.other), tokenize.Normalize(tt.word), tt.word)
	}
	for _, forms := range [][]string{
		{"responsive", "responsiveness", "Responsive"},
		{"responsible", "responsibility", "responsibilities"},
		{"important", "importance", "importantly"},
		{"response", "responses"},
		{"severity", "severe"},
	} {
		for _, f := range forms[1:] {
			assert.Equal(t, tokenize.Normalize(forms[0]), tokenize.Normalize(f), f)
		}
	}
}

// TestMaxInput protects the hook's cost bound: text beyond MaxInput
// characters is ignored, never an error, and never cut inside a character.
func TestMaxInput(t *testing.T) {
	tok := tokenize.New([]string{"数据库"}, nil)
	tests := []struct {
		name   string
		prompt string
		term   string
		want   bool
	}{
		{"ascii within", strings.Repeat(". ", tokenize.MaxInput/2-10) + "kubernetes", "kubernet", true},
		{"ascii beyond", strings.Repeat(". ", tokenize.MaxInput/2) + "kubernetes", "kubernet", false},
		{"han exactly at the cap", strings.Repeat("。", tokenize.MaxInput-3) + "数据库", "数据库", true},
		{"han beyond", strings.Repeat("。", tokenize.MaxInput-2) + "数据库", "数据库", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q tokenize.Query
			require.NotPanics(t, func() { q = tok.Tokenize(tt.prompt) })
			_, ok := terms(q)[tt.term]
			assert.Equal(t, tt.want, ok)
		})
	}

	// A cut through multi-byte text yields whole characters only.
	for _, prompt := range []string{
		"a" + strings.Repeat("数", 3*tokenize.MaxInput),
		strings.Repeat("数据库", tokenize.MaxInput),
		strings.Repeat("é漢字", tokenize.MaxInput),
	} {
		var q tokenize.Query
		require.NotPanics(t, func() { q = tok.Tokenize(prompt) })
		require.NotEmpty(t, q.Terms)
		for _, tm := range q.Terms {
			assert.True(t, utf8.ValidString(tm.Text), "invalid UTF-8 term %q", tm.Text)
		}
	}
}

// TestNegation protects "不要用 Redis" and "without docker": the refused
// terms are lowered, everything else keeps its weight.
func TestNegation(t *testing.T) {
	tok := tokenize.New([]string{"缓存", "生效"}, nil)
	tests := []struct {
		name    string
		prompt  string
		negated []string
		plain   []string
	}{
		{"chinese", "不要用Redis", []string{"redi"}, nil},
		{"chinese with space", "不要用 redis 做缓存，改用 memcached", []string{"redi", "缓存"}, []string{"memcach"}},
		{"english", "without docker", []string{"docker"}, nil},
		{"don't", "don't use kafka", []string{"kafka"}, nil},
		{"don’t, typographic apostrophe", "don’t use kafka", []string{"kafka"}, nil},
		{"scope ends at clause punctuation", "without docker. nginx config", []string{"docker"}, []string{"nginx", "config"}},
		{"stop words do not use up the reach", "without spinning up a real browser", []string{"browser"}, nil},
		{"content words do", "without spinning docker containers locally, test the nginx config", []string{"docker"}, []string{"nginx"}},
		{"区别 is no negation", "区别 redis memcached", nil, []string{"redi", "memcach"}},
		{"特别 is no negation", "特别是redis", nil, []string{"redi"}},
		{"does not load describes a symptom", "the page does not load", nil, []string{"page", "load"}},
		{"没有 describes a symptom", "缓存没有生效", nil, []string{"缓存", "生效"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := terms(tok.Tokenize(tt.prompt))
			for _, w := range tt.negated {
				require.Contains(t, got, w)
				assert.Equal(t, tokenize.NegatedWeight, got[w].Weight, w)
				assert.True(t, got[w].Negated, w)
			}
			for _, w := range tt.plain {
				require.Contains(t, got, w)
				assert.Equal(t, 1.0, got[w].Weight, w)
				assert.False(t, got[w].Negated, w)
			}
		})
	}
}

// TestNegationInsideWord protects prompts like "whenever the build fails"
// from being read as a refusal of the build.
func TestNegationInsideWord(t *testing.T) {
	tok := tokenize.New(nil, nil)
	got := terms(tok.Tokenize("whenever the build fails"))
	require.Contains(t, got, "build")
	assert.Equal(t, 1.0, got["build"].Weight)
	assert.False(t, got["build"].Negated)
}

// TestNegationBieRen protects 别人 ("someone else") from being read as 别
// ("don't").
func TestNegationBieRen(t *testing.T) {
	tok := tokenize.New(nil, nil)
	got := terms(tok.Tokenize("review 别人的 pr"))
	require.Contains(t, got, "pr")
	assert.Equal(t, 1.0, got["pr"].Weight)
}

// TestWindowsKeepWordsEndingInParticleCharacters protects common technical
// words such as 性能 and 功能 when the dictionary lacks them.
func TestWindowsKeepWordsEndingInParticleCharacters(t *testing.T) {
	tok := tokenize.New(nil, nil)
	assert.Contains(t, texts(tok.Tokenize("性能问题")), "性能")
	assert.Contains(t, texts(tok.Tokenize("功能")), "功能")
}

const synonymsYAML = `
groups:
  - id: k8s
    note: kubernetes
    words: [kubernetes, k8s, 容器编排]
  - id: cache
    words: [缓存, cache]
    weight: 0.5
`

// TestSynonymExpansion protects query expansion: group-mates are added
// below the user's own words, and never lower a word the user typed.
func TestSynonymExpansion(t *testing.T) {
	syn, err := tokenize.ParseSynonyms("syn.yaml", []byte(synonymsYAML))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"kubernet", "k8s", "容器编排", "缓存", "cach"}, syn.WordList(), "normalised, as the index matches them")
	tok := tokenize.New(syn.WordList(), syn)
	require.Less(t, tokenize.SynonymWeight, 1.0)

	t.Run("group-mates at SynonymWeight", func(t *testing.T) {
		got := terms(tok.Tokenize("k8s"))
		assert.Equal(t, tokenize.Term{Text: "k8s", Surface: "k8s", Weight: 1, End: 3}, got["k8s"])
		assert.Equal(t, tokenize.Term{Text: "kubernet", Surface: "k8s", Weight: tokenize.SynonymWeight, From: "k8s", End: 3}, got["kubernet"],
			"an expansion keeps the user's word, and where it stands, for explanations and overlaps")
		assert.Equal(t, tokenize.Term{Text: "容器编排", Surface: "k8s", Weight: tokenize.SynonymWeight, From: "k8s", End: 3}, got["容器编排"])
		assert.Len(t, got, 3)
	})
	t.Run("group weight", func(t *testing.T) {
		got := terms(tok.Tokenize("cache"))
		assert.InDelta(t, 0.5, got["缓存"].Weight, 1e-12)
	})
	t.Run("typed words keep weight 1", func(t *testing.T) {
		for _, prompt := range []string{"k8s kubernetes", "kubernetes k8s", "容器编排 k8s"} {
			got := terms(tok.Tokenize(prompt))
			for _, w := range strings.Fields(prompt) {
				w = tokenize.Normalize(w)
				assert.Equal(t, 1.0, got[w].Weight, "%s in %q", w, prompt)
				assert.Empty(t, got[w].From, "%s in %q", w, prompt)
			}
		}
	})
	t.Run("negated words expand negated", func(t *testing.T) {
		got := terms(tok.Tokenize("without k8s"))
		assert.Equal(t, tokenize.NegatedWeight, got["k8s"].Weight)
		assert.InDelta(t, tokenize.NegatedWeight*tokenize.SynonymWeight, got["kubernet"].Weight, 1e-12)
		assert.True(t, got["kubernet"].Negated)
	})
	t.Run("no synonyms", func(t *testing.T) {
		var none *tokenize.Synonyms
		assert.Nil(t, none.Expand("k8s"))
		assert.Nil(t, none.WordList())
		assert.Len(t, tokenize.New(nil, nil).Tokenize("k8s").Terms, 1)
	})
}

// TestNewSynonyms protects synonym tables built by adapters: each word is
// added at its own weight (the default when none is given), normalised,
// and unnamed groups are numbered for explanations.
func TestNewSynonyms(t *testing.T) {
	syn, err := tokenize.NewSynonyms(
		tokenize.SynonymGroup{ID: "frontend", Words: []tokenize.SynonymWord{{Text: "前端", Weight: 0.7}, {Text: "Frontend", Weight: 0.7}, {Text: " "}, {Text: "界面", Weight: 0.4}}},
		tokenize.SynonymGroup{Words: []tokenize.SynonymWord{{Text: "db"}, {Text: "数据库"}}},
	)
	require.NoError(t, err)
	expand := func(term string) map[string]string {
		out := map[string]string{}
		for _, e := range syn.Expand(term) {
			out[e.Term] = fmt.Sprintf("%s %.2f", e.Group, e.Weight)
		}
		return out
	}
	assert.Equal(t, map[string]string{"frontend": "frontend 0.70", "界面": "frontend 0.40"}, expand("前端"))
	assert.Equal(t, map[string]string{"前端": "frontend 0.70", "frontend": "frontend 0.70"}, expand("界面"))
	assert.Equal(t, map[string]string{"数据库": "#2 0.60"}, expand("db"))

	tests := []struct {
		name   string
		group  tokenize.SynonymGroup
		reason string
	}{
		{"one word", tokenize.SynonymGroup{ID: "solo", Words: []tokenize.SynonymWord{{Text: "only"}, {Text: "  "}}}, "group solo: needs at least two words"},
		{"weight 1", tokenize.SynonymGroup{ID: "heavy", Words: []tokenize.SynonymWord{{Text: "a", Weight: 1}, {Text: "b"}}}, `group heavy: "a": weight 1.00 must be above 0 and below 1`},
		{"negative weight", tokenize.SynonymGroup{Words: []tokenize.SynonymWord{{Text: "a"}, {Text: "b", Weight: -0.1}}}, `group #1: "b": weight -0.10`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			syn, err := tokenize.NewSynonyms(tt.group)
			require.Error(t, err)
			assert.Nil(t, syn)
			assert.Contains(t, err.Error(), tt.reason)
		})
	}
}

// TestImpliedConcepts: a group's words expand, one way and below their
// synonyms, to the concepts the group implies. A prompt about a blind
// user is about accessibility; one about accessibility is not about
// blind users, nor does it take the other words of the group.
func TestImpliedConcepts(t *testing.T) {
	syn, err := tokenize.ParseSynonyms("syn.yaml", []byte(`groups:
  - id: visually-impaired
    words: [视障用户, blind users]
    implies: [a11y, wcag]
  - id: prop-drilling-cue
    words: [一层层传]
    implies: [prop drilling]
`))
	require.NoError(t, err)
	tok := tokenize.New(syn.WordList(), syn)
	got := terms(tok.Tokenize("视障用户说按钮读不出来"))
	assert.Equal(t, tokenize.SynonymWeight, got["blind user"].Weight, "the group's own words stay synonyms")
	for _, concept := range []string{"a11y", "wcag"} {
		assert.Equal(t, tokenize.ImpliedWeight, got[concept].Weight, concept)
		assert.Equal(t, "视障用户", got[concept].From, "an implied concept is the user's word's evidence, not a word of its own")
	}
	require.Less(t, tokenize.ImpliedWeight, tokenize.SynonymWeight)

	back := terms(tok.Tokenize("a11y audit"))
	assert.NotContains(t, back, "视障用户", "implication runs one way")
	assert.NotContains(t, back, "blind user")

	got = terms(tok.Tokenize("props 一层层传下去"))
	assert.Equal(t, tokenize.ImpliedWeight, got["prop drill"].Weight, "a group of one word and what it implies")

	_, err = tokenize.ParseSynonyms("syn.yaml", []byte("groups:\n  - id: solo\n    words: [一层层传]\n    implies: [' ']\n"))
	assert.ErrorContains(t, err, "syn.yaml: group solo: needs at least two words, or one and a word it implies")
}

// TestSynonymErrors protects users editing a synonym file: every error
// names the file.
func TestSynonymErrors(t *testing.T) {
	tests := []struct {
		name, file, data, reason string
	}{
		{"bad yaml", "my-syn.yaml", "groups: [\n  - id: x\n    words: [a", ""},
		{"wrong yaml type", "my-syn.yaml", "groups: 3\n", ""},
		{"one word", "my-syn.yaml", "groups:\n  - id: solo\n    words: [only]\n", "group solo"},
		{"weight too high", "my-syn.yaml", "groups:\n  - id: heavy\n    words: [a, b]\n    weight: 1.5\n", "group heavy: weight 1.50 must be above 0 and below 1"},
		{"negative weight, unnamed group", "my-syn.yaml", "groups:\n  - words: [a, b]\n  - words: [c, d]\n    weight: -0.5\n", "group #2: weight -0.50"},
		// A misspelt key was ignored: "group:" read as a file of no
		// groups, which --synonyms puts in place of the built-in ones,
		// and "weigth:" left the group at the default weight.
		{"misspelt groups key", "my-syn.yaml", "group:\n  - id: perf\n    words: [性能, performance]\n", `line 1: field group not found`},
		{"misspelt weight", "my-syn.yaml", "groups:\n  - id: perf\n    words: [性能, performance]\n    weigth: 0.3\n", `line 4: field weigth not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			syn, err := tokenize.ParseSynonyms(tt.file, []byte(tt.data))
			require.Error(t, err)
			assert.Nil(t, syn)
			assert.True(t, strings.HasPrefix(err.Error(), tt.file+":"), "error %q does not name %s", err, tt.file)
			assert.Contains(t, err.Error(), tt.reason)
		})
	}
}

// TestHanWords protects the segmentation dictionary an index stores: Han
// words and words of both scripts (without their spaces), lower-cased,
// sorted and unique; no English word.
func TestHanWords(t *testing.T) {
	got := tokenize.HanWords([]string{"缓存", " 数据库 ", "redis", "缓存", "K8s 集群", ""})
	assert.Equal(t, []string{"k8s集群", "数据库", "缓存"}, got)
}

// TestTokenizeDeterministic protects reproducible routing: the same prompt
// always gives the same sorted terms.
func TestTokenizeDeterministic(t *testing.T) {
	syn, err := tokenize.ParseSynonyms("syn.yaml", []byte(synonymsYAML))
	require.NoError(t, err)
	tok := tokenize.New([]string{"数据库", "存储", "库存"}, syn)
	prompt := "k8s 集群里数据库存储很慢 without cache"
	first := tok.Tokenize(prompt)
	for range 20 {
		assert.Equal(t, first, tok.Tokenize(prompt))
	}
	got := texts(first)
	assert.IsIncreasing(t, got)
}

// A Chinese word the dictionary holds that its words make up end to end
// is a compound: a phrase written without a break, which scoring counts
// beside its words. A word with a stretch no word covers, a word inside
// the compound, a window and an English word are not.
func TestCompoundWords(t *testing.T) {
	dict := []string{"相机权限", "最小可行产品", "相机权限最小可行产品", "报错", "测试", "补几个测试", "系统", "设计", "系统设计"}
	tk := tokenize.New(dict, nil)
	tests := []struct {
		prompt   string
		compound []string // the terms marked Compound; every other is not
	}{
		{"相机权限最小可行产品一直报错", []string{"相机权限最小可行产品"}},
		{"再加几道考察系统设计能力的", []string{"系统设计"}},
		{"给列表页补几个测试", nil},
		{"相机权限 最小可行产品", nil},
		{"system design 报错", nil},
	}
	for _, tc := range tests {
		t.Run(tc.prompt, func(t *testing.T) {
			var got []string
			for _, tm := range tokenize.New(dict, nil).Tokenize(tc.prompt).Terms {
				if tm.Compound {
					got = append(got, tm.Text)
				}
			}
			assert.Equal(t, tc.compound, got)
		})
	}
	// The same through a caching tokenizer, whose segmentations are reused.
	c := tk.WithCache()
	for range 2 {
		q := terms(c.Tokenize("相机权限最小可行产品一直报错"))
		assert.True(t, q["相机权限最小可行产品"].Compound)
		assert.False(t, q["相机权限"].Compound)
	}
}

// TestMixedWords pins what is read across a change of script: a word of
// the dictionary made of an English name and Chinese ("sql注入", with or
// without its space), found with the English before the Chinese or after
// it, the longest the dictionary holds; nothing across punctuation.
func TestMixedWords(t *testing.T) {
	tok := tokenize.New([]string{"sql 注入", "注入", "组合式api", "n+1查询", "cpu飙高", "cpu飙高告警"}, nil)
	for _, tt := range []struct {
		prompt string
		want   []string // mixed terms expected
		not    []string
	}{
		{"sql注入怎么防", []string{"sql注入"}, nil},
		{"这里有 sql 注入吗", []string{"sql注入"}, nil},
		{"用组合式api重写", []string{"组合式api"}, nil},
		{"用组合式 api 重写", []string{"组合式api"}, nil},
		{"n+1查询太多", []string{"n+1查询"}, nil},
		{"昨晚 cpu飙高告警 响了", []string{"cpu飙高告警"}, []string{"cpu飙高"}},
		{"sql，注入", nil, []string{"sql注入"}},
		{"mysql注入", nil, []string{"sql注入"}},
		{"sql injection", nil, []string{"sql注入"}},
	} {
		got := texts(tok.Tokenize(tt.prompt))
		for _, w := range tt.want {
			assert.Contains(t, got, w, tt.prompt)
		}
		for _, w := range tt.not {
			assert.NotContains(t, got, w, tt.prompt)
		}
	}
	assert.Equal(t, []string{"cpu飙高", "sql注入", "注入"}, tokenize.HanWords([]string{"SQL 注入", "注入", "cpu飙高", "docker", "a-b"}))
}
