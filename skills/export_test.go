package skills

// SkillRule exposes skillRule to the external tests.
var SkillRule = skillRule
