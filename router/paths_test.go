package router_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/skillroute/skillroute/index"
	"github.com/skillroute/skillroute/router"
	"github.com/skillroute/skillroute/skills"
)

// A skill with paths is one Claude Code loads only while it works with a
// matching file: the router names it for a prompt that names such a
// file, or in a session already using it, and otherwise leaves it out
// and says so, where a skill without paths is named as ever.
func TestSkillWithPathsNeedsAMatchingFile(t *testing.T) {
	cat := &skills.Catalog{Skills: []skills.Skill{
		{Name: "sql-tuner", Description: "Tune slow SQL queries: read EXPLAIN plans and add the right indexes.",
			Body: "Run EXPLAIN ANALYZE, look for sequential scans, add indexes, rewrite joins.", Paths: []string{"db/**/*.sql"}},
		{Name: "docker-helper", Description: "Write Dockerfiles and docker compose files for local development.",
			Body: "Multi-stage builds, compose services, volumes."},
	}}
	r := router.New(index.Compile(cat, nil, index.Options{}), nil)
	require := func(prompt string, s router.Session, want string) router.Decision {
		t.Helper()
		d := r.Route(prompt, s)
		assert.Equal(t, want, d.Skill, prompt)
		return d
	}

	d := require("this SQL query is slow: read the EXPLAIN plan and add indexes", router.Session{}, "")
	assert.Equal(t, []string{"sql-tuner"}, d.Unloaded)
	assert.Contains(t, d.Explain(), "left out: sql-tuner")
	for _, c := range d.Candidates {
		assert.NotEqual(t, "sql-tuner", c.Skill)
	}

	d = require("the query in @db/reports/monthly.sql is slow: read the EXPLAIN plan and add indexes", router.Session{}, "sql-tuner")
	assert.Empty(t, d.Unloaded)
	require("monthly.sql is slow: read the EXPLAIN plan and add indexes", router.Session{}, "sql-tuner")
	require("src/app.ts is slow: read the EXPLAIN plan of its SQL and add indexes", router.Session{}, "")

	// Loaded already: used in the session, or routed to last turn.
	require("now add indexes for the other slow SQL queries too", router.Session{Recent: []string{"sql-tuner"}}, "sql-tuner")
	require("now add indexes for the other slow SQL queries too", router.Session{LastSkill: "sql-tuner", LastConfidence: 0.8}, "sql-tuner")

	// A skill without paths needs no file.
	require("write a Dockerfile and a docker compose file for local development", router.Session{}, "docker-helper")
}
