// Package store owns every file skillroute keeps: where the state folder
// is, how a file is replaced, how a log grows and rotates, how a small JSON
// file and a binary cache are framed and checked. Several Claude Code
// sessions run hooks at once, processes are killed at any point, disks
// fill up, and the state folder may sit in a shared $TMPDIR; every rule
// below exists so that none of that loses or tears a record, or lets
// another local user in.
//
// # The folder
//
// DefaultDir says where state lives ($CLAUDE_PLUGIN_DATA, else
// $SKILLROUTE_HOME, else ~/.claude/skillroute); it takes the environment
// as a function, because this package reads none: the command resolves the
// folder once and passes it down. Folders made for state are created 0700
// and files 0600, since the logs hold prompt text. A state folder that is
// not the user's own (or a symlink to one, or one inside a folder another
// user owns) is refused with ErrNotOwned before anything is read or
// written in it: otherwise a folder planted in a shared $TMPDIR would
// receive, or feed, the user's state.
//
// # Whole files
//
// Write replaces a file atomically: a temp file in the same folder,
// written and fsynced, renamed over the old one, then the folder fsynced,
// so that after a crash or power loss the file is the old version or the
// new, never empty or half. A file that already exists keeps its own mode
// (the user's 0644 settings.json stays 0644), a symlink is written through
// to its target (never replaced by a plain file), and a read-only file is
// refused with ErrReadOnly. Temp files left by killed writers are removed
// when their folder is next written (a Codec that keeps them leaves them
// to its caller's CleanTemps: the hook cleans its sessions at each
// session's start rather than list the folder on every prompt). The files the hook rewrites on every
// prompt skip the fsyncs (Codec.NoSync, and the decisions and hook logs
// append unsynced): on a busy disk an fsync waits for everyone's data, and
// losing the last context update to a power cut is the better trade. Such
// a file replaces the old one by exchanging the two names (renameat2's
// RENAME_EXCHANGE, on Linux), then removing the old one: a rename over an
// existing file makes ext4 write the new file's data out at once. Callers that read, change and write
// hold the file's lock (Lock) across the three steps.
//
// # Locks
//
// Lock holds an advisory lock (flock) on a sibling NAME.lock file until
// its function returns, waiting no longer than its context allows: the
// hook has 200 ms in all, and a lock it cannot get is an error it shrugs
// off (ErrBusy) rather than a prompt kept waiting.
//
// # Small JSON files
//
// Codec reads and writes the small JSON state files (sessions, workflow
// statistics, learned weights and their snapshots, the calibration table)
// inside one header, {"skillroute": KIND, "version": N, "data": ...}. A
// file of a newer version, of another kind or damaged is an error naming
// the file (ErrVersion, ErrDamaged); a file written before the header
// existed is read as version 1 of its kind, so upgrading loses nothing.
//
// # Logs
//
// A Log (decisions.jsonl, hook.log, feedback.jsonl) takes one line per
// Append, written in one write(2) under the log's lock. An append always
// starts on a fresh line: if the file does not end in a newline (a writer
// killed mid-line, a full disk) one is written first, so a torn line never
// swallows the next record. Rotation happens under the same lock as the
// appends, so no append can land in a file being renamed away. Rotated
// files are numbered (NAME-1.jsonl, NAME-2.jsonl, ...), never named by the
// clock, so their order survives a clock that jumps; Keep bounds how many
// are kept (the feedback log keeps them all, and reads them in order).
//
// # Binary caches
//
// The compiled index and the checked rules are cached in binary files that
// the hook maps on every prompt. WriteCache frames a payload with a
// 32-byte header: magic, kind, format version, CRC-32C (Castagnoli, which
// the CPU computes) and payload length. LoadCache checks all of it, so a
// truncated, damaged or foreign file is an error (ErrDamaged, ErrVersion)
// and the caller rebuilds, instead of panicking or silently routing on bad
// data. Checking the CRC reads every page of the file, which a 300 MB index
// cannot afford on every prompt: the first load after a write verifies in
// full and remembers it in a tiny sidecar (.NAME.verified) keyed by the
// file's identity (device, inode, size, modification and change times);
// later loads of the same, unchanged file skip the pass. Any write to the
// file changes its identity and forces a new verification. WriteCache
// makes that first load itself, so that the full pass falls to the
// compile that wrote the file and not to a hook with 200 ms to spend. The
// identity comes from the file system's clock, which ticks every few
// milliseconds: a rewrite in place, same size, within the same tick as the
// verification would go unnoticed. skillroute never rewrites a cache in
// place (it replaces it, a new inode), so this only concerns outside
// writers.
package store
