package action

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/skillroute/skillroute/skills"
	"github.com/skillroute/skillroute/store"
)

// A trajectory is one decision and what followed it in its turn: the
// decision line, written by the hook when the prompt is routed, carries
// everything replay needs (the Input the router saw, the router and its
// version, the policy's version), and the tool calls of the turn
// (PostToolUse, PostToolUseFailure, a typed /command) are appended as
// lines of their own that name the decision, the session's latest. The
// file is append-only: nothing is ever rewritten in place, so concurrent
// hooks never lose a line, and a reader joins the lines by decision id.
//
// Outcomes are credited to the logged decision, never to one recomputed
// later (the mistake of an earlier router that re-predicted an old
// prompt to reward it), and to each step of a composite on its own.

// TrajectoryFile is the trajectory log's name in the state folder; it is
// rotated (store.Log) to trajectories-1.jsonl at MaxTrajectoryBytes.
const TrajectoryFile = "trajectories.jsonl"

// MaxTrajectoryBytes is the size at which the log is rotated: a decision
// line is one to three kilobytes, so 4 MiB holds a few thousand turns,
// weeks of work, and the rotated file as many again.
const MaxTrajectoryBytes = 4 << 20

// readLockWait bounds how long ReadTrajectories waits for the hooks'
// appends to let go of the log: they take microseconds, so a longer wait
// means a stuck process.
const readLockWait = 10 * time.Second

// trajectoryLog is the trajectory log in dir: rotated past
// MaxTrajectoryBytes, one rotated file kept, appends unsynced (the hook
// writes it on every prompt, like decisions.jsonl).
func trajectoryLog(dir string) *store.Log {
	return &store.Log{Path: filepath.Join(dir, TrajectoryFile), MaxBytes: MaxTrajectoryBytes, Keep: 1}
}

// Kinds of trajectory lines.
const (
	KindDecision = "decision"
	KindTool     = "tool"
)

// Trajectory is a logged decision with the tool events of its turn.
type Trajectory struct {
	Kind          string    `json:"kind"`
	ID            string    `json:"id"`
	Session       string    `json:"session"`
	Time          time.Time `json:"time"`
	Router        string    `json:"router"`
	RouterVersion string    `json:"router_version"`
	// TableVersion is the policy version the decision used ("": none).
	TableVersion string   `json:"table_version"`
	Input        Input    `json:"input"`
	Decision     Decision `json:"decision"`
	Tokens       int      `json:"tokens"` // injected
	// Events are the turn's tool events, attached when the log is read.
	Events []ToolEvent `json:"-"`
}

// ToolEvent is one tool call of a turn.
type ToolEvent struct {
	Kind     string    `json:"kind"`
	Decision string    `json:"decision"` // the session's latest decision
	Session  string    `json:"session"`
	Time     time.Time `json:"time"`
	// Tool is Claude Code's tool name ("Skill", "mcp__server__tool") or
	// "/" and a typed command's name.
	Tool string `json:"tool"`
	// Ref is the skill of a Skill call.
	Ref string `json:"ref,omitempty"`
	OK  bool   `json:"ok"`
}

// LogDecision appends a decision to the trajectory log in dir.
func LogDecision(ctx context.Context, dir string, t Trajectory) error {
	t.Kind = KindDecision
	t.Time = t.Time.UTC()
	line, err := marshalTrajectory(t)
	if err != nil {
		return err
	}
	return trajectoryLog(dir).Append(ctx, line)
}

// LogToolEvent appends a tool event to the trajectory log in dir.
func LogToolEvent(ctx context.Context, dir string, e ToolEvent) error {
	e.Kind = KindTool
	e.Time = e.Time.UTC()
	return appendLine(ctx, dir, e)
}

func appendLine(ctx context.Context, dir string, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return trajectoryLog(dir).Append(ctx, line)
}

