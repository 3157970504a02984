package glossary

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/skillroute/skillroute/rules"
	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/tokenize"
)

// testDict holds entries of CC-CEDICT (CC BY-SA 4.0, MDBG; see
// rules/glossary.LICENSE), verbatim, chosen for what the filter must do
// with them.
const testDict = `# CC-CEDICT
#! version=1
#! subversion=0
#! format=ts
#! charset=UTF-8
#! entries=22
#! license=https://creativecommons.org/licenses/by-sa/4.0/
#! date=2026-09-10T07:14:51Z
一個 一个 [yi1 ge5] /a; an; one/the whole (afternoon, summer vacation etc)/
上線 上线 [shang4 xian4] /to go online; to put sth online/to reach a specific standard/to put into production/handler (person who oversees and directs the activities of another person in a gang, spy ring etc)/
中央處理器 中央处理器 [zhong1 yang1 chu3 li3 qi4] /(computing) central processing unit (CPU)/
主播 主播 [zhu3 bo1] /(news) anchor; (program) host; (Internet) streamer/
伺服器 伺服器 [si4 fu2 qi4] /server (computer) (Tw)/
反應 反应 [fan3 ying4] /to react/to respond/reaction/response/reply/chemical reaction/CL:個|个[ge4]/
合成 合成 [he2 cheng2] /to compose/to constitute/compound/synthesis/mixture/synthetic/
分屏 分屏 [fen1 ping2] /(computing) to split a screen into multiple sections to display different content simultaneously/
加載 加载 [jia1 zai4] /to load (cargo)/(computing) to load (content)/
回滾 回滚 [hui2 gun3] /(computing) to roll back/rollback/(sports) (of a ball) to come back (due to backspin or sloping ground)/
庫 库 [ku4] /warehouse/storehouse/(file) library/
截圖 截图 [jie2 tu2] /(computing) screenshot; to take a screenshot/
接口 接口 [jie1 kou3] /interface/port/connector/
數據庫 数据库 [shu4 ju4 ku4] /(computing) database/
日誌 日志 [ri4 zhi4] /journal/log (computing)/
玩笑 玩笑 [wan2 xiao4] /to joke/joke/jest/
登錄 登录 [deng1 lu4] /to register/to log in/
緩存 缓存 [huan3 cun2] /(computing) cache/buffer memory/
表現 表现 [biao3 xian4] /to show/to show off/to display/to manifest/expression/manifestation/show/display/performance (at work etc)/behavior/
貝殼 贝壳 [bei4 ke2] /shell (of a mollusk)/
部署 部署 [bu4 shu3] /to dispose/to deploy/deployment/
兔爸 兔爸 [tu4 ba4] /toolbar (in computer software) (loanword)/
`

// builtinVocabulary is the vocabulary the generator uses: the built-in
// skills, the curated synonyms and the entries' computing glosses.
func builtinVocabulary(t *testing.T, entries []Entry) *Vocabulary {
	t.Helper()
	cat, err := skills.Builtin()
	require.NoError(t, err)
	groups, err := tokenize.ParseSynonymGroups(rules.SynonymsName, rules.Synonyms)
	require.NoError(t, err)
	v := NewVocabulary()
	v.AddSkills(cat, tokenize.New(nil, nil))
	v.AddSynonyms(groups)
	v.AddComputing(entries)
	return v
}

// TestFilter pins the filter on real dictionary entries and the real
// vocabulary: technical senses in, everyday senses and words out.
func TestFilter(t *testing.T) {
	_, entries, err := ParseCEDICT("test.u8", strings.NewReader(testDict))
	require.NoError(t, err)
	got := map[string][]string{}
	for _, p := range Filter(entries, builtinVocabulary(t, entries)) {
		got[p.Chinese] = p.English
	}
	for _, tt := range []struct {
		word string
		want []string // nil: left out
		why  string
	}{
		{"数据库", []string{"database"}, "labelled computing"},
		{"中央处理器", []string{"cpu", "central processing unit"}, "the acronym in parentheses counts"},
		{"伺服器", []string{"server"}, "a label after the gloss counts"},
		{"日志", []string{"log"}, "only the sense labelled computing: journal is no vocabulary"},
		{"加载", []string{"load"}, "two senses give the same term once"},
		{"主播", []string{"streamer"}, "only the alternative labelled (Internet); anchor and host belong to news and TV"},
		{"接口", []string{"interface", "port"}, "unlabelled, but a word of the skills' Chinese text, and both glosses are vocabulary"},
		{"部署", []string{"deploy", "deployment"}, "every gloss the vocabulary has, in the dictionary's order, but a false friend (dispose, a method's name)"},
		{"截图", []string{"screenshot", "take a screenshot"}, "alternatives split at ';'"},
		{"贝壳", nil, "shell is vocabulary, but 贝壳 is a mollusk's: no label, not in the skills' text"},
		{"玩笑", nil, "jest is a test runner, 玩笑 a joke"},
		{"一个", nil, "grammar: starts with a function character"},
		{"库", nil, "one character has too many senses"},
		{"分屏", nil, "a definition, not a term"},
		{"表现", nil, "performance (at work): neither labelled nor in the skills' text"},
		{"反应", []string{"response", "reply"}, "a false friend: a reaction, never React"},
		{"合成", []string{"synthesis"}, "a false friend: combining is no Docker Compose"},
		{"上线", nil, "a false friend: going live is no handler"},
	} {
		assert.Equal(t, tt.want, got[tt.word], "%s: %s", tt.word, tt.why)
	}
}

