package context_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"time"

	sctx "github.com/skillroute/skillroute/context"
	"github.com/skillroute/skillroute/rules"
)

// printScores prints a score map in name order, to three decimals.
func printScores(m map[string]float64) {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Println(k, math.Round(m[k]*1000)/1000)
	}
}

// The session used frontend-expert, then nextjs-developer; the catalog says
// nextjs-developer is often followed by performance-expert.
func ExampleContextScores() {
	var s sctx.Session
	now := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	s.Use("frontend-expert", now)
	s.Use("nextjs-developer", now.Add(time.Minute))

	enhances := map[string][]string{"nextjs-developer": {"performance-expert"}}
	printScores(sctx.ContextScores(s.Recent, func(skill string) []string { return enhances[skill] }))
	// Output:
	// frontend-expert 0.43
	// nextjs-developer 0.5
	// performance-expert 0.2
}

// A prompt typed in cmd/api of a Go service with a Dockerfile.
func ExampleDetectProject() {
	root, err := os.MkdirTemp("", "detect")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	for _, dir := range []string{".git", "cmd/api"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			panic(err)
		}
	}
	for _, file := range []string{"go.mod", "Dockerfile"} {
		if err := os.WriteFile(filepath.Join(root, file), nil, 0o644); err != nil {
			panic(err)
		}
	}

	types := sctx.DetectProject(filepath.Join(root, "cmd", "api"), "")
	fmt.Println(types)
	favours, err := sctx.ParseProjectFavours(rules.ProjectsName, rules.Projects)
	if err != nil {
		panic(err)
	}
	printScores(sctx.ProjectScores(types, favours))
	// Output:
	// [go docker]
	// backend-builder 0.4
	// devops-expert 0.6
	// golang-pro 1
}

// Past sessions went golang-pro → tester-expert twice and golang-pro →
// devops-expert once; after debugger-expert, golang-pro was always followed
// by tester-expert.
func ExampleWorkflow_Predict() {
	var w sctx.Workflow
	w.Observe([]string{"golang-pro"}, "tester-expert")
	w.Observe([]string{"golang-pro"}, "devops-expert")
	w.Observe([]string{"debugger-expert", "golang-pro"}, "tester-expert")
	w.Observe([]string{"debugger-expert", "golang-pro"}, "tester-expert")

	fmt.Println("after golang-pro:")
	printScores(w.Predict([]string{"golang-pro"}))
	fmt.Println("after debugger-expert, golang-pro:")
	printScores(w.Predict([]string{"debugger-expert", "golang-pro"}))
	fmt.Println("after tester-expert:", len(w.Predict([]string{"tester-expert"})))
	// Output:
	// after golang-pro:
	// devops-expert 0.25
	// tester-expert 0.75
	// after debugger-expert, golang-pro:
	// devops-expert 0.075
	// tester-expert 0.925
	// after tester-expert: 0
}
