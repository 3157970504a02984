package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Bounds of issue 12 on a hostile catalog.
const (
	// hookLimit is the longest a hook may take: its 200 ms deadline and
	// the time to start and leave the process.
	hookLimit = 250 * time.Millisecond
	// compileLimit is the most memory a compile may take.
	compileLimit = 200 << 20
	// compileTime bounds a compile of the hostile catalog.
	compileTime = time.Minute
)

// overloaded reports whether the machine is too busy to judge a time
// bound: a load average past twice its cores (other builds and tests
// running) delays any process by more than the bounds' margins. Memory
// bounds are judged whatever the load.
func overloaded() (bool, float64) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return false, 0
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return false, 0
	}
	load, _ := strconv.ParseFloat(fields[0], 64)
	return load > 2*float64(runtime.NumCPU()), load
}

// hostileProject writes a project whose skills folder holds every kind of
// hostile skill, and whose project markers are a FIFO and a device. It
// returns the names that must be left out with a warning.
func hostileProject(dir string) ([]string, error) {
	skills := filepath.Join(dir, ".claude", "skills")
	mk := func(name string) string {
		p := filepath.Join(skills, name)
		_ = os.MkdirAll(p, 0o755)
		return filepath.Join(p, "SKILL.md")
	}
	laughs := "---\nname: laughs\ndescription: lol\n"
	prev := `["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`
	for c := 'a'; c <= 'i'; c++ {
		laughs += fmt.Sprintf("%c: &%c %s\n", c, c, prev)
		prev = "[" + strings.Repeat("*"+string(c)+",", 8) + "*" + string(c) + "]"
	}
	laughs += "keywords:\n  core: *i\n---\nbody\n"
	steps := []error{
		os.Symlink("/dev/zero", mk("zero")),
		syscall.Mkfifo(mk("fifo"), 0o644),
		os.WriteFile(mk("huge"), []byte("---\nname: huge\ndescription: a body of 100 MB\n---\n"), 0o644),
		os.Truncate(mk("huge"), 100<<20), // sparse: 100 MB to read, none on disk
		os.WriteFile(mk("laughs"), []byte(laughs), 0o644),
		os.WriteFile(mk("dotdot"), []byte("---\nname: ../../../../../../tmp/skillroute-stress-escape\ndescription: a name that is a path\n---\n"), 0o644),
		os.Symlink("SKILL.md", mk("self")),
		os.Symlink(".", filepath.Join(skills, "loop")),
		os.Symlink("loop-b", filepath.Join(skills, "loop-a")),
		os.Symlink("loop-a", filepath.Join(skills, "loop-b")),
		os.MkdirAll(filepath.Join(dir, "outside"), 0o755),
		os.WriteFile(filepath.Join(dir, "outside", "SKILL.md"), []byte("---\nname: outside\ndescription: reached through a link\n---\n"), 0o644),
		os.Symlink(filepath.Join("..", "..", "outside"), filepath.Join(skills, "escape")),
		os.WriteFile(mk("zebra"), []byte("---\nname: zebra\ndescription: Zebrafish telemetry pipelines.\nkeywords:\n  core: [zebrafish telemetry, zebrafish]\n---\nbody\n"), 0o644),
		syscall.Mkfifo(filepath.Join(dir, "package.json"), 0o644),
		os.Symlink("/dev/zero", filepath.Join(dir, "go.mod")),
	}
	for _, err := range steps {
		if err != nil {
			return nil, err
		}
	}
	return []string{"zero", "fifo", "huge", "laughs", "self"}, nil
}

// listing is a folder tree's names and modes, links not followed.
func listing(dir string) map[string]fs.FileMode {
	out := map[string]fs.FileMode{}
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil {
			out[path] = d.Type()
		}
		return nil
	})
	return out
}

