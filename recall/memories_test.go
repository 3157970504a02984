package recall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillroute/skillroute/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRememberAndForget(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), MemoriesFile)
	a, added, err := Remember(ctx, path, Memory{Text: "  we deploy with fly.io,\n never with docker compose  "})
	require.NoError(t, err)
	assert.True(t, added)
	assert.Equal(t, "m1", a.ID)
	assert.Equal(t, "we deploy with fly.io, never with docker compose", a.Text, "spaces collapsed")
	assert.Equal(t, ScopeUser, a.Scope, "user scope by default")

	b, _, err := Remember(ctx, path, Memory{Text: "staging db is pg-staging:6432", Scope: ScopeProject, Project: "/src/app"})
	require.NoError(t, err)
	assert.Equal(t, "m2", b.ID)

	again, added, err := Remember(ctx, path, Memory{Text: "we deploy with fly.io, never with docker compose"})
	require.NoError(t, err)
	assert.False(t, added, "the same fact is stored once")
	assert.Equal(t, "m1", again.ID)

	gone, err := Forget(ctx, path, "m1")
	require.NoError(t, err)
	assert.Equal(t, a.Text, gone.Text)
	mems, err := ReadMemories(path)
	require.NoError(t, err)
	require.Len(t, mems, 1)
	assert.Equal(t, "m2", mems[0].ID)
	assert.Equal(t, "/src/app", mems[0].Project)

	c, _, err := Remember(ctx, path, Memory{Text: "a third fact"})
	require.NoError(t, err)
	assert.Equal(t, "m3", c.ID, "ids are never reused while a later one exists")

	// Nor after the latest is forgotten: the policy keeps success rates by
	// id, which a new fact must not inherit.
	_, err = Forget(ctx, path, "m3")
	require.NoError(t, err)
	d, _, err := Remember(ctx, path, Memory{Text: "a fourth fact"})
	require.NoError(t, err)
	assert.Equal(t, "m4", d.ID)

	_, err = Forget(ctx, path, "m9")
	assert.ErrorContains(t, err, `no memory "m9" (there are: m2, m4)`)
	_, err = Forget(ctx, filepath.Join(t.TempDir(), MemoriesFile), "m1")
	assert.ErrorContains(t, err, "nothing is remembered")
}

func TestRememberRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), MemoriesFile)
	for _, c := range []struct {
		m    Memory
		want string
	}{
		{Memory{Text: "   "}, "text is empty"},
		{Memory{Text: strings.Repeat("x", MaxMemoryText+1)}, "at most 400 bytes"},
		{Memory{Text: "fact", Scope: "team"}, `scope "team"`},
	} {
		_, _, err := Remember(context.Background(), path, c.m)
		assert.ErrorContains(t, err, c.want)
	}
	_, err := os.Stat(path)
	assert.True(t, os.IsNotExist(err), "nothing written")
}

func TestRememberConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), MemoriesFile)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, _, err := Remember(ctx, path, Memory{Text: fmt.Sprintf("fact number %d", i)})
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	mems, err := ReadMemories(path)
	require.NoError(t, err)
	assert.Len(t, mems, 8, "no fact lost to a concurrent write")
	ids := map[string]bool{}
	for _, m := range mems {
		ids[m.ID] = true
	}
	assert.Len(t, ids, 8, "ids unique")
}

func TestParseMemories(t *testing.T) {
	good := `{"id": "m1", "text": "Staging Postgres is pg-staging", "scope": "project", "age_days": 20}
# a comment

{"id": "m2", "text": "I use pnpm"}`
	mems, err := ParseMemories("mem.jsonl", []byte(good))
	require.NoError(t, err)
	require.Len(t, mems, 2)
	assert.Equal(t, ScopeUser, mems[1].Scope)
	now := time.Now()
	assert.Equal(t, 20*24*time.Hour, mems[0].Age(now), "fixtures give an age")

	for _, c := range []struct{ data, want string }{
		{`{"id": "m1", "text": "a"` + "\n", "mem.jsonl:1:"},
		{`{"text": "a"}`, "mem.jsonl:1: memory without an id"},
		{`{"id": "m1", "text": ""}`, "mem.jsonl:1: memory m1 has no text"},
		{`{"id": "m1", "text": "a"}` + "\n" + `{"id": "m1", "text": "b"}`, "mem.jsonl:2: memory id m1 already used on line 1"},
		{`{"id": "m1", "text": "a", "scope": "global"}`, `mem.jsonl:1: memory m1: scope "global"`},
		{`{"id": "m1", "text": "a", "age_days": -3}`, "negative age_days"},
	} {
		_, err := ParseMemories("mem.jsonl", []byte(c.data))
		assert.ErrorContains(t, err, c.want)
	}
	missing, err := ReadMemories(filepath.Join(t.TempDir(), "none.jsonl"))
	assert.NoError(t, err)
	assert.Empty(t, missing, "no file: no memories")
}

func TestMemoryScope(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	user := Memory{Scope: ScopeUser}
	project := Memory{Scope: ScopeProject, Project: "/src/app", Created: now.Add(-48 * time.Hour)}
	fixture := Memory{Scope: ScopeProject}
	for _, c := range []struct {
		m    Memory
		cwd  string
		want bool
	}{
		{user, "/elsewhere", true},
		{project, "/src/app", true},
		{project, "/src/app/api/handlers", true},
		{project, "/src/application", false},
		{project, "/src", false},
		{project, "", true},
		{fixture, "/anywhere", true},
	} {
		assert.Equal(t, c.want, c.m.AppliesIn(c.cwd), "%+v in %q", c.m, c.cwd)
	}
	assert.Equal(t, 48*time.Hour, project.Age(now))
	assert.Zero(t, project.Age(now.Add(-72*time.Hour)), "a clock set back gives no negative age")
}

// remember and forget rewrite memories.jsonl, which its reader lets a
// person annotate: comment lines, blank lines and fields the reader does
// not know stay as written. Both rewrote the file from the parsed
// memories, dropping them.
func TestRememberAndForgetKeepWhatTheFileHolds(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), MemoriesFile)
	hand := "# facts for the payments team\n" +
		`{"id":"m1","text":"staging db is pg-staging:6432","scope":"user","note":"ask Ana before changing"}` + "\n" +
		"\n" +
		`{"id":"m2","text":"deploys go through fly.io","scope":"user"}` + "\n"
	require.NoError(t, os.WriteFile(path, []byte(hand), 0o600))

	m, added, err := Remember(ctx, path, Memory{Text: "the CI runs on buildkite"})
	require.NoError(t, err)
	require.True(t, added)
	assert.Equal(t, "m3", m.ID)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), hand), "what was there stays as written:\n%s", data)

	_, err = Forget(ctx, path, "m2")
	require.NoError(t, err)
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), "# facts for the payments team\n")
	assert.Contains(t, string(data), `"note":"ask Ana before changing"`)
	assert.NotContains(t, string(data), "fly.io")
	mems, err := ReadMemories(path)
	require.NoError(t, err)
	require.Len(t, mems, 2)
	assert.Equal(t, "m1", mems[0].ID)
	assert.Equal(t, "m3", mems[1].ID)
}

// writeMemories replaces the file with the memories, one line each.
func writeMemories(path string, mems []Memory) error {
	var buf bytes.Buffer
	for _, m := range mems {
		line, err := json.Marshal(m)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return store.WriteFile(path, buf.Bytes())
}
