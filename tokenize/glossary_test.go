package tokenize_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/internal/table"
	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/tokenize"
)

const glossaryYAML = `
source: {name: test}
entries:
  数据库: [database]
  数据: [data]
  连接池: [connection pool]
  缓存: [cache]
  接口: [interface, port]
  日志: [log]
  组件: [module, unit, component]
`

// indexTerms stands for the terms of an index: what a translation must
// reach to be kept; keywords for those that are keywords of a skill.
var indexTerms = map[string]bool{
	"databas": true, "data": true, "connect pool": true, "connect": true, "pool": true,
	"cach": true, "interfac": true, "log": true, "数据库": true, "日志": true, "接口": true,
	"modul": true, "unit": true, "compon": true, "缓存": true,
}

var keywords = map[string]bool{"缓存": true, "cach": true}

func compiled(t *testing.T, syn *tokenize.Synonyms) *tokenize.Glossary {
	t.Helper()
	f, err := tokenize.ParseGlossary("g.yaml", []byte(glossaryYAML))
	require.NoError(t, err)
	return tokenize.CompileGlossary(f, func(s string) bool { return indexTerms[s] }, func(s string) bool { return keywords[s] }, syn)
}

func translations(g *tokenize.Glossary, word string) []string {
	var out []string
	g.Translate(word, func(to string) { out = append(out, to) })
	return out
}

// TestGlossaryWeight protects the order of evidence: a prompt's own word
// over a translation, curated or from the dictionary (a word has one or
// the other, never both), over nothing.
func TestGlossaryWeight(t *testing.T) {
	assert.Less(t, tokenize.GlossaryWeight, 1.0)
	assert.LessOrEqual(t, tokenize.GlossaryWeight, tokenize.SynonymWeight)
	assert.Greater(t, tokenize.GlossaryWeight, tokenize.NegatedWeight)
}