// TestGlosses protects reading a sense: alternatives, labels, remarks and
// cross-references.
func TestGlosses(t *testing.T) {
	for _, tt := range []struct {
		sense string
		want  []Gloss
	}{
		{"(computing) to load (content)", []Gloss{{"load", true}}},
		{"log (computing)", []Gloss{{"log", true}}},
		{"routing (in computer networks)", []Gloss{{"routing", true}}},
		{"(computing) slow; unresponsive; laggy", []Gloss{{"slow", true}, {"unresponsive", true}, {"laggy", true}}},
		{"(news) anchor; (program) host; (Internet) streamer", []Gloss{{"anchor", false}, {"host", false}, {"streamer", true}}},
		{"(Internet slang) bye-bye", []Gloss{{"bye-bye", false}}},
		{"infrastructure as a service (IaaS)", []Gloss{{"iaas", false}}}, // four words: only the acronym
		{"variant of 伺服器|伺服器[si4 fu2 qi4]", nil},
		{"CL:個|个[ge4]", nil},
		{"to split a screen into multiple sections", nil},
		{"the", nil},
		{"read-only", []Gloss{{"read-only", false}}},
	} {
		assert.Equal(t, tt.want, Glosses(tt.sense), tt.sense)
	}
}

// TestParseCEDICT protects reading the dictionary: its header, its
// entries, and errors that name the line.
func TestParseCEDICT(t *testing.T) {
	h, entries, err := ParseCEDICT("test.u8", strings.NewReader(testDict))
	require.NoError(t, err)
	assert.Equal(t, Header{Version: "1.0", Date: "2026-09-10T07:14:51Z", Entries: 22, License: "https://creativecommons.org/licenses/by-sa/4.0/"}, h)
	require.Len(t, entries, 22)
	assert.Equal(t, Entry{Traditional: "數據庫", Simplified: "数据库", Pinyin: "shu4 ju4 ku4", Senses: []string{"(computing) database"}}, entries[13])

	for _, tt := range []struct{ name, data, err string }{
		{"no pinyin", "#! entries=1\n數據庫 数据库 /database/\n", "test.u8:2: not a dictionary entry"},
		{"no slashes", "數據庫 数据库 [shu4 ju4 ku4] database\n", "test.u8:1: senses must sit between slashes"},
		{"cut short", "#! entries=3\n數據庫 数据库 [shu4 ju4 ku4] /database/\n", "header declares 3 entries, file holds 1"},
		{"bad count", "#! entries=many\n", "test.u8:1: entries=\"many\" is not a number"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ParseCEDICT("test.u8", strings.NewReader(tt.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// TestShippedGlossary protects the generated file: it names its source,
// licence and attribution, its licence notice ships beside it, and every
// entry is one the filter could have written.
func TestShippedGlossary(t *testing.T) {
	var f struct {
		Source  map[string]string   `yaml:"source"`
		Entries map[string][]string `yaml:"entries"`
	}
	require.NoError(t, yaml.Unmarshal(rules.Glossary, &f))
	text := string(rules.Glossary)
	assert.Equal(t, "CC-CEDICT", f.Source["name"])
	assert.Equal(t, Licence, f.Source["license"])
	assert.Equal(t, Attribution, f.Source["attribution"])
	assert.NotEmpty(t, f.Source["version"])
	assert.NotEmpty(t, f.Source["package"])
	assert.Contains(t, text, "# Licence: "+Licence, "the header states the licence")
	assert.Contains(t, text, "Denisowski", "the header keeps the attribution")
	notice, err := os.ReadFile(filepath.Join("..", "..", "rules", "glossary.LICENSE"))
	require.NoError(t, err, "the licence notice ships beside the glossary")
	assert.Contains(t, string(notice), "CC BY-SA 4.0")
	assert.Contains(t, string(notice), "MDBG")

	require.NotEmpty(t, f.Entries)
	for zh, en := range f.Entries {
		assert.True(t, headword(zh), "%s is no headword the filter keeps", zh)
		assert.NotEmpty(t, en, zh)
		assert.LessOrEqual(t, len(en), MaxTranslations, zh)
		for _, e := range en {
			assert.Equal(t, strings.ToLower(e), e, "%s: %s", zh, e)
			assert.LessOrEqual(t, len(strings.Fields(e)), maxGlossWords, "%s: %s", zh, e)
		}
	}
	_, err = tokenize.ParseGlossary(rules.GlossaryName, rules.Glossary)
	require.NoError(t, err)
}

// TestWrite protects the file's round trip: what Write writes, the
// tokenizer reads back, header and all.
func TestWrite(t *testing.T) {
	var b bytes.Buffer
	pairs := []Pair{{"数据库", []string{"database"}}, {"日志", []string{"log", "c++"}}, {"是否", []string{"yes", "no"}}}
	require.NoError(t, Write(&b, Source{Header: Header{Version: "1.0", Date: "2026-09-10T07:14:51Z", Entries: 3}, Package: "p@1", Path: "x.u8"}, pairs))
	f, err := tokenize.ParseGlossary("g.yaml", b.Bytes())
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"数据库": {"database"}, "日志": {"log", "c++"}, "是否": {"yes", "no"}}, f.Entries,
		"quoted where YAML needs it: yes and no stay words")
	assert.Contains(t, b.String(), "Attribution: CC-CEDICT")
	assert.Contains(t, b.String(), "package p@1")
}
