package eval_test

import (
	"os"
	"testing"

	"github.com/skillroute/skillroute/eval"
	"github.com/skillroute/skillroute/loader"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	shared   = "../../shared/"
	bookworm = shared + "bookworm/"
)

func evaluate(t *testing.T, opt loader.Config, file string) eval.Summary {
	t.Helper()
	if _, err := os.Stat(file); err != nil {
		t.Skipf("%s is not present beside the project; skipping (%v)", file, err)
	}
	f, err := eval.Read(file)
	require.NoError(t, err)
	r, err := loader.Open(opt)
	require.NoError(t, err)
	rep := eval.Summarize(eval.RouteCases(r, f.Cases))
	t.Logf("%s: %+v", file, rep.Summary)
	return rep.Summary
}

// The side-by-side comparison: on the peer's own catalog, rules and
// synonyms, strict top-1 on its golden set must reach 85 % (the Node.js
// router scores 78.3 %). The peer never abstains (it falls back to a
// generalist), and its golden set has no "none" prompts, so the first
// candidate is compared; top-1 with abstentions counted as misses is
// logged beside it and bounded too.
func TestBookwormGoldenTop1(t *testing.T) {
	if _, err := os.Stat(bookworm + "skills-index.json"); err != nil {
		t.Skip("../shared/bookworm is not present; the side-by-side test needs the peer's data")
	}
	s := evaluate(t, loader.Config{
		Catalog:  bookworm + "skills-index.json",
		Rules:    bookworm + "disambiguation-rules.json",
		Synonyms: bookworm + "synonyms.json",
	}, bookworm+"golden-dev.jsonl")
	assert.GreaterOrEqual(t, s.Top1Ranked, 0.85, "ranked top-1")
	assert.GreaterOrEqual(t, s.Top1, 0.82, "top-1 with abstentions as misses")
}

// Accuracy of the built-in catalog on the labelled dev prompts. The bounds
// sit a little under the measured values (README) so that a regression
// fails CI.
func TestBuiltinDevAccuracy(t *testing.T) {
	s := evaluate(t, loader.Config{Catalog: loader.Builtin}, shared+"eval/dev.jsonl")
	assert.GreaterOrEqual(t, s.Top1, 0.95, "top-1")
	assert.GreaterOrEqual(t, s.Top3, 0.98, "top-3")
	assert.GreaterOrEqual(t, s.NoneCorrect, 0.90, "none prompts abstained")
	assert.LessOrEqual(t, s.FalseAbstain, 0.03, "skill prompts wrongly abstained")
}

// Plain skills (name and description only) must route well too: with every
// keyword tier derived from the text, top-1 stays above 70 %.
func TestDerivedKeywordsAccuracy(t *testing.T) {
	s := evaluate(t, loader.Config{Catalog: loader.Builtin, DeriveKeywords: true}, shared+"eval/dev.jsonl")
	assert.GreaterOrEqual(t, s.Top1, 0.90, "top-1 with derived keywords")
}

// Multi-turn sessions replayed through the hook's code path: with session
// context top-1 must pass 85 % (bound set under the measured 97.9 %) and
// beat the same turns routed alone by at least 20 points.
func TestSessionContextAccuracy(t *testing.T) {
	file := shared + "eval/sessions-dev.jsonl"
	if _, err := os.Stat(file); err != nil {
		t.Skipf("%s is not present beside the project; skipping (%v)", file, err)
	}
	f, err := eval.Read(file)
	require.NoError(t, err)
	require.NotEmpty(t, f.Sessions)
	r, err := loader.Open(loader.Config{Catalog: loader.Builtin})
	require.NoError(t, err)
	alone, err := eval.RouteSessions(r, f.Sessions, false)
	require.NoError(t, err)
	fused, err := eval.RouteSessions(r, f.Sessions, true)
	require.NoError(t, err)
	without, with := eval.Summarize(alone).Summary, eval.Summarize(fused).Summary
	t.Logf("without context %+v", without)
	t.Logf("with context %+v", with)
	assert.GreaterOrEqual(t, with.Top1, 0.90)
	assert.GreaterOrEqual(t, with.Top1-without.Top1, 0.20, "context must add 20 points")
	assert.GreaterOrEqual(t, with.NoneCorrect, 1.0, "closing turns stay silent")
}

