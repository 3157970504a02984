package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/skillroute/skillroute/store"
)

// Claude Code's settings decide which of the skills on disk the model may
// invoke: a plugin's skills only while the plugin is enabled
// (enabledPlugins), a personal or project skill unless skillOverrides
// turns it "off" or "user-invocable-only", and any skill unless a
// permission rule denies it (permissions.deny "Skill" or "Skill(NAME)").
// A hook that named a skill the model cannot invoke would send it after
// something it cannot use, so Discover leaves such skills out, as it
// leaves out a skill whose header disables model invocation.

// MaxSettingsBytes bounds a settings file read: Claude Code's are a few
// kilobytes; a project's .claude/settings.json comes with a cloned
// repository, which may make it a link to /dev/zero or a FIFO.
const MaxSettingsBytes = 4 << 20

// ReadSettings reads a settings file: a regular file of at most
// MaxSettingsBytes, else an error naming it (store.ReadRegular).
func ReadSettings(path string) ([]byte, error) {
	return store.ReadRegular(path, MaxSettingsBytes)
}

// SettingsFiles lists the settings files Claude Code reads for the user
// and, when known, the project, lowest precedence first: the user's, the
// project's shared one, the project's local one.
func (p Places) SettingsFiles() []string {
	var out []string
	if p.Home != "" {
		out = append(out, filepath.Join(p.Home, ".claude", "settings.json"))
	}
	if p.ProjectDir != "" {
		out = append(out, filepath.Join(p.ProjectDir, ".claude", "settings.json"), filepath.Join(p.ProjectDir, ".claude", "settings.local.json"))
	}
	return out
}

// Visibility is what the settings say about which skills the model may
// invoke.
type Visibility struct {
	plugins   map[string]bool   // enabledPlugins: "PLUGIN@MARKETPLACE" → on
	overrides map[string]string // skillOverrides: skill name → on, name-only, user-invocable-only, off
	denied    map[string]bool   // skill names a Skill(NAME) deny rule names
	denyAll   bool              // a bare "Skill" deny rule
}

// ReadVisibility merges the settings files, lowest precedence first: a
// later file's enabledPlugins and skillOverrides entries replace an
// earlier one's, and deny rules add up. A file that is missing is
// skipped; one that cannot be read or is not JSON is skipped with an
// error naming it.
func ReadVisibility(files []string) (Visibility, []error) {
	v := Visibility{plugins: map[string]bool{}, overrides: map[string]string{}, denied: map[string]bool{}}
	var errs []error
	for _, path := range files {
		data, err := ReadSettings(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		} else if err != nil {
			errs = append(errs, &SettingsError{Path: path, Err: err})
			continue
		}
		var s struct {
			EnabledPlugins map[string]any    `json:"enabledPlugins"`
			SkillOverrides map[string]string `json:"skillOverrides"`
			Permissions    struct {
				Deny []string `json:"deny"`
			} `json:"permissions"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			errs = append(errs, &SettingsError{Path: path, Err: err})
			continue
		}
		for key, on := range s.EnabledPlugins {
			b, _ := on.(bool) // Claude Code writes true or false; anything else enables nothing
			v.plugins[key] = b
		}
		for name, mode := range s.SkillOverrides {
			v.overrides[name] = mode
		}
		for _, rule := range s.Permissions.Deny {
			name, ok := skillRule(rule)
			switch {
			case !ok:
			case name == "":
				v.denyAll = true
			default:
				v.denied[name] = true
			}
		}
	}
	return v, errs
}

// SettingsError is a settings file whose skill settings could not be
// applied: it cannot be read, or it is not JSON.
type SettingsError struct {
	Path string
	Err  error
}

func (e *SettingsError) Error() string {
	return fmt.Sprintf("settings %s: %v (its skill settings are not applied)", e.Path, e.Err)
}

func (e *SettingsError) Unwrap() error { return e.Err }

// skillRule reads a permission rule about the Skill tool: "Skill" (every
// skill: name ""), "Skill(NAME)" or "Skill(NAME *)" (that skill, with
// any arguments).
func skillRule(rule string) (name string, ok bool) {
	rule = strings.TrimSpace(rule)
	if rule == "Skill" {
		return "", true
	}
	inner, found := strings.CutPrefix(rule, "Skill(")
	if !found || !strings.HasSuffix(inner, ")") {
		return "", false
	}
	inner = strings.TrimSpace(strings.TrimSuffix(inner, ")"))
	inner = strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(inner, ":*"), " *"))
	inner = strings.TrimPrefix(inner, "/")
	return inner, inner != ""
}

// PluginEnabled reports whether the plugin a skills folder of Claude
// Code's plugin cache belongs to is enabled; key is "PLUGIN@MARKETPLACE".
func (v Visibility) PluginEnabled(key string) bool { return v.plugins[key] }

// Hidden reports whether the model may not invoke the skill of this name
// (as Claude Code invokes it: "plugin:skill" for a plugin's). Overrides do
// not apply to plugin skills.
func (v Visibility) Hidden(name string) bool {
	if v.denyAll || v.denied[name] {
		return true
	}
	if strings.Contains(name, ":") {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(v.overrides[name])) {
	case "off", "user-invocable-only":
		return true
	}
	return false
}
