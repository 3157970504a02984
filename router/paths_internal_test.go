package router

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// What namedFiles takes for a file a prompt names is pinned here: the
// router keeps a skill with paths only for these.
func TestNamedFiles(t *testing.T) {
	for _, c := range []struct {
		prompt string
		want   []string
	}{
		{"the query in @db/reports/monthly.sql is slow", []string{"db/reports/monthly.sql"}},
		{"fix `src/app/page.tsx`, it crashes", []string{"src/app/page.tsx"}},
		{"error at ./src/client.ts:42:17.", []string{"src/client.ts"}},
		{"改一下 schema.prisma（用户表）", []string{"schema.prisma"}},
		{"see https://example.com/docs for the API", nil},
		{"upgrade to v1.2 and pi is 3.14", nil},
		{"write a Dockerfile for the api", nil},
		{"make the query faster.", nil},
	} {
		got := namedFiles(c.prompt)
		if c.want == nil {
			assert.Empty(t, got, c.prompt)
			continue
		}
		assert.Equal(t, c.want, got, c.prompt)
	}
}

func TestGlobMatches(t *testing.T) {
	for _, c := range []struct {
		glob, file string
		want       bool
	}{
		{"db/**/*.sql", "db/reports/monthly.sql", true},
		{"db/**/*.sql", "monthly.sql", true}, // named alone: Claude Code finds it
		{"*.sql", "db/reports/monthly.sql", true},
		{"./src/**/*.tsx", "src/app/page.tsx", true},
		{"src/**/*.tsx", "src/app/page.ts", false},
		{"src/api/**", "src/api/users.go", true},
		{"src/api/**", "users.go", false}, // a folder's glob asks for the path
		{"*.{ts,tsx}", "page.tsx", true},
	} {
		assert.Equal(t, c.want, globMatches(c.glob, c.file), "%s ~ %s", c.glob, c.file)
	}
}