// testdata/fresh.jsonl was written from the catalog's scope table alone,
// by an author who saw neither the skills, the rules nor dev.jsonl, and is
// not used for tuning: it stands for the prompts the router has not seen.
// Bounds sit under the measured 95.0 % top-1 and 95 % abstention.
func TestFreshPromptsAccuracy(t *testing.T) {
	s := evaluate(t, loader.Config{Catalog: loader.Builtin}, "testdata/fresh.jsonl")
	assert.GreaterOrEqual(t, s.Top1, 0.90, "top-1")
	assert.GreaterOrEqual(t, s.Top3, 0.95, "top-3")
	assert.GreaterOrEqual(t, s.NoneCorrect, 0.90, "none prompts abstained")
	assert.LessOrEqual(t, s.FalseAbstain, 0.05, "skill prompts wrongly abstained")
}

// testdata/fresh2.jsonl (built-in catalog) and testdata/real-fresh.jsonl
// (the real-dev catalog of published skills) were written in session 14
// by authors who had read only the catalog's scope table or the skills'
// descriptions: no keywords, rules, bodies or other prompts. Their odd
// lines were read once for that session's synonyms and again in session
// 15 for its tier boosts and rule verdicts, which their even lines
// checked; fresh2's even lines never; real-fresh's misses were listed
// whole twice (its Chinese ones in session 14, all at session 15's start)
// but nothing was changed for them.
// They show what the router does on prompts unlike the ones it was tuned
// on: paraphrases are the weak kind (75 % and 71 % top-1), and Chinese
// prompts trail English ones by 22 points on published skills. Bounds
// sit a prompt or two under the measured figures (fresh2: 86.4 % top-1,
// none 76.5 %, HIGH 98.2 %; real-fresh: 86.3 %, none 79.3 %, HIGH 97.4 %).
//
// testdata/fresh3.jsonl and testdata/real-fresh2.jsonl were written the
// same way in session 15, fresh3 in dev.jsonl's kinds (direct, disambig,
// noisy, paraphrase, none), and measured once before anything was read:
// fresh3 86.1 % top-1 (84.7 % at 4aea040, before session 15), none
// 93.8 %, HIGH 98.1 %, Chinese 71.9 %; real-fresh2 86.8 % (87.7 % at
// 4aea040), none 87.5 %, HIGH 98.3 %, Chinese 83.8 % against English
// 83.3 %. fresh3's odd lines were read once, after that measurement.
// Session 16's vocabulary (from the training sets below) and rule edits
// took fresh2 to 87.5 % and fresh3 to 88.9 % (its unread even lines
// 62 -> 63 of 72), HIGH 99.1 % and 100 %.
//
// testdata/noisy.jsonl was written in session 16 the same way: 120
// prompts of pasted material (stack traces, logs, code, configs) around a
// short request, for 40 skills; measured once, its seven misses read:
// 94.2 % top-1, HIGH 97.4 %. No prompt there needs no skill.
//
// testdata/paraphrase.jsonl, also session 16's, holds nothing but
// paraphrases (200, half English, half Chinese: the situation told, the
// skill's topic words left out), the router's weakest kind: measured
// once, 67.5 % top-1 and HIGH precision 87.1 % (101 HIGH), where a
// named technology or business object of one skill (微信支付, FastAPI,
// iOS) outweighs the task another is asked for. A second round of
// keywords from its misses, tried and not kept, moved no prompt of the
// sets above for the better.
//
// Session 17 gave every built-in skill a situations field (twelve
// situations in users' words, written from the catalog table and the
// skill's file alone, never from a prompt): fresh2 87.5 -> 93.2 % (its
// unread even lines 71 -> 78 of 84), HIGH 97.1 %; fresh3 88.9 -> 95.1 %
// (even lines 63 -> 68 of 72), none 93.8 -> 87.5 %, HIGH 99.2 %;
// paraphrase.jsonl 67.5 -> 79.0 %, HIGH 87.1 -> 91.5 %; noisy.jsonl
// 94.2 -> 93.3 %. Rules that read the prompt's own words (Text.Prose)
// then took fresh2 to 93.8 % (even lines 79 of 84) and noisy.jsonl to
// 92.5 %.
//
// testdata/fresh4.jsonl (180 prompts for the built-in catalog, in
// dev.jsonl's kinds, 35 of them disambig) and testdata/real-fresh3.jsonl
// (160 for the published skills, 35 needing none) were written in session
// 17 the same way and never read. fresh4, measured before the situations
// and once after: 86.5 -> 89.0 % top-1, HIGH 94.5 -> 96.1 % (128 HIGH),
// paraphrases 76 -> 90 %, none 64 % both times, 68 % with category.Chat
// (measured a third time). real-fresh3, which the situations do not
// touch, measured before and after category.Chat: 82.4 %, none 88.6 ->
// 91.4 %, HIGH 98.3 %, Chinese 70.0 % against English 91.1 %, its noisy
// prompts 72 %.
//
// testdata/noisy2.jsonl (80 for the built-in catalog) and
// testdata/real-noisy.jsonl (80 for the published skills), written in
// session 18 the same way and never read, paste a command's output, a
// config, a table or a colleague's message around the request; 20 of each
// need no skill (a one-line question about the paste, thanks after it).
// Measured before and after the turn and the question stage read the
// user's own words (router/quiet.go), once more after context.Short, and
// a fourth time after the noise reader kept a typist's double spaces and
// a question under a command as the user's: top-1 93.3 % and 96.7 %
// throughout; no-skill prompts silent 0 -> 35 -> 20 -> 15 % and 5 -> 40
// -> 25 -> 25 %; HIGH precision 88.3 -> 93.0 % and 91.7 -> 93.2 %, its
// misses no-skill prompts read HIGH.
//
// Session 20 widened the near tie kept from HIGH (router.TieMargin, 0.1
// -> 0.2, chosen on the training and dev sets' hash halves) and measured
// these sets once more: no top-1 or none prompt moved; HIGH precision
// fresh4 96.1 -> 97.6 % (124 HIGH), real-fresh3 98.4 -> 100 % (59),
// noisy2 93.1 -> 94.7 % (57), real-noisy 93.2 -> 94.7 % (57), the noisy
// sets' misses still no-skill prompts; paraphrase.jsonl 91.4 -> 96.5 %.
// Measured once more at the session's end, after a thin match came to
// abstain (router/quiet.go) and pasted material to meet no extended
// keyword an author wrote (bm25.counts): fresh4 top-1 89.0 -> 90.3 %,
// none 68 -> 72 %, HIGH 97.6 % (123); real-fresh3 82.4 %, none 94.3 %,
// HIGH 100 % (60); noisy2 95.0 %, none 15 -> 25 %, HIGH 96.4 % (56);
// real-noisy 96.7 %, none 20 -> 40 %, HIGH 96.4 % (56).
//
// testdata/real-fresh4.jsonl to real-fresh7.jsonl (100 each for the
// published skills, 20 of each needing none) were written blind in
// sessions 23 to 25 by helpers that read only the skills' frontmatter,
// two in five prompts paraphrases. Each was measured as it came, then its
// odd lines' misses were read (real-fresh7's not yet): real-fresh4 82.5 %
// (66 of 80), none 85 %; real-fresh5 81.2 %, none 65 %, HIGH 95.7 % (46);
// real-fresh6 91.2 % (73 of 80), none 60 %, HIGH 100 % (49); real-fresh7
// 88.8 % (71 of 80), none 60 %, HIGH 98.0 % (51).
func TestHeldOutPromptsAccuracy(t *testing.T) {
	checkBounds(t, []bound{
		{"testdata/fresh2.jsonl", loader.Builtin, 0.92, 0.70, 0.95},
		{"testdata/real-fresh.jsonl", shared + "eval/real-dev/skills", 0.84, 0.75, 0.95},
		{"testdata/fresh3.jsonl", loader.Builtin, 0.93, 0.8, 0.95},
		{"testdata/real-fresh2.jsonl", shared + "eval/real-dev/skills", 0.84, 0.8, 0.95},
		{"testdata/noisy.jsonl", loader.Builtin, 0.92, 0, 0.95},
		{"testdata/paraphrase.jsonl", loader.Builtin, 0.78, 0, 0.95},
		{"testdata/fresh4.jsonl", loader.Builtin, 0.89, 0.7, 0.97},
		{"testdata/real-fresh3.jsonl", shared + "eval/real-dev/skills", 0.8, 0.88, 0.98},
		{"testdata/noisy2.jsonl", loader.Builtin, 0.91, 0.2, 0.95},
		{"testdata/real-noisy.jsonl", shared + "eval/real-dev/skills", 0.95, 0.35, 0.95},
		{"testdata/real-fresh4.jsonl", shared + "eval/real-dev/skills", 0.82, 0.8, 0.97},
		{"testdata/real-fresh5.jsonl", shared + "eval/real-dev/skills", 0.8, 0.7, 0.95},
		{"testdata/real-fresh6.jsonl", shared + "eval/real-dev/skills", 0.9, 0.6, 0.97},
		{"testdata/real-fresh7.jsonl", shared + "eval/real-dev/skills", 0.87, 0.55, 0.95},
	})
}

