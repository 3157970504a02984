package calibrate_test

import (
	"fmt"
	"time"

	"github.com/skillroute/skillroute/learn/calibrate"
)

// Build a calibration table from logged outcomes: debugging prompts are
// calibrated (the skill is right 90 % of the time, answering without it
// 40 %); deploy prompts have too few samples and take the caller's
// fallback; the rest keep the prior, the BM25 decision alone.
func ExampleBuild() {
	var samples []calibrate.Sample
	for i := range 30 {
		samples = append(samples,
			calibrate.Sample{Category: "debug", Arm: "debugger-expert", Cost: 800, Correct: float64(min(1, (i+1)%10))},
			calibrate.Sample{Category: "debug", Arm: "", Cost: 0, Correct: float64(i % 5 / 3)})
	}
	samples = append(samples, calibrate.Sample{Category: "deploy", Arm: "sre-expert", Cost: 500, Correct: 1})
	tb, err := calibrate.Build(samples, calibrate.PresetMaximizeAccuracy, calibrate.DefaultMinSamples, calibrate.DefaultTolerance,
		map[string]string{"deploy": "devops-expert"}, time.Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range []string{"debug", "deploy", "docs"} {
		e := tb.Lookup(c)
		fmt.Printf("%-6s %-16q %s\n", c, e.Arm, e.Level)
	}
	d := tb.Lookup("debug").Cells["debugger-expert"]
	fmt.Printf("debugger-expert: n %d, accuracy %.2f, lower bound %.2f\n", d.N, d.MeanAccuracy, d.Lower)
	// Output:
	// debug  "debugger-expert" calibrated
	// deploy "devops-expert"  fallback
	// docs   ""               prior
	// debugger-expert: n 30, accuracy 0.90, lower bound 0.74
}
