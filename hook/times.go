package hook

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/skillroute/skillroute/store"
)

// What Run's reasons say when a prompt's time ran out (the reason opens
// with deadlineMark) or its event came late (it holds lateEventMark);
// Deadlines reads them back.
const (
	deadlineMark  = "deadline of "
	lateEventMark = "the event came after "
)

// Deadlines is how the hook kept its deadline on the prompts of its logs:
// a prompt it gave up on is silent, and says so only in hook.log.
type Deadlines struct {
	// Since is when the counts begin: the first prompt of the logs both
	// cover (the logs rotate apart).
	Since time.Time
	// Prompts is how many prompts the hook decided on in time (each
	// logged in decisions.jsonl) or gave up on.
	Prompts int
	// PastDeadline counts the prompts it gave up on.
	PastDeadline int
	// LateEvents counts the prompts whose event Claude Code wrote late,
	// which the deadline does not count.
	LateEvents int
}

// Deadlines reads the state folder's decisions.jsonl and hook.log, with
// the files they rotated into. Lines that do not parse are skipped:
// hook.log is for people, and older versions wrote other lines. While
// decisions.jsonl has never rotated it holds every decision, and every
// prompt hook.log gave up on counts (the first prompt after an install
// may be one, and precede every decision); after, those before its first
// decision do not.
func (s *Store) Deadlines(ctx context.Context) (Deadlines, error) {
	var d Deadlines
	_, err := s.eachDecision(ctx, func(t time.Time) {
		if d.Prompts == 0 {
			d.Since = t
		}
		d.Prompts++
	})
	if err != nil {
		return Deadlines{}, err
	}
	files, err := s.log(DecisionsFile).Files()
	if err != nil {
		return Deadlines{}, err
	}
	whole := len(files) <= 1 // never rotated
	err = readLines(ctx, s.log(LogFile), func(line []byte) {
		var rec struct {
			Time      time.Time `json:"time"`
			HookEvent string    `json:"hook_event"`
			Msg       string    `json:"msg"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.HookEvent != "UserPromptSubmit" || !whole && rec.Time.Before(d.Since) {
			return
		}
		if strings.HasPrefix(rec.Msg, deadlineMark) {
			if d.Since.IsZero() || rec.Time.Before(d.Since) {
				d.Since = rec.Time
			}
			d.PastDeadline++
			d.Prompts++
		}
		if strings.Contains(rec.Msg, lateEventMark) {
			d.LateEvents++
		}
	})
	if err != nil {
		return Deadlines{}, err
	}
	return d, nil
}

// readLines calls f with each line of a log's files, oldest first.
func readLines(ctx context.Context, l *store.Log, f func([]byte)) error {
	return l.Read(ctx, func(name string, r io.Reader) error {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			f(sc.Bytes())
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	})
}