// bound is the least a labelled set must reach on its catalog.
type bound struct {
	file             string
	catalog          string
	top1, none, high float64
}

// checkBounds evaluates each set and holds it to its bound; a set of the
// published skills is skipped where they are not beside the project.
func checkBounds(t *testing.T, sets []bound) {
	for _, tc := range sets {
		t.Run(tc.file, func(t *testing.T) {
			if _, err := os.Stat(tc.catalog); tc.catalog != loader.Builtin && err != nil {
				t.Skipf("%s is not present beside the project; skipping", tc.catalog)
			}
			s := evaluate(t, loader.Config{Catalog: tc.catalog}, tc.file)
			assert.GreaterOrEqual(t, s.Top1, tc.top1, "top-1")
			if s.NoneN > 0 { // a set of skill prompts only has no silence to hold
				assert.GreaterOrEqual(t, s.NoneCorrect, tc.none, "none prompts abstained")
			}
			assert.GreaterOrEqual(t, s.HighPrecision, tc.high, "precision of HIGH decisions")
		})
	}
}

// testdata/train-builtin.jsonl (300 prompts for the built-in skills) and
// testdata/train-real.jsonl (176 for the published ones) were written in
// session 16 by authors who saw only the catalog table or the skills'
// descriptions, mostly paraphrases and Chinese, and then tuned on: their
// misses were read, and the words behind them went into the built-in
// skills' keywords and the synonyms (208 -> 258 and 139 -> 148 right;
// the built-in set 264 with session 17's situations, which were not
// written from it). They are held at what they reach, so that no later
// change loses that vocabulary unnoticed. Their HIGH precision (93.4 %
// and 95.1 %) sat under the held-out sets': they hold many prompts that
// name one skill's technology and ask for another's work, a kind the
// held-out sets have fewer of. A near tie of 20 % kept from HIGH
// (router.TieMargin) took them to 96.8 % and 96.2 %.
//
// testdata/train-none.jsonl (100 prompts that need no skill: concepts,
// one-liners, opinions, small talk, facts about a named tool), written in
// session 17 from the catalog table alone and tuned on (category.Chat):
// 39 -> 60 silent. It labels every developer question none, where the
// built-in catalog's sets send a concept to developer-expert and a git or
// regex one-liner to its specialist; those it counts as misses.
//
// testdata/train-noisy.jsonl (100, built-in skills) and
// train-noisy-real.jsonl (90, published skills) are pasted material
// around a short request, written in session 17 from the catalog table or
// the descriptions alone. The built-in set showed the situations cost
// noisy prompts (90 -> 87 right) through rules that fired on pasted
// words; reading rules on the prompt's own words (tokenize.Text.Prose)
// took it to 91; reading program output and documents quoted between
// "---" lines as pasted (session 18), to 93. The published set reads
// 92.2 % throughout.
//
// testdata/train-noisy3.jsonl (120, published skills), written in session
// 18 from the descriptions alone, pastes a command's output, a config or a
// table around the request; 20 of its prompts need no skill (a question
// about the paste, thanks after it). Those went 0 -> 5 silent once the
// turn and the question stage read the user's own words (router/quiet.go);
// its skill prompts read 96 % before and after.
func TestTrainingSetsAccuracy(t *testing.T) {
	checkBounds(t, []bound{
		{"testdata/train-builtin.jsonl", loader.Builtin, 0.87, 0, 0.95},
		{"testdata/train-real.jsonl", shared + "eval/real-dev/skills", 0.83, 0, 0.92},
		{"testdata/train-none.jsonl", loader.Builtin, 0, 0.58, 0},
		{"testdata/train-noisy.jsonl", loader.Builtin, 0.91, 0, 0.95},
		{"testdata/train-noisy-real.jsonl", shared + "eval/real-dev/skills", 0.9, 0, 0.92},
		{"testdata/train-noisy3.jsonl", shared + "eval/real-dev/skills", 0.95, 0.25, 0.94},
	})
}
