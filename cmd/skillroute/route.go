package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/skillroute/skillroute/action"
	"github.com/skillroute/skillroute/hook"
	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

func (a *app) runRoute(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("route", "route [--json] [--explain] [--catalog P] [--rules P] [--synonyms P] [--memories F] [--tools F] [--router rule|feature] [--] TEXT...", stderr)
	var data dataFlags
	data.register(fs, true)
	var act actionFlags
	act.register(fs)
	asJSON := fs.Bool("json", false, "print the decision as JSON")
	explain := fs.Bool("explain", false, "show why each candidate scored as it did")
	if err := parseInterspersed(fs, args); err != nil { // "route fix it --json"; after "--" all is prompt
		return err
	}
	text := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if text == "" {
		fs.Usage()
		return errUsage
	}
	r, err := loader.Open(a.config(&data, stderr))
	if err != nil {
		return err
	}
	r.Explain = *explain
	d := r.Route(text, router.Session{})
	layer, err := a.actionLayer(act)
	if err != nil {
		return err
	}
	in, dec := layer.Decide(text, d, action.Context{Cwd: a.cwd, Now: time.Now()})
	if *asJSON {
		// The router's decision, then the action layer's: "skill" stays
		// the router's recommendation whatever the action.
		out := struct {
			router.Decision
			Action    string            `json:"action"`
			Steps     []action.Step     `json:"steps,omitempty"`
			Question  string            `json:"question,omitempty"`
			Breakdown *action.Breakdown `json:"breakdown,omitempty"`
			Explain   string            `json:"explain,omitempty"`
		}{Decision: d, Action: dec.Action, Steps: dec.Steps, Question: dec.Question, Breakdown: dec.Breakdown}
		if *explain {
			out.Explain = d.Explain()
		}
		if out.Candidates == nil {
			out.Candidates = []router.Candidate{}
		}
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	if d.Skill == "" {
		fmt.Fprintf(stdout, "no skill (confidence %.2f, %s)\n", d.Confidence, d.Level)
	} else {
		fmt.Fprintf(stdout, "%s  (confidence %.2f, %s)\n", d.Skill, d.Confidence, d.Level)
	}
	for i, c := range d.Candidates {
		fmt.Fprintf(stdout, "  %d. %-28s score %7.3f  confidence %.2f\n", i+1, c.Skill, c.Score, c.Confidence)
	}
	fmt.Fprintf(stdout, "action: %s\n", dec.String())
	if injected := hook.Injection(d, in, dec); injected != "" {
		fmt.Fprintf(stdout, "injects: %s\n", injected)
	}
	if *explain {
		fmt.Fprintf(stdout, "\n%s", d.Explain())
		fmt.Fprintf(stdout, "\n%s", dec.Breakdown.String())
	}
	return nil
}
