package main

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/skillroute/skillroute/hook"
)

// skillroute is installed either as a binary (`skillroute install` writes
// hook entries into a settings file) or as a Claude Code plugin (this
// repository, hooks/hooks.json). Both at once run two hooks per prompt and
// inject two lines; install and doctor look for the other one.

// pluginName is the plugin's name in .claude-plugin/plugin.json, the part
// of an enabledPlugins key ("skillroute@MARKETPLACE") before the "@".
const pluginName = "skillroute"

// pluginEnabledIn lists the settings files that enable the skillroute
// plugin (enabledPlugins "skillroute@…": true).
func pluginEnabledIn(files []string) []string {
	var out []string
	for _, path := range files {
		var s struct {
			EnabledPlugins map[string]bool `json:"enabledPlugins"`
		}
		data, err := hook.ReadSettings(path)
		if err != nil || json.Unmarshal(data, &s) != nil {
			continue
		}
		for key, on := range s.EnabledPlugins {
			if on && strings.HasPrefix(key, pluginName+"@") {
				out = append(out, path)
				break
			}
		}
	}
	return out
}

// pluginDataDirs lists the plugin's data folders (CLAUDE_PLUGIN_DATA:
// ~/.claude/plugins/data/skillroute-MARKETPLACE), where it builds its
// binary.
func pluginDataDirs(home string) []string {
	if home == "" {
		return nil
	}
	found, _ := filepath.Glob(filepath.Join(home, ".claude", "plugins", "data", pluginName+"-*"))
	return found
}

// listingBudget is the skill-listing budget Claude Code applies with its
// default model, after the user's overrides: override
// ($SLASH_COMMAND_TOOL_CHAR_BUDGET), else skillListingBudgetFraction in the
// user's settings (scaling the 1 % default).
func listingBudget(override, userSettings string, def int) int {
	if v := override; v != "" {
		var n int
		if err := json.Unmarshal([]byte(v), &n); err == nil && n > 0 {
			return n
		}
	}
	var s struct {
		Fraction float64 `json:"skillListingBudgetFraction"`
	}
	if data, err := hook.ReadSettings(userSettings); err == nil && json.Unmarshal(data, &s) == nil && s.Fraction > 0 {
		return int(float64(def) * s.Fraction / 0.01)
	}
	return def
}
