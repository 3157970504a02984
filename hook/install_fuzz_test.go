package hook

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// FuzzSettingsEdit installs into arbitrary settings files and uninstalls
// again. It must never panic; a file it edits stays valid JSON, holds our
// four entries after install and none after uninstall, and otherwise means
// what it meant: the same top-level keys in the same order with the same
// tokens, the same hooks once ours are set aside. A file it refuses gets
// an error saying it was left untouched.
func FuzzSettingsEdit(f *testing.F) {
	for _, seed := range []string{
		"", "null", "{}", "[]", `"x"`, "{ broken",
		`{"model":"opus"}`,
		`{"hooks":null}`, `{"hooks":{}}`, `{"hooks":[]}`,
		`{"hooks":{"UserPromptSubmit":null}}`,
		`{"hooks":{"UserPromptSubmit":[]}}`,
		`{"hooks":{"Stop":[{"hooks":[]},{"hooks":"x"},{"matcher":"m"},{"hooks":null},7]}}`,
		`{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo 'not skillroute hook'","statusMessage":"skillroute: routing"}]}]}}`,
		`{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"/old/skillroute hook","statusMessage":"skillroute: routing"},{"type":"command","command":"true"}]}]}}`,
		`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"/bin/skillroute hook","timeout":5,"statusMessage":"skillroute: routing"}]},{"hooks":[{"type":"command","command":"/bin/skillroute hook","timeout":5,"statusMessage":"skillroute: routing"}]}]}}`,
		`{"a":12345678901234567890,"b":"<&>","c":"caf\u00e9","d":1E+2,"e":[{},[]]}`,
		`{"hooks":{"hook.with.dots":[],"0":[],"*":[],"a|b":[]}}`,
		`{"hooks":{},"hooks":{}}`, `{"hook\u0073":{}}`,
		`{"hooks":{"SessionStart":[],"Session\u0053tart":[]}}`,
		"{\r\n\t\"model\": \"opus\"\r\n}\r\n",
		userSettingsSeed,
	} {
		f.Add([]byte(seed))
	}
	install := installer("/opt/my tools/skillroute")
	f.Fuzz(func(t *testing.T, old []byte) {
		_, installed, err := applyEdit("settings.json", old, install)
		if err != nil {
			if !strings.Contains(err.Error(), "left untouched") {
				t.Fatalf("install refused %q without saying it is left untouched: %v", old, err)
			}
			return
		}
		if installed == nil {
			installed = old // nothing to change
		}
		checkEdited(t, old, installed, true)
		_, uninstalled, err := applyEdit("settings.json", installed, uninstall)
		if err != nil {
			t.Fatalf("uninstall of what install wrote failed: %v\n%s", err, installed)
		}
		if uninstalled == nil {
			uninstalled = installed
		}
		checkEdited(t, old, uninstalled, false)
	})
}

// userSettingsSeed is a settings file as Claude Code writes it.
const userSettingsSeed = `{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm run test:*)"
    ]
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "lint.sh && echo ok >> /tmp/x",
            "timeout": 30
          }
        ]
      }
    ]
  }
}
`

// checkEdited checks an edited settings file against the original: valid,
// with one entry of ours in each registered event (installed) or none in
// any event, and the same meaning otherwise.
func checkEdited(t *testing.T, old, edited []byte, installed bool) {
	t.Helper()
	if !json.Valid(edited) {
		t.Fatalf("edit of %q is not valid JSON: %q", old, edited)
	}
	got := oursByEvent(edited)
	if installed {
		for _, reg := range Registrations {
			if got[reg.Event] != 1 {
				t.Fatalf("install into %q left %d entries of ours in %s: %s", old, got[reg.Event], reg.Event, edited)
			}
		}
	} else if len(got) > 0 {
		t.Fatalf("uninstall from %q left entries of ours in %v: %s", old, got, edited)
	}
	if a, b := topLevel(old), topLevel(edited); !reflect.DeepEqual(a, b) {
		t.Fatalf("top-level keys changed:\n%q\n%q", a, b)
	}
	if a, b := meaning(t, old), meaning(t, edited); !reflect.DeepEqual(a, b) {
		t.Fatalf("hooks changed beyond ours:\n%#v\n%#v\nold %q\nnew %q", a, b, old, edited)
	}
}

// oursByEvent counts our entries in each event. Only keys that can be
// Claude Code events count: an entry of ours under another key (none
// that install writes) is inert, and uninstall leaves it.
func oursByEvent(data []byte) map[string]int {
	out := map[string]int{}
	hooks, _ := member(gjson.ParseBytes(data), "hooks")
	hooks.ForEach(func(k, v gjson.Result) bool {
		if n := len(ours(v)); n > 0 && plainKey().MatchString(k.Str) && k.Raw == `"`+k.Str+`"` {
			out[k.Str] = n
		}
		return true
	})
	return out
}

// topLevel lists a file's top-level keys but "hooks", in order, each with
// its value's tokens (white space aside).
func topLevel(data []byte) []string {
	var out []string
	top := gjson.ParseBytes(data)
	if !top.IsObject() {
		return nil
	}
	top.ForEach(func(k, v gjson.Result) bool {
		if k.Str != "hooks" {
			var b bytes.Buffer
			_ = json.Compact(&b, []byte(v.Raw))
			out = append(out, k.Raw+":"+b.String())
		}
		return true
	})
	return out
}

// meaning decodes a file's hooks (as encoding/json reads them, numbers
// kept as written) with our entries set aside: handlers of ours removed,
// then the groups, event lists and hooks object left empty by that, and
// lists and objects that mean "no hooks" (an empty or null event list, an
// empty or null hooks object) dropped.
func meaning(t *testing.T, data []byte) any {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var top map[string]any
	if err := dec.Decode(&top); err != nil {
		t.Fatalf("decode %q: %v", data, err)
	}
	hooks, _ := top["hooks"].(map[string]any)
	for event, v := range hooks {
		groups, ok := v.([]any)
		if !ok {
			if v == nil {
				delete(hooks, event)
			}
			continue
		}
		var kept []any
		for _, g := range groups {
			gm, ok := g.(map[string]any)
			handlers, isList := gm["hooks"].([]any)
			if !ok || !isList {
				kept = append(kept, g)
				continue
			}
			var rest []any
			for _, h := range handlers {
				if !oursDecoded(h) {
					rest = append(rest, h)
				}
			}
			if len(rest) == 0 && len(handlers) > 0 {
				continue
			}
			if rest == nil {
				rest = []any{}
			}
			gm["hooks"] = rest
			kept = append(kept, gm)
		}
		if len(kept) == 0 {
			delete(hooks, event)
		} else {
			hooks[event] = kept
		}
	}
	if len(hooks) == 0 {
		return nil
	}
	return hooks
}

// oursDecoded is isOurs on a decoded handler.
func oursDecoded(h any) bool {
	m, _ := h.(map[string]any)
	msg, _ := m["statusMessage"].(string)
	cmd, _ := m["command"].(string)
	_, ok := CommandBinary(cmd)
	return msg == StatusMessage && ok
}
