package learn

import (
	"hash/fnv"
	"path/filepath"
	"time"

	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/learn/feedback"
)

// TrainShare is the share of records learned from; the rest judge the
// learning. The seed's 70/30: enough held out to notice a regression of a
// few records, enough kept to learn from.
const TrainShare = 0.7

// splitBuckets is the resolution of the split: a record's hash modulo
// splitBuckets below TrainShare × splitBuckets trains.
const splitBuckets = 1000

// Split divides records into a training and a test share, about
// TrainShare / (1 − TrainShare). The side of a record is decided by an FNV
// hash of its time, session, query and correction, never by a random
// number or its position: every process and every run splits the same way,
// a record appended later does not move older ones, and duplicates of a
// record land together, so the test share never grades what was learned.
//
// With two records or more, neither share is left empty: by chance alone
// eight corrections all fall in the training share one time in eighteen,
// and then nothing could be checked and nothing adopted. The record whose
// hash lies nearest the boundary crosses over, so the split stays a
// function of the records alone.
func Split(records []feedback.Record) (train, test []feedback.Record) {
	for _, r := range records {
		if inTrain(r) {
			train = append(train, r)
		} else {
			test = append(test, r)
		}
	}
	if len(records) < 2 {
		return train, test
	}
	switch {
	case len(test) == 0:
		i := nearestBoundary(train)
		test = append(test, train[i])
		train = append(train[:i:i], train[i+1:]...)
	case len(train) == 0:
		i := nearestBoundary(test)
		train = append(train, test[i])
		test = append(test[:i:i], test[i+1:]...)
	}
	return train, test
}

// nearestBoundary returns the record whose split hash lies nearest the
// train/test boundary.
func nearestBoundary(rs []feedback.Record) int {
	best, bestDist := 0, uint64(1<<63)
	cut := uint64(TrainShare * splitBuckets)
	for i, r := range rs {
		b := splitHash(r) % splitBuckets
		d := b - cut
		if b < cut {
			d = cut - b
		}
		if d < bestDist {
			best, bestDist = i, d
		}
	}
	return best
}

func inTrain(r feedback.Record) bool {
	return splitHash(r)%splitBuckets < uint64(TrainShare*splitBuckets)
}

func splitHash(r feedback.Record) uint64 {
	h := fnv.New64a()
	for _, part := range []string{r.TS.UTC().Format(time.RFC3339Nano), r.Session, r.Query, r.Corrected} {
		h.Write([]byte(part))
		h.Write([]byte{0}) // a separator, so "ab"+"c" differs from "a"+"bc"
	}
	return h.Sum64()
}

// Accuracy returns the share of test records that route answers rightly:
// route(Query) equals Corrected (which equals Routed for a confirmation;
// "" means abstaining was right). An empty test set scores 0.
func Accuracy(test []feedback.Record, route func(query string) string) float64 {
	if len(test) == 0 {
		return 0
	}
	right := 0
	for _, r := range test {
		if route(r.Query) == r.Corrected {
			right++
		}
	}
	return float64(right) / float64(len(test))
}

// Outcome is the result of a held-out check: how many records, how
// accurate routing the test share was without (Before) and with (After)
// the newly learned weights, and whether they were adopted.
type Outcome struct {
	Records int     `json:"records"`
	Train   int     `json:"train"`
	Test    int     `json:"test"`
	Before  float64 `json:"before"`
	After   float64 `json:"after"`
	Adopted bool    `json:"adopted"`
}

// Trial learns weights from the training share of records and routes the
// test share twice: with the current weights (may be nil) and with the new
// ones. route builds a routing function that applies the given weights.
// The new weights are adopted when After >= Before and the test share is
// not empty: with nothing held out there is no evidence either way, and
// the current weights stay. Trial only decides; saving is the caller's
// (Replace).
func Trial(records []feedback.Record, ix *index.Index, now time.Time, current *Weights, route func(*Weights) func(query string) string) (*Weights, Outcome) {
	train, test := Split(records)
	learned := Learn(train, ix, now)
	o := Outcome{Records: len(records), Train: len(train), Test: len(test)}
	o.Before = Accuracy(test, route(current))
	o.After = Accuracy(test, route(learned))
	o.Adopted = len(test) > 0 && o.After >= o.Before
	return learned, o
}

// Update is what `skillroute learn` does with the feedback log: it runs
// the held-out Trial of records against the weights now in dir (none when
// missing or unreadable) and, when the trial adopts and dryRun is false,
// replaces them (Replace: the old ones are snapshotted first) with weights
// learned from all the records. The trial has shown that learning from
// this log does not hurt held-out routing; what is adopted is then learned
// from the whole of it, so that no correction is lost to the held-out
// share. route is as for Trial. The outcome says what the trial found,
// and Adopted whether the weights were (or, dry, would be) adopted.
func Update(dir string, records []feedback.Record, ix *index.Index, now time.Time, route func(*Weights) func(query string) string, dryRun bool) (Outcome, error) {
	current, err := LoadWeights(filepath.Join(dir, WeightsFile))
	if err != nil {
		current = nil // judged against routing without weights; Replace keeps an unreadable file aside
	}
	_, out := Trial(records, ix, now, current, route)
	if out.Adopted && !dryRun {
		if err := Replace(dir, Learn(records, ix, now)); err != nil {
			return out, err
		}
	}
	return out, nil
}