// hostile runs the hook and the compile on the hostile project.
func hostile(root, bin string, rep *report) {
	sb, err := newSandbox(root, "hostile", bin)
	if err != nil {
		rep.fail("hostile: sandbox: %v", err)
		return
	}
	project := filepath.Join(root, "hostile", "project")
	leftOut, err := hostileProject(project)
	if err != nil {
		rep.fail("hostile: %v", err)
		return
	}
	before := listing(project)
	sb.project = project
	defer sb.waitBackground()
	prompt := func(id string) string {
		return fmt.Sprintf(`{"hook_event_name":"UserPromptSubmit","session_id":"hostile","prompt_id":%q,"cwd":%q,"prompt":"zebrafish telemetry pipeline drops samples"}`, id, project)
	}

	// First the hook meets the new catalog with nothing cached: it must
	// answer in time, handing the compile to the background. Three times,
	// each with a state folder of its own; the median is held to the
	// bound, as a loaded machine can delay any one process.
	var colds []time.Duration
	bgPeak := "-"
	for i := range 3 {
		cold := *sb
		cold.state = filepath.Join(root, "hostile", fmt.Sprint("state-cold-", i))
		colds = append(colds, cold.hook(prompt(fmt.Sprint("cold-", i))).wall)
		if peak := watchBackground(&cold); peak != "-" {
			bgPeak = peak
		}
		cold.waitBackground()
	}
	slices.Sort(colds)
	coldMedian, slowest := colds[1], colds[2]

	// The compile itself, in the foreground: bounded memory and time.
	ctx, cancel := context.WithTimeout(context.Background(), compileTime)
	c := sb.run(ctx, "", "compile", "--catalog", "installed")
	cancel()
	warned := 0
	for _, name := range leftOut {
		if strings.Contains(c.stderr, filepath.Join("skills", name)) {
			warned++
		}
	}
	// Then the hook with the index compiled: in time, and it routes.
	routed := 0
	var warms []time.Duration
	for i := range 5 {
		r := sb.hook(prompt(fmt.Sprint("warm-", i)))
		warms = append(warms, r.wall)
		slowest = max(slowest, r.wall)
		if strings.Contains(r.stdout, `\"zebra\"`) { // skills are named by their folder
			routed++
		}
	}
	slices.Sort(warms)
	warmMedian := warms[2]
	_, escaped := os.Lstat("/tmp/skillroute-stress-escape")
	changed := 0
	after := listing(project)
	for path, mode := range after {
		if m, ok := before[path]; !ok || m != mode {
			changed++
		}
	}
	note := fmt.Sprintf("hook median %d ms with nothing compiled, %d ms compiled, slowest %d (limit %d); compile %.0f MiB, %v (limit %d MiB); background compile peak %s; %d of %d hostile files left out with a warning",
		coldMedian.Milliseconds(), warmMedian.Milliseconds(), slowest.Milliseconds(), hookLimit.Milliseconds(), float64(c.maxRSS)/(1<<20), c.wall.Round(time.Millisecond), compileLimit>>20, bgPeak, warned, len(leftOut))
	rep.row("hostile catalog: hooks", "8", fmt.Sprint(routed), "3", "", "", note)
	loaded, load := overloaded()
	if loaded && max(coldMedian, warmMedian) > hookLimit {
		rep.row("", "", "", "", "", "", fmt.Sprintf("hook time not judged: load average %.1f on %d cores", load, runtime.NumCPU()))
	}
	switch {
	case !loaded && max(coldMedian, warmMedian) > hookLimit:
		rep.fail("hostile: the hook took %v (median, nothing compiled) and %v (median, compiled), over %v", coldMedian, warmMedian, hookLimit)
	case c.code != 0 || c.killed:
		rep.fail("hostile: compile exit %d (killed %v): %s", c.code, c.killed, c.stderr)
	case c.maxRSS > compileLimit:
		rep.fail("hostile: compile peaked at %d MiB, over %d", c.maxRSS>>20, compileLimit>>20)
	case warned < len(leftOut):
		rep.fail("hostile: %d of %d hostile skill files named in a warning:\n%s", warned, len(leftOut), c.stderr)
	case routed < 5:
		rep.fail("hostile: the project's good skill was routed %d of 5 times", routed)
	case escaped == nil:
		rep.fail("hostile: a \"../\" name made a file outside the state folder")
	case changed > 0 || len(after) != len(before):
		rep.fail("hostile: %d files of the project changed", changed)
	}
}

// watchBackground follows the background compile a hook started in sb
// (its pid is in compile.json) and returns its peak memory, read from
// /proc while it runs; "-" when it was done before it could be seen.
func watchBackground(sb *sandbox) string {
	status := filepath.Join(sb.state, "cache", "compile.json")
	deadline := time.Now().Add(compileTime)
	pid := 0
	for time.Now().Before(deadline) && pid == 0 {
		data, err := os.ReadFile(status)
		if err == nil && strings.Contains(string(data), `"compiling"`) {
			if i := strings.Index(string(data), `"pid":`); i >= 0 {
				rest := string(data[i+6:])
				end := strings.IndexAny(rest, ",}")
				pid, _ = strconv.Atoi(strings.TrimSpace(rest[:end]))
			}
		}
		if err == nil && !strings.Contains(string(data), `"compiling"`) {
			return "-"
		}
		time.Sleep(5 * time.Millisecond)
	}
	peak := int64(0)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			break
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
				peak = max(peak, kb<<10)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if peak == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f MiB", float64(peak)/(1<<20))
}