// TestParseGlossary protects users editing a glossary: errors name the
// file and the entry.
func TestParseGlossary(t *testing.T) {
	for _, tt := range []struct {
		name, data, err string
	}{
		{"english key", "entries:\n  database: [数据库]\n", `g.yaml: entry "database": the key must be a Chinese word`},
		{"no terms", "entries:\n  数据库: []\n", "g.yaml: entry 数据库: needs English terms"},
		{"empty term", "entries:\n  数据库: [database, '']\n", "g.yaml: entry 数据库: needs English terms"},
		{"not yaml", "entries: [\n", "g.yaml: "},
		// "entry:" read as an empty glossary: --glossary FILE then
		// translated nothing, unsaid.
		{"misspelt entries key", "entry:\n  数据库: [database]\n", "g.yaml: yaml: unmarshal errors:\n  line 1: field entry not found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tokenize.ParseGlossary("g.yaml", []byte(tt.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	f, err := tokenize.ParseGlossary("g.yaml", []byte(glossaryYAML))
	require.NoError(t, err)
	assert.Equal(t, []string{"connection pool"}, f.Entries["连接池"])
	g, err := tokenize.ParseGlossary("g.yaml", []byte(glossaryYAML+"  密钥: [key]\n"))
	require.NoError(t, err)
	assert.NotEqual(t, f.Hash, g.Hash, "the hash fingerprints the content")
}

// TestCompileGlossary protects what an index keeps of the glossary: only
// translations that reach its terms, in both directions, and none for a
// word the curated synonyms translate.
func TestCompileGlossary(t *testing.T) {
	g := compiled(t, nil)
	for _, tt := range []struct {
		word string
		want []string
	}{
		{"数据库", []string{"databas"}},
		{"databas", []string{"数据库"}},
		{"连接池", []string{"connect", "connect pool", "pool"}}, // the phrase and its words, as if typed
		{"connect pool", nil},                                // 连接池 is no index term
		{"接口", []string{"interfac"}},                         // "port" is no index term
		{"interfac", []string{"接口"}},
		{"数据", []string{"data"}},
		{"data", nil},                     // 数据 is no index term
		{"组件", []string{"modul", "unit"}}, // MaxReach (2): the first senses that reach
		{"缓存", nil},                       // a keyword of the index: the catalog says where it belongs
		{"cach", []string{"缓存"}},
		{"compon", nil}, // 组件 is no index term
	} {
		assert.Equal(t, tt.want, translations(g, tt.word), tt.word)
	}

	t.Run("curated synonyms win", func(t *testing.T) {
		syn, err := tokenize.ParseSynonyms("s.yaml", []byte("groups:\n  - id: api\n    words: [接口, api, endpoint]\n  - id: log\n    words: [log, logging, 日志记录]\n"))
		require.NoError(t, err)
		g := compiled(t, syn)
		assert.Empty(t, translations(g, "接口"), "接口 has English group-mates: the group translates it")
		assert.Equal(t, []string{"接口"}, translations(g, "interfac"), "interface has no Chinese group-mate")
		assert.Empty(t, translations(g, "log"), "log has a Chinese group-mate")
		assert.Equal(t, []string{"log"}, translations(g, "日志"))
	})
	t.Run("a synonym's phrase meets a plain skill's words", func(t *testing.T) {
		syn, err := tokenize.ParseSynonyms("s.yaml", []byte(`groups:
  - id: screen-reader
    words: [读屏, screen reader, screen readers]
  - id: backend
    words: [后端, backend, backend development]
  - id: disk
    words: [磁盘, disk space]
  - id: pool
    words: [池子, connection pool]
  - id: held
    words: [日志系统, log pipeline]
`))
		require.NoError(t, err)
		terms := map[string]bool{"screen": true, "reader": true, "backend": true, "develop": true, "space": true,
			"connect pool": true, "connect": true, "pool": true, "log": true, "pipelin": true, "日志系统": true}
		g := tokenize.CompileGlossary(nil, func(s string) bool { return terms[s] }, func(string) bool { return false }, syn)
		for _, tt := range []struct {
			word string
			want []string
			why  string
		}{
			{"读屏", []string{"reader", "screen"}, "the index has the words, not the phrase: a body that says \"screen reader\""},
			{"后端", nil, "\"backend\" reaches the index whole; \"develop\" would be generic evidence"},
			{"磁盘", nil, "\"disk\" is no index term: \"space\" alone is not the phrase"},
			{"池子", nil, "the index holds the phrase: the synonym expansion meets it"},
			{"日志系统", nil, "the index holds the Chinese word itself"},
		} {
			assert.Equal(t, tt.want, translations(g, tt.word), tt.why)
		}
	})
	t.Run("nothing reaches", func(t *testing.T) {
		f, err := tokenize.ParseGlossary("g.yaml", []byte(glossaryYAML))
		require.NoError(t, err)
		never := func(string) bool { return false }
		assert.Nil(t, tokenize.CompileGlossary(f, never, never, nil))
		assert.Nil(t, tokenize.CompileGlossary(nil, func(string) bool { return true }, never, nil))
		var none *tokenize.Glossary
		assert.Zero(t, none.Len())
		assert.Empty(t, translations(none, "数据库"))
	})
}

// TestGlossaryTranslation protects cross-language matching: a Chinese
// prompt gets the English terms of its words, and an English one the
// Chinese, at GlossaryWeight, the longest Chinese word where words nest,
// and never above a word the user typed.
func TestGlossaryTranslation(t *testing.T) {
	tok := tokenize.NewWithTable(table.New(nil), nil, compiled(t, nil))

	t.Run("Chinese to English", func(t *testing.T) {
		got := terms(tok.Tokenize("数据库连接池满了"))
		// A translation stands on its word's bytes: "connect pool" and
		// "pool", both of 连接池, are one piece of evidence (bm25 packs
		// matches that overlap).
		assert.Equal(t, tokenize.Term{Text: "databas", Surface: "数据库", From: "数据库", Weight: tokenize.GlossaryWeight, Pos: 0, End: len("数据库")}, got["databas"])
		assert.Equal(t, [2]int{len("数据库"), len("数据库连接池")}, [2]int{got["pool"].Pos, got["pool"].End})
		assert.Equal(t, [2]int{got["pool"].Pos, got["pool"].End}, [2]int{got["connect pool"].Pos, got["connect pool"].End})
		assert.Equal(t, tokenize.GlossaryWeight, got["connect pool"].Weight)
		assert.Equal(t, "连接池", got["pool"].From)
		assert.NotContains(t, got, "data", "数据 is inside 数据库: the longer word translates")
	})
	t.Run("leftmost where words cross", func(t *testing.T) {
		tok := tokenize.NewWithTable(table.New(nil), nil, tokenize.CompileGlossary(&tokenize.GlossaryFile{Entries: map[string][]string{
			"数据库": {"database"}, "库存": {"inventory"}, "存储": {"storage"}}}, func(string) bool { return true }, func(string) bool { return false }, nil))
		got := terms(tok.Tokenize("数据库存储"))
		assert.Contains(t, got, "databas")
		assert.Contains(t, got, "storag")
		assert.NotContains(t, got, "inventori", "库存 straddles two words")
	})
	t.Run("English to Chinese", func(t *testing.T) {
		got := terms(tok.Tokenize("the database is slow"))
		assert.Equal(t, tokenize.Term{Text: "数据库", Surface: "database", From: "databas", Weight: tokenize.GlossaryWeight, Pos: len("the "), End: len("the database")}, got["数据库"])
	})
	t.Run("typed words keep weight 1", func(t *testing.T) {
		got := terms(tok.Tokenize("database 数据库"))
		assert.Equal(t, 1.0, got["databas"].Weight)
		assert.Equal(t, 1.0, got["数据库"].Weight)
	})
	t.Run("negated", func(t *testing.T) {
		got := terms(tok.Tokenize("不要用数据库"))
		assert.InDelta(t, tokenize.GlossaryWeight*tokenize.NegatedWeight, got["databas"].Weight, 1e-12)
		assert.True(t, got["databas"].Negated)
	})
	t.Run("one hop", func(t *testing.T) {
		// 日志 -> log; log is no way back to 日志 or on to anything else.
		got := terms(tok.Tokenize("日志"))
		assert.Equal(t, []string{"log", "日志"}, keys(got))
	})
	t.Run("deterministic", func(t *testing.T) {
		a := tok.Tokenize("数据库连接池和 database 缓存")
		for range 5 {
			assert.Equal(t, a, tok.Tokenize("数据库连接池和 database 缓存"))
		}
	})
}

func keys(m map[string]tokenize.Term) []string { return slices.Sorted(maps.Keys(m)) }

// BenchmarkTokenizeGlossary measures what the glossary adds to cutting a
// prompt: the translation of its English words and the scan of its Chinese.
func BenchmarkTokenizeGlossary(b *testing.B) {
	f, err := tokenize.ParseGlossary(rules.GlossaryName, rules.Glossary)
	require.NoError(b, err)
	g := tokenize.CompileGlossary(f, func(string) bool { return true }, func(string) bool { return false }, nil)
	prompts := []string{
		"React 页面加载慢，首屏要 6 秒，帮我看看怎么优化",
		"把这个 JavaScript 写的服务端项目整理一下：现在所有路由处理函数都堆在一个两千行的 app.js 里",
		"Write pytest tests for utils/slugify.py and share the setup through a fixture in conftest.py",
	}
	for _, gloss := range []*tokenize.Glossary{nil, g} {
		name := "without"
		if gloss != nil {
			name = "with"
		}
		tok := tokenize.NewWithTable(table.New(nil), nil, gloss)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				tok.Tokenize(prompts[i%len(prompts)])
			}
		})
	}
}
