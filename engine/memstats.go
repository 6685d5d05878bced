package engine

import (
	"runtime"
	"testing"
)

// Allocation statistics. The instrumented program allocates where the original does not (the
// engine's bookkeeping of each operation), so a test that counts allocations — with
// runtime.ReadMemStats or testing.AllocsPerRun — sees other numbers than under go test. The
// functions here are the real ones that also mark the execution (Result.MeasuredMemory): a
// failure of such an execution is reported as a notice, not a bug (explore).

// ReadMemStats is runtime.ReadMemStats(m).
func ReadMemStats(m *runtime.MemStats, pos Pos) {
	if e, g := current(pos); g != nil {
		e.result.MeasuredMemory = true
	}
	runtime.ReadMemStats(m)
}

// AllocsPerRun is testing.AllocsPerRun(runs, f).
func AllocsPerRun(runs int, f func(), pos Pos) float64 {
	if e, g := current(pos); g != nil {
		e.result.MeasuredMemory = true
	}
	return testing.AllocsPerRun(runs, f)
}