// ReadTrajectories reads the decisions logged in dir at or after since
// (zero: all), oldest first, with their tool events attached. A torn or
// foreign line is skipped with a warning naming the file and line.
func ReadTrajectories(dir string, since time.Time) (out []Trajectory, warnings []error, err error) {
	byID := map[string]int{}
	var events []ToolEvent
	ctx, cancel := context.WithTimeout(context.Background(), readLockWait)
	defer cancel()
	err = trajectoryLog(dir).Read(ctx, func(path string, r io.Reader) error {
		ws, err := readLines(path, r, func(kind string, line []byte) error {
			switch kind {
			case KindDecision:
				var t Trajectory
				if err := json.Unmarshal(line, &t); err != nil {
					return err
				}
				if t.Time.Before(since) {
					return nil
				}
				byID[t.ID] = len(out)
				out = append(out, t)
			case KindTool:
				var e ToolEvent
				if err := json.Unmarshal(line, &e); err != nil {
					return err
				}
				events = append(events, e)
			default:
				return fmt.Errorf("unknown kind %q", kind)
			}
			return nil
		})
		warnings = append(warnings, ws...)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
	if err != nil {
		return nil, warnings, err
	}
	for _, e := range events {
		if i, ok := byID[e.Decision]; ok {
			out[i].Events = append(out[i].Events, e)
		}
	}
	return out, warnings, nil
}

// readLines calls fn with each line's kind and bytes; bad lines become
// warnings.
func readLines(path string, r io.Reader, fn func(kind string, line []byte) error) ([]error, error) {
	var warnings []error
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var probe struct {
			Kind string `json:"kind"`
		}
		err := json.Unmarshal(line, &probe)
		if err == nil {
			err = fn(probe.Kind, line)
		}
		if err != nil {
			warnings = append(warnings, fmt.Errorf("%s:%d: line skipped: %v", path, n, err))
		}
	}
	return warnings, sc.Err()
}

// FailureWindow is how long a failed tool call counts against its
// candidate in the session: about one task's worth of turns. Longer, and
// a tool that failed once for a passing reason (a server down for a
// minute) would stay penalised all day.
const FailureWindow = 30 * time.Minute

// failureTail is how much of the log's end RecentFailures reads: the
// last few hundred lines, far more than one session's half hour, and
// read in well under a millisecond.
const failureTail = 256 << 10

// RecentFailures returns the failed tool events of a session within
// FailureWindow before now, read from the end of the log.
func RecentFailures(dir, session string, now time.Time) (out []ToolEvent) {
	// The log is mapped, not read: reading its tail into fresh memory
	// was a tenth of a hook process's page faults (perf record -e
	// page-faults at 50 skills). Logs are rotated by renaming, never
	// truncated; should one be, the fault past its end is recovered.
	data, release, err := store.MapFile(filepath.Join(dir, TrajectoryFile))
	if err != nil {
		return nil
	}
	defer release()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	tail := data[max(len(data)-failureTail, 0):]
	// Decision lines, most of the log at a kilobyte and more each, are
	// passed over by their opening: json.Marshal writes a Trajectory's
	// kind first, and nothing inside one has a kind of its own, so only a
	// quoted (escaped) one could read "kind":"tool" there. Searching every
	// line for the tool kind was 3.8 % of a hook process (perf record of
	// 200 prompt events, the log past 256 KB).
	for len(tail) > 0 {
		line := tail
		if j := bytes.IndexByte(tail, '\n'); j >= 0 {
			line, tail = tail[:j], tail[j+1:]
		} else {
			tail = nil
		}
		if bytes.HasPrefix(line, decisionKind) || !bytes.Contains(line, toolKind) {
			continue
		}
		var e ToolEvent
		if json.Unmarshal(line, &e) != nil || e.OK || e.Session != session {
			continue // the line the seek cut, or another session's
		}
		if age := now.Sub(e.Time); age >= 0 && age <= FailureWindow {
			out = append(out, e)
		}
	}
	return out
}

// decisionKind opens a decision's line in the trajectory log.
var decisionKind = []byte(`{"kind":"` + KindDecision + `"`)

// toolKind marks a tool event's line in the trajectory log.
var toolKind = []byte(`"kind":"tool"`)

// FailureKeys maps failed tool events to the candidates they concern:
// a failed Skill call to its skill, a failed tool call to the declared
// tool it is (see ToolMatches).
func FailureKeys(events []ToolEvent, tools []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for _, e := range events {
		if e.Tool == "Skill" && e.Ref != "" {
			add(FailureKey(TypeSkill, skills.BareName(e.Ref)))
			continue
		}
		for _, t := range tools {
			if ToolMatches(e.Tool, t) {
				add(FailureKey(TypeTool, t))
			}
		}
	}
	return out
}

// ToolMatches reports whether a tool call of Claude Code (its tool name,
// or "/" and a command) is the declared tool: the same name, an MCP tool
// of that name on any server ("mcp__server__name"), or the slash command
// of that name.
func ToolMatches(called, declared string) bool {
	if called == "" || declared == "" {
		return false
	}
	called, declared = strings.ToLower(called), strings.ToLower(declared)
	declared = strings.TrimPrefix(declared, "/")
	return called == declared || called == "/"+declared || strings.HasSuffix(called, "__"+declared) ||
		skills.BareName(strings.TrimPrefix(called, "/")) == declared
}
