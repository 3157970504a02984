// Package memory is the prompt memory: the prompts users corrected or
// confirmed, kept as vectors of their weighted terms, so that the router
// can route a new prompt that is near one of them to the skill the user
// taught, from the very next prompt on and whatever the shipped rules
// say.
//
// The learner (package learn) generalises: it moves keyword weights for
// every prompt, so it must prove on held-out records that it does no harm
// before its weights are adopted, and one correction moves them by a
// tenth. The memory does not generalise: it only acts on prompts close to
// one the user spoke about, so it needs no such gate, and one correction
// is enough for the prompt corrected.
//
// # Vectors
//
// A prompt's vector holds the router's own query terms (words, Chinese
// words, English phrases; not the synonyms they expand to), each weighted
// by its query weight × its IDF among the catalog's skills, scaled to unit
// length; two prompts are as near as the cosine of their vectors. Terms
// are kept as 64-bit hashes, never as text: the memory file holds no
// prompt text whatever the logging settings say, and a correction made
// when logs keep only prompt hashes is remembered all the same.
//
// # Evidence
//
// Each remembered prompt carries its events: who corrected it to what,
// when, and whether the user said so (explicit) or the session showed it
// (implicit). For a new prompt, every remembered prompt whose cosine
// reaches Threshold votes: each event by its weight (the learner's decay,
// half-life five days; implicit ones at half weight, an implicit
// confirmation at a quarter) × its closeness, (cosine / SameAt)² capped at 1, for the skill
// it was corrected to and against the skill it had been routed to. A
// skill's evidence is its votes less the positive votes of every other
// skill, so later corrections that disagree shrink what earlier ones
// taught. Evidence of PinAt or more puts the taught skill first; less
// moves it that share of the way there. With Threshold 0.5 and SameAt
// 0.95, one fresh correction of the same prompt pins it (evidence 1), and
// so does it for five days; a paraphrase at the threshold needs two
// (2 × (0.5 / 0.95)² = 0.55).
//
// # The file
//
// The memory lives in the state folder as memory.bin, in the store's
// checksummed cache frame: a term table with postings (term → remembered
// prompts), mapped into memory by the loader at each prompt and read in
// place, so that recalling among ten thousand remembered prompts costs the
// hook a fraction of a millisecond (BenchmarkRecall). It is rewritten
// whole, under its lock, by whoever adds or removes events: `skillroute
// correct` (and its --undo), `forget`, `learn` (which rebuilds it from the
// feedback log) and the hook when it records an implicit verdict. It is
// derived data: Build remakes it from the feedback log.
package memory
