package tokenize

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/skillroute/skillroute/internal/table"
)

// Chinese lets a word open to take a particle or an adverb inside it: a
// user writes 磁盘快满 for 磁盘满 ("the disk is almost full"), 不能停服 for
// 不停服, 改得自然 for 改自然, props 一层层往下传 for 一层层传. Matched whole
// only, such a dictionary word is lost, and with it the synonyms and the
// concept it stands for. So a prompt's Han run also meets a dictionary
// word of three characters or more written with a gap: the word's two
// parts in order, with one to three gap characters between them, each of
// them a function character or a light adverb (gapFillers). A gap of
// content characters is no gap: 数据处理库 is no 数据库, 机器和没人 no 机器人,
// 状态都以代码 no 状态码.
//
// Only prompts are read this way; a skill's text is matched as written,
// so the index, and its cost, are unchanged. A gapped word is one piece
// of evidence with the words cut from its stretch, as a compound is (its
// span covers theirs), and it counts at GappedWeight. Measured with
// skillroute eval: train-real 151 -> 152 of 176, real-fresh4 66 -> 67 of
// 80 (props 一层层往下传六七层); real-fresh gained one and lost one to a
// near tie; the built-in catalog's sets are the same.

// GappedWeight is the weight of a dictionary word met with a gap. Below 1,
// as the gap leaves room for a reading the word does not have, and at or
// above 0.6, so that it still names a skill's keyword (the router's
// specific check). With skillroute eval on the tuning sets (the
// published skills' and the built-in catalog's, eval/testdata), 0.6 and
// 0.8 were right on the same prompts; 1 lost one of paraphrase.jsonl's.
const GappedWeight = 0.8

// maxGap is the longest gap, in characters: 算不算 in 差异算不算显著.
const maxGap = 3

// gapFillers are the characters a gap may hold: the structural particles
// (的地得了着过), measure word 个, and the adverbs, auxiliaries and
// interrogatives that slip inside a verb phrase (也都还就又再很太真快老,
// 能会要, 怎么, 算不, 往下, 掉到做). 和, 与 and 或 join two things and
// never close a gap.
const gapFillers = "的地得了着过个也都是还就又再很太真快老能会要怎么算不往下掉到做"

func isGapFiller(r rune) bool { return strings.ContainsRune(gapFillers, r) }

// maxLeft is the longest first part of a gapped word, in characters:
// 一层层 in 一层层往下传.
const maxLeft = 4

// gappedWords appends a token for each word of dict that run (a run of
// Han characters at offset) holds with a gap, and not whole. The search
// starts from the gaps: at each gap character, the one to maxLeft
// characters before it are a first part, and the words of dict that start
// with it are tried for the rest after one to maxGap gap characters.
// Started from every character instead, it cost the tokenizer 13 % on
// real-dev's prompts (BenchmarkStagesRealDev/tokenize, 73.8 -> 83.8 µs,
// p < 0.001); started from the gaps, 6 % (77.7 -> 82.6 µs, p = 0.010,
// eight runs each by turns), about 5 µs a prompt, and no route
// benchmark's difference is significant (BENCHMARKS.md, session 24).
func gappedWords(out []token, dict table.Strings, run string, offset int) []token {
	n := dict.Len()
	var starts [maxLeft]int // byte offsets of the characters before the gap, nearest first
	seen := 0
	for j, r := range run {
		if seen > 0 && isGapFiller(r) {
			ends := gapEnds(run, j)
			for _, i := range starts[:min(seen, maxLeft)] {
				left := run[i:j]
				for k := sort.Search(n, func(k int) bool { return dict.At(k) >= left }); k < n; k++ {
					w := dict.At(k)
					if !strings.HasPrefix(w, left) {
						break
					}
					rest := w[len(left):]
					if rest == "" || utf8.RuneCountInString(w) < 3 || strings.Contains(run, w) {
						continue // no gap to bridge, too short, or written whole
					}
					for _, e := range ends {
						if e > 0 && strings.HasPrefix(run[e:], rest) {
							out = append(out, token{text: w, pos: offset + i, surface: run[i : e+len(rest)], gapped: true})
							break
						}
					}
				}
			}
		}
		copy(starts[1:], starts[:maxLeft-1])
		starts[0] = j
		seen++
	}
	return out
}

// gapEnds returns where a gap that starts at j (a gap character) may end:
// after one, two or three gap characters, 0 where it cannot.
func gapEnds(run string, j int) [maxGap]int {
	var ends [maxGap]int
	for g := range maxGap {
		r, size := utf8.DecodeRuneInString(run[j:])
		if size == 0 || !isGapFiller(r) {
			break
		}
		j += size
		ends[g] = j
	}
	return ends
}
