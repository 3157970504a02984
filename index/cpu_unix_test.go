//go:build unix

package index

import (
	"syscall"
	"time"
)

// processCPU is the user and system time the process has used: what the
// benchmarks report beside wall time, which other work on a shared
// machine stretches far more.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
