// Package action decides, after the router, what to put in front of the
// model for a prompt at all. The router answers "which skill, if any";
// this layer answers "what kind of help": one of six actions.
//
//	direct_answer     nothing: the model answers from the prompt and what it knows
//	inject_memory     a fact the user asked to remember (the package recall keeps them)
//	load_skill        the skill the router recommends
//	call_tool         a hint to use a tool the user declared (tools.yaml), for live state
//	clarify           a one-line suggestion to ask the user first
//	composite_action  several of the above, in the order memory → skill → tool
//
// It sits after the router in the dependency order (router ← action ←
// hook, eval, cmd) and never changes what the router routed: the skill of
// a load_skill step is always the router's, and when the router abstains
// there is no skill to load.
//
// # Candidates
//
// Each thing the layer could use is a Candidate with the same five
// features in [0, 1]: confidence (the router's for the skill; for a
// memory or a tool, the retrieval's, from BM25 over its text and how much
// of the prompt it covers), success_rate (the learned policy's, else a
// Beta prior's mean of 0.5), cost (the share of the injection budget it
// takes, or a tool's declared cost), freshness (a memory's, halving every
// 90 days; skills and tools are as current as their files), risk (a
// tool's declared risk), and its preconditions (the step types that must
// come first: a tool whose argument only a fact supplies). Layer gathers
// them into an Input: everything a router decides on, and what a
// trajectory logs.
//
// # Two routers
//
// Rule is the seed's baseline, kept to measure against: trigger words
// (why/think/design/name; check/run/open/current/list/time;
// prefer/remember/usually/my/our; fix/deploy/review/setup/workflow, and
// their Chinese counterparts) and fixed gates, resolved in the order tool
// > memory > skill > direct_answer > clarify. Feature, the default,
// scores every candidate linearly with weights of its own type (memory
// weighs freshness, tool its risk, skill its success rate) plus the
// prompt's cues (asking for live state, referring to the user's own
// conventions, wanting only a short answer, destroying something), takes
// the best of each type that clears its bar, and composes when several
// types clear together. A candidate that failed in the session in the
// last half hour loses 0.5; a tool above the risk gate (0.7) is never
// suggested; a destructive request that names no target, or one that
// relies on an unstored preference, is answered with a question.
//
// Every decision carries a Breakdown: each candidate's score with each
// feature's value × weight = contribution, its bar, and the gates' reason
// codes (below_threshold, failure_penalty, risk_gate,
// precondition_failed:<type>, composite_margin, prompt_names_target,
// redundant_with_tool, explore), and the decision's own
// (single_type_cleared, types_cleared_together, nothing_cleared,
// destructive_unspecified, risky_tool_only, preference_not_stored,
// closing_turn; the rule router's rule:<set>).
//
// # Trajectories, replay and the learned policy
//
// The hook logs every decision with its Input, router, router version and
// policy version (trajectory.go), and appends the turn's tool calls to
// it. Both routers are pure functions of an Input, so Replay re-runs any
// router over the log and gets, for the router and policy that made a
// decision, that decision byte for byte; for another router, what would
// have changed, by task category, and the outcome metrics (adoption of
// recommended skills and tools, success after adoption, injection rate,
// tokens injected). The policy (policy.go) turns logged outcomes into
// per-(category, action) Beta posteriors, the feature router's
// success_rate once enabled, with an exploration rate that is off by
// default and bounded. No model is ever called on the hook's path.
package action
