// Package learn is skillroute's learner: it turns the feedback log
// (package feedback) into small, bounded weight deltas the scorer adds to
// BM25, checks on held-out records that the new deltas do not make routing
// worse, adopts them only then, and keeps snapshots to roll back to. Its
// neighbours each have one purpose of their own: learn/feedback keeps the
// log, learn/category sorts prompts into task categories, and
// learn/calibrate builds the per-category tables that decide whether
// injecting a skill pays at all.
//
// # Learning
//
// Learn recomputes the weights from the whole log each time, never
// incrementally: a record's weight is a function of its age now, so old
// feedback fades on schedule instead of compounding from whenever it was
// first applied (a defect of an earlier design). A record of age a counts
//
//	w = Rate × 0.5^(a / HalfLife) × (1 explicit | ImplicitFactor implicit)
//
// and moves the index terms the query actually matched: +w for each term of
// the skill the user wanted, −w for each term of the skill that was wrongly
// routed, and the same ±w on the skills themselves. A confirmation adds w/2
// to the routed skill: it reinforces, but only half as much as a correction
// moves, because "the user did not complain" is weaker evidence than "the
// user said so". Every delta is clamped to ±MaxDelta, so that no amount of
// feedback can bury a skill or let one keyword own the catalog, and only
// skills present in the index are learned (a whitelist: a typo or a removed
// skill never enters the weights).
//
// # Held-out check and adoption
//
// Split assigns each record to training or test by a hash of its content
// (70/30), so the split is the same in every process and on every run, and
// a record learned from is never the one that judges the learning. Trial
// learns on the training share and adopts the new weights only if routing
// the test share is at least as accurate as before (and something was held
// out at all). Update is the whole policy `skillroute learn` applies:
// trial, then, when adopted, weights learned from the whole log replace the
// current ones. Before weights are replaced the old ones go to snapshots/
// (the last MaxSnapshots are kept, numbered) and Rollback restores any of
// them. Weights and snapshots are JSON files in a versioned header
// (store.Codec); a damaged or newer file is an error naming it.
package learn
