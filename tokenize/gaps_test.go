package tokenize_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillroute/skillroute/tokenize"
)

// TestGappedWords pins what a prompt's Chinese meets with a gap: a
// dictionary word of three characters or more whose parts the prompt
// writes around function characters or light adverbs, and nothing where
// the gap holds content or a conjunction.
func TestGappedWords(t *testing.T) {
	dict := []string{"磁盘满", "不停服", "一层层传", "改自然", "差异显著", "数据库", "机器人", "状态码", "微信支付", "磁盘", "日志"}
	tests := []struct {
		prompt  string
		gapped  []string // the terms met with a gap
		surface string   // the first one's stretch of the prompt
	}{
		{"磁盘快满了，怎么提前告警", []string{"磁盘满"}, "磁盘快满"},
		{"表很大，迁移时不能停服", []string{"不停服"}, "不能停服"},
		{"props 一层层往下传太麻烦", []string{"一层层传"}, "一层层往下传"},
		{"帮我把这段改得自然点", []string{"改自然"}, "改得自然"},
		{"这个差异算不算显著", []string{"差异显著"}, "差异算不算显著"},
		// A gap of content, or of a conjunction, is no gap.
		{"pandas 数据处理库选哪个", nil, ""},
		{"几台闲着的机器和没人管的磁盘", nil, ""},
		{"部署状态都以代码仓库为准", nil, ""},
		{"同时发微信和支付宝两个端", nil, ""},
		// A gap longer than three characters.
		{"不再也还能停服", nil, ""},
		// Written whole, the word is met as itself.
		{"磁盘满了", nil, ""},
		// Two-character words are matched whole only: 磁…盘 is no word.
		{"磁也盘", nil, ""},
		// The gap stays inside one run of Chinese.
		{"磁盘 快 满", nil, ""},
	}
	tk := tokenize.New(dict, nil)
	for _, tc := range tests {
		t.Run(tc.prompt, func(t *testing.T) {
			var got []string
			var first tokenize.Term
			for _, tm := range tk.Tokenize(tc.prompt).Terms {
				if tm.Weight == tokenize.GappedWeight {
					if got == nil {
						first = tm
					}
					got = append(got, tm.Text)
				}
			}
			assert.Equal(t, tc.gapped, got)
			if tc.surface != "" {
				assert.Equal(t, tc.surface, first.Surface)
			}
		})
	}
	// A skill's text is indexed as written: 磁盘快满 there is no 磁盘满.
	assert.NotContains(t, tk.Words("磁盘快满时发告警"), "磁盘满")
	// Written whole and with a gap, the word counts at full weight.
	assert.Equal(t, 1.0, terms(tk.Tokenize("磁盘满了，磁盘快满"))["磁盘满"].Weight)
}

// TestGappedWordsCarryTheirSynonyms: a word met with a gap expands as
// the word does, the reason to meet it at all.
func TestGappedWordsCarryTheirSynonyms(t *testing.T) {
	syn, err := tokenize.NewSynonyms(tokenize.SynonymGroup{ID: "prop-drilling",
		Words:   []tokenize.SynonymWord{{Text: "一层层传"}},
		Implies: []tokenize.SynonymWord{{Text: "prop drilling"}}})
	if err != nil {
		t.Fatal(err)
	}
	tk := tokenize.New(syn.WordList(), syn)
	got := terms(tk.Tokenize("props 一层层往下传"))["prop drill"]
	assert.InDelta(t, tokenize.GappedWeight*tokenize.ImpliedWeight, got.Weight, 1e-9)
	assert.Equal(t, "一层层传", got.From)
}
