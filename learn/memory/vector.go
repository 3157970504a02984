package memory

import (
	"hash/fnv"
	"math"
	"slices"

	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/tokenize"
)

// Term is one weighted term of a prompt's vector: the hash of the term
// (never its text) and its weight.
type Term struct {
	Hash   uint64  `json:"h"`
	Weight float32 `json:"w"`
}

// Vector is a prompt as the memory keeps it: its query terms (the
// router's own: words, phrases, synonyms, each at the tokenizer's weight)
// weighted by their rarity in the catalog, sorted by hash, of unit length,
// so that the cosine of two vectors is their dot product.
type Vector []Term

// Hash returns the id a term is kept under: FNV-1a (64 bits) of its
// normalised text. A vector holds ids only, so the memory file holds no
// prompt text (see the package doc on log_prompts).
func Hash(term string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(term))
	return h.Sum64()
}

// Vectorize returns the vector of a tokenized prompt over an index: the
// prompt's own terms, not the synonyms they expand to. A term weighs its
// query weight (1, less for negated words) × its IDF among the catalog's
// skills, every field counted: a word that many skills use ("优化",
// "code") says little about which request this is; one that no skill uses
// says as much as the rarest, because it names the request's own object
// ("Paddle", a product name). Synonyms are left out because they made
// short prompts about different things look alike (仓库 "warehouse" and
// git's "repository"): over the bookworm golden set, the nearest pair of
// prompts labelled with different skills fell from a cosine of 0.63 to
// 0.49 without them, while one-word paraphrases of dev.jsonl kept theirs
// (median 0.77 to 0.76). An empty query gives an empty vector.
func Vectorize(ix *index.Index, q tokenize.Query) Vector {
	if len(q.Terms) == 0 {
		return nil
	}
	v := make(Vector, 0, len(q.Terms))
	for _, t := range q.Terms {
		if t.From != "" {
			continue // a synonym's expansion
		}
		w := t.Weight * IDF(ix, t.Text)
		if w > 0 {
			v = append(v, Term{Hash: Hash(t.Text), Weight: float32(w)})
		}
	}
	return normalise(v)
}

// IDF returns a term's rarity among the catalog's skills, every field
// counted (index.IDF of the skills that have it): the weight a vector
// gives it, and that the router gives a learned keyword.
func IDF(ix *index.Index, term string) float64 {
	return index.IDF(ix.Skills.Len(), ix.DocFreq(term))
}

// normalise sorts v by hash, merges equal hashes (two terms whose hashes
// collide count as one, at the larger weight) and scales v to unit length.
func normalise(v Vector) Vector {
	slices.SortFunc(v, func(a, b Term) int {
		switch {
		case a.Hash < b.Hash:
			return -1
		case a.Hash > b.Hash:
			return 1
		}
		return 0
	})
	out := v[:0]
	for _, t := range v {
		if len(out) > 0 && out[len(out)-1].Hash == t.Hash {
			out[len(out)-1].Weight = max(out[len(out)-1].Weight, t.Weight)
			continue
		}
		out = append(out, t)
	}
	var norm float64
	for _, t := range out {
		norm += float64(t.Weight) * float64(t.Weight)
	}
	if norm == 0 {
		return nil
	}
	inv := 1 / math.Sqrt(norm)
	for i := range out {
		out[i].Weight = float32(float64(out[i].Weight) * inv)
	}
	return out
}

// Cosine returns the cosine of two vectors (both of unit length): the
// dot product, walking both in hash order.
func Cosine(a, b Vector) float64 {
	dot, _ := cosineShared(a, b)
	return dot
}

// Key identifies the prompt a vector was made from, whatever the weights:
// a hash of its term ids. Corrections of the same prompt share one entry
// even when the catalog (and so the weights) changed in between.
func (v Vector) Key() uint64 {
	// FNV-1a over the ids' bytes, inline: a rewrite keys every
	// remembered prompt, and hash.Hash's Write per id was a tenth of it.
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, t := range v {
		for i := range 8 {
			h ^= (t.Hash >> (8 * i)) & 0xff
			h *= prime
		}
	}
	return h
}
