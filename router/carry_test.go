package router_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/skillroute/skillroute/router"
)

// A follow-up that names nothing of its own is carried by the previous
// turn's confidence, when that turn was routed to the skill the session
// then used; never otherwise.
func TestContextCarriesAFollowUp(t *testing.T) {
	r := open(t)
	recent := []string{"database-tuning-expert"}
	for _, prompt := range []string{"继续", "帮我优化一下", "go on"} {
		d := r.Route(prompt, router.Session{Recent: recent, LastSkill: "database-tuning-expert", LastConfidence: 0.9})
		assert.Equal(t, "database-tuning-expert", d.Skill, prompt)
		assert.True(t, d.Carried, prompt)
		assert.GreaterOrEqual(t, d.Confidence, 0.9*router.CarryDecay, prompt)
		assert.Contains(t, d.Explain(), "carried", prompt)
	}
	// The user chose the skill (after an abstention, or over the one
	// recommended): the follow-up goes with it, at Chosen.
	for name, s := range map[string]router.Session{
		"no decision known":                {Recent: recent},
		"the previous turn abstained":      {Recent: recent, LastConfidence: 0.3},
		"the previous turn went elsewhere": {Recent: recent, LastSkill: "tester-expert", LastConfidence: 0.9},
	} {
		d := r.Route("继续", s)
		assert.Equal(t, "database-tuning-expert", d.Skill, name)
		assert.True(t, d.Carried, name)
		assert.InDelta(t, router.Chosen, d.Confidence, 0.2, name)
	}
	// Nothing is carried to a prompt of its own, nor without a skill in
	// use.
	d := r.Route("帮我给登录页写 Playwright 端到端测试", router.Session{Recent: recent, LastSkill: "database-tuning-expert", LastConfidence: 0.9})
	assert.False(t, d.Carried)
	assert.Equal(t, "tester-expert", d.Skill)
	d = r.Route("继续", router.Session{LastSkill: "database-tuning-expert", LastConfidence: 0.9})
	assert.False(t, d.Carried)
	assert.Empty(t, d.Skill)
}

// A follow-up without a cue word stays with the skill in use unless it
// names something specific of another skill; closing words close even
// next to a continuation word.
func TestFollowUpStaysWithTheSession(t *testing.T) {
	r := open(t)
	s := router.Session{Recent: []string{"database-tuning-expert"}, LastSkill: "database-tuning-expert", LastConfidence: 0.8}
	d := r.Route("帮我优化一下", s)
	assert.Equal(t, "database-tuning-expert", d.Skill, "names nothing of a new skill")
	d = r.Route("now add unit tests with Jest for the page component", s)
	assert.Equal(t, "tester-expert", d.Skill, "names a new skill's keyword")
	// A keyword of another skill met in passing, which alone would route
	// below LeaveFrom, does not pull the turn away.
	for skill, prompt := range map[string]string{
		"impact-analyst": "what about the fixtures generated from it",
	} {
		alone := r.Route(prompt, router.Session{})
		require.NotEqual(t, skill, alone.Skill, prompt)
		require.Less(t, alone.Confidence, router.LeaveFrom, prompt)
		d = r.Route(prompt, router.Session{Recent: []string{skill}, LastSkill: skill, LastConfidence: 0.8})
		assert.Equal(t, skill, d.Skill, "%s: a weak match of another skill", prompt)
	}
	for _, closing := range []string{"谢谢，别的不用了", "thanks, nothing else"} {
		d = r.Route(closing, s)
		assert.True(t, d.Closing, closing)
		assert.Empty(t, d.Skill, closing)
	}
	// An acknowledgement followed by an instruction asks for more of the
	// work in hand: it neither closes nor loses the session's skill.
	for _, prompt := range []string{"ok, fix it", "好，改成批量插入", "great, add an index for it"} {
		d = r.Route(prompt, s)
		assert.False(t, d.Closing, prompt)
		assert.Equal(t, "database-tuning-expert", d.Skill, prompt)
	}
}

// A cue-word turn that names something specific of another skill is a
// request of its own, unless it names something specific of the skill in
// use too: "再加几道考察系统设计能力的" while preparing interview
// questions asks for more questions (考察, the interview skill's keyword),
// about system design (系统设计, the architect's).
func TestCueWordTurnNamingTheSkillInUseStays(t *testing.T) {
	r := open(t)
	s := router.Session{Recent: []string{"tech-lead-mentor"}, LastSkill: "tech-lead-mentor", LastConfidence: 0.8}
	d := r.Route("再加几道考察系统设计能力的", s)
	assert.Equal(t, "tech-lead-mentor", d.Skill)
	fresh := r.Route("再加几道考察系统设计能力的", router.Session{})
	assert.Equal(t, "architect-expert", fresh.Skill, "without the session, the prompt's best keyword decides")
	s = router.Session{Recent: []string{"golang-pro"}, LastSkill: "golang-pro", LastConfidence: 0.8}
	d = r.Route("再加个 GitHub Actions，打 tag 就推镜像", s)
	assert.Equal(t, "devops-expert", d.Skill, "names nothing of the skill in use")
}

// A turn that stays with the session although it names something
// specific of another skill (under LeaveFrom) is carried, but not as
// sure: at most TieCeiling, MEDIUM. A follow-up that names nothing keeps
// the previous turn's HIGH.
func TestCarriedAgainstAnotherSkillsKeyword(t *testing.T) {
	r := open(t)
	s := router.Session{Recent: []string{"devsecops-expert"}, LastSkill: "devsecops-expert", LastConfidence: 0.8}
	d := r.Route("扫描结果顺便加个告警", s)
	require.True(t, d.Carried, "stays with the session: 告警 alone routes under LeaveFrom")
	assert.LessOrEqual(t, d.Confidence, router.TieCeiling)
	assert.NotEqual(t, router.High, d.Level)
	d = r.Route("继续", s)
	assert.True(t, d.Carried)
	assert.Equal(t, router.High, d.Level)
}
