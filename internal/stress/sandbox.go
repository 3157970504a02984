package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

// sandbox is a home folder and a state folder of the stress run's own,
// with the built-in skills installed and the hook registered in the
// home's settings.json.
type sandbox struct {
	bin, home, state string
	project          string // CLAUDE_PROJECT_DIR, when set
}

// userSettings is the settings file the sandbox starts with: the user's
// own keys and hook, which no install, uninstall or kill may lose.
const userSettings = `{
  "model": "opus",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "echo 'not skillroute hook'"
          }
        ]
      }
    ]
  },
  "env": {
    "BIG": 12345678901234567890
  }
}
`

func newSandbox(root, name, bin string) (*sandbox, error) {
	sb := &sandbox{bin: bin, home: filepath.Join(root, name, "home"), state: filepath.Join(root, name, "state")}
	settings := filepath.Join(sb.home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(settings, []byte(userSettings), 0o644); err != nil {
		return nil, err
	}
	for _, args := range [][]string{{"skills", "install"}, {"install", "--no-skills", "--binary", bin}} {
		if r := sb.run(context.Background(), "", args...); r.code != 0 {
			return nil, fmt.Errorf("skillroute %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	return sb, nil
}

// env is the environment of a skillroute process in the sandbox: the
// machine's, without anything of Claude Code's or skillroute's.
func (sb *sandbox) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "CLAUDE_") || strings.HasPrefix(kv, "SKILLROUTE_") || strings.HasPrefix(kv, "HOME=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+sb.home, "SKILLROUTE_HOME="+sb.state)
	if sb.project != "" {
		env = append(env, "CLAUDE_PROJECT_DIR="+sb.project)
	}
	return env
}

// result is how a process ended.
type result struct {
	code           int
	stdout, stderr string
	wall           time.Duration
	maxRSS         int64 // bytes
	killed         bool
}

// run runs skillroute with args and stdin, bounded by ctx (a process past
// it is killed, by its own pid).
func (sb *sandbox) run(ctx context.Context, stdin string, args ...string) result {
	cmd := sb.command(stdin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return result{code: -1, stderr: err.Error()}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = cmd.Process.Kill()
		case <-done:
		}
	}()
	err := cmd.Wait()
	close(done)
	return finished(cmd, err, start, out.String(), errb.String())
}

func (sb *sandbox) command(stdin string, args ...string) *exec.Cmd {
	cmd := exec.Command(sb.bin, args...)
	cmd.Env = sb.env()
	cmd.Dir = sb.home
	if sb.project != "" {
		cmd.Dir = sb.project
	}
	cmd.Stdin = strings.NewReader(stdin)
	return cmd
}

func finished(cmd *exec.Cmd, err error, start time.Time, stdout, stderr string) result {
	r := result{wall: time.Since(start), stdout: stdout, stderr: stderr}
	if st := cmd.ProcessState; st != nil {
		r.code = st.ExitCode()
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.killed = true
		}
		if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
			r.maxRSS = ru.Maxrss * 1024 // kilobytes on Linux
		}
	} else if err != nil {
		r.code = -1
		r.stderr += err.Error()
	}
	return r
}

// hook sends one event to `skillroute hook`.
func (sb *sandbox) hook(event string) result {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return sb.run(ctx, event, "hook")
}

// waitBackground waits, at most a minute, for a background compile a
// hook started (a detached process, not ours to kill) to let go of its
// lock.
func (sb *sandbox) waitBackground() {
	lock := flock.New(filepath.Join(sb.state, "cache", "compile.lock"))
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if ok, err := lock.TryLock(); err != nil || ok {
			if ok {
				lock.Unlock()
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// lines returns the lines of every file of a log (NAME.EXT and its
// rotated NAME-N.EXT) in the state folder.
func (sb *sandbox) lines(name string) []string {
	ext := filepath.Ext(name)
	files, _ := filepath.Glob(filepath.Join(sb.state, strings.TrimSuffix(name, ext)+"-*"+ext))
	files = append(files, filepath.Join(sb.state, name))
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" {
				out = append(out, l)
			}
		}
	}
	return out
}

// fill writes a log to size bytes of valid lines, so that the run makes
// it rotate.
func fill(path string, size int, line func(i int) string) error {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		b.WriteString(line(i))
		b.WriteByte('\n')
	}
	return os.WriteFile(path, b.Bytes(), 0o600)
}
