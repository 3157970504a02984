package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/skillroute/skillroute/loader"
	"github.com/skillroute/skillroute/router"
)

func (a *app) runRoute(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("route", "route [--json] [--explain] [--catalog P] [--rules P] [--synonyms P] TEXT...", stderr)
	var data dataFlags
	data.register(fs, true)
	asJSON := fs.Bool("json", false, "print the decision as JSON")
	explain := fs.Bool("explain", false, "show why each candidate scored as it did")
	if err := parse(fs, args); err != nil {
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
	if *asJSON {
		out := struct {
			router.Decision
			Explain string `json:"explain,omitempty"`
		}{Decision: d}
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
	if *explain {
		fmt.Fprintf(stdout, "\n%s", d.Explain())
	}
	return nil
}
