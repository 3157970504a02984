package skills_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/skills"
)

// Published skills write colons in their descriptions' prose, unquoted,
// which YAML refuses. Such a skill is read with the prose quoted, and the
// refusal is kept for doctor; a header that quoting cannot mend is still
// an error on its line.
func TestParseRepairsUnquotedColons(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		desc       string // "" when the header stays an error
		errLine    string // the line the error or repair names
	}{
		{
			"a colon in the description",
			"---\nname: duck\ndescription: DuckDB reference. Trigger on: SQL over Parquet, `duckdb` imports.\nlicense: MIT\n---\nbody",
			"DuckDB reference. Trigger on: SQL over Parquet, `duckdb` imports.", "x/SKILL.md:3:",
		},
		{
			"continuation lines, a blank line between",
			"---\nname: next\ndescription: Next.js with the App Router,\n  cache errors.\n\n  Keywords: next.js, app router\nlicense: MIT\n---\n",
			"Next.js with the App Router, cache errors.\nKeywords: next.js, app router", "x/SKILL.md:",
		},
		{
			"quotes and backslashes survive",
			"---\nname: q\ndescription: Use when: the user says \"fix C:\\temp\".\n---\n",
			`Use when: the user says "fix C:\temp".`, "x/SKILL.md:3:",
		},
		{
			"a colon in when_to_use, the description fine",
			"---\nname: w\ndescription: Deploys.\nwhen_to_use: Triggers: ship it, deploy\n---\n",
			"Deploys.", "x/SKILL.md:4:",
		},
		{"an indentation mistake under name", "---\nname: x\n  bad: indent\n---\n", "", "x/SKILL.md:3:"},
		{"a quoted description with a stray colon after it", "---\nname: x\ndescription: \"a\" b: c\n---\n", "", "x/SKILL.md:3:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sk, err := skills.Parse("x/SKILL.md", "x", []byte(tc.file))
			if tc.desc == "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.errLine)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.desc, sk.Description)
			require.NotNil(t, sk.Repaired, "the repair is reported")
			assert.Contains(t, sk.Repaired.Error(), tc.errLine)
		})
	}

	sk, err := skills.Parse("x/SKILL.md", "x", []byte("---\nname: x\ndescription: 'Use when: quoted'\n---\n"))
	require.NoError(t, err)
	assert.Nil(t, sk.Repaired, "a header YAML reads is not reported")
}
