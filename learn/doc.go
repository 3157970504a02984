// Package learn closes skillroute's feedback loop: it keeps the log of what
// users corrected and confirmed, turns that log into small, bounded weight
// deltas the scorer adds to BM25, checks on held-out records that the new
// deltas do not make routing worse, and builds the per-category calibration
// tables that decide whether injecting a skill pays at all.
//
// # The feedback log
//
// Every correction ("that should have been performance-expert") and every
// confirmation (the session went on to use the routed skill) is one JSON
// line in feedback.jsonl, appended under the file's lock in a single write
// (state.AppendLine), so any number of hook processes may append at once
// without tearing each other's lines. When the file grows past MaxLogBytes
// it is renamed to feedback-<UTC time>.jsonl and a new one started; Read
// merges all of them, oldest first. A line that does not parse (a crash in
// the middle of a write, a hand edit) is skipped with a warning naming its
// file and line: one bad line never costs the rest of the history.
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
// # Held-out check and snapshots
//
// Split assigns each record to training or test by a hash of its content
// (70/30), so the split is the same in every process and on every run, and
// a record learned from is never the one that judges the learning. The
// router learns on the training share and adopts the new weights only if
// routing the test share is at least as accurate as before (Trial does
// both steps given a routing function). Before weights are replaced, the
// old ones go to snapshots/ (the last MaxSnapshots are kept) and Rollback
// restores any of them.
//
// # Calibration tables
//
// Routing a prompt to the right skill is one question; whether injecting a
// skill into the context is worth its tokens is another. Calibration
// tables answer the second per task category (Classify: debug, implement,
// test, ...): samples of (category, arm, cost, correct) are aggregated into
// cells, and a preset picks one arm per category. The rules follow agentos's
// adaptive router with its inconsistencies fixed: one epsilon for every
// comparison (an exact 2-point gap is within a 2-point tolerance), a caller's
// fallback table for both "no samples" and "too few samples", and "no arm
// has ever been right" meaning no injection under every preset. Each entry
// records whether it was calibrated, taken from the fallback table, or left
// to the static prior (the BM25 decision alone).
package learn
