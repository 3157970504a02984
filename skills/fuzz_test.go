package skills_test

import (
	"strings"
	"testing"
	"time"

	"github.com/skillroute/skillroute/skills"
)

// FuzzParse feeds Parse arbitrary SKILL.md files: it must never panic nor
// take long (billion-laughs aliases, deep nesting), and a skill it accepts
// has a name and no keyword it did not read from the file.
func FuzzParse(f *testing.F) {
	laughs := "---\nname: laughs\na: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\nkeywords:\n  core: *d\n---\n"
	for _, seed := range []string{
		"---\nname: performance-expert\ndescription: Speed.\nkeywords:\n  core: [首屏, lighthouse]\n  strong: [latency]\n---\nbody\n",
		"no frontmatter at all\n\nsecond paragraph",
		"\xef\xbb\xbf---\r\nname: bom\r\n---\r\n",
		"---\nname: [not, a, string]\n---\n",
		"---\nkeywords: {core: 7}\n---\n",
		"---\n---\n", "---\n", "", laughs,
		"---\nname: x\ndescription: " + strings.Repeat("[", 2000) + "\n---\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		sk, err := skills.Parse("fuzz/SKILL.md", "fuzz", data)
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("Parse took %v on %q", took, data)
		}
		if err != nil {
			return
		}
		if sk.Name == "" {
			t.Fatalf("a skill without a name from %q", data)
		}
		for _, k := range sk.Keywords {
			if k.Text != "" && !strings.Contains(strings.ToLower(string(data)), strings.ToLower(strings.Fields(k.Text)[0])) {
				t.Fatalf("keyword %q not in the file %q", k.Text, data)
			}
		}
	})
}
