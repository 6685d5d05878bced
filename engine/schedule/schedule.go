// Package schedule holds the schedule of one controlled execution as plain data: the list of
// scheduling decisions (which goroutine ran each step, which alternative each nondeterministic
// choice took), what was tested, the strategy that produced it, and the bug it exposed.
//
// A schedule file is a versioned, human-readable JSON document (see file.go). The engine
// records into the types here; the replay strategy reads them back. The package uses the
// standard library only, because the engine that imports it is compiled into programs under test.
package schedule

import "fmt"

// Kind says what a Step decided.
type Kind uint8

const (
	// Run is a goroutine choice: goroutine G executes the next visible operation (one step,
	// in the sense of SCTBench §2.1).
	Run Kind = iota
	// Choice is a data choice: one of N alternatives was taken, for example which ready case
	// of a select statement proceeds. It is not a step.
	Choice
)

// Step is one decision of a schedule.
type Step struct {
	Kind Kind
	// G is the goroutine that ran (Kind == Run).
	G int32
	// Value is the alternative taken and N the number of alternatives (Kind == Choice).
	Value, N int32
	// Op and Pos describe the operation that the step executed (Kind == Run) or the operation
	// that made the choice (Kind == Choice). They are informative: replay matches on G, Value
	// and N, and reports Op and Pos when it diverges.
	Op  string
	Pos string
}

// String describes the step as error messages and the debugger show it: "G3 lock at
// bank.go:42" for a goroutine choice, "choice 1 of 2 by G3 (select at s.go:7)" for a data choice.
func (s Step) String() string {
	op := s.Op
	if op == "" {
		op = "?"
	}
	if s.Pos != "" {
		op += " at " + s.Pos
	}
	if s.Kind == Choice {
		return fmt.Sprintf("choice %d of %d by G%d (%s)", s.Value, s.N, s.G, op)
	}
	return fmt.Sprintf("G%d %s", s.G, op)
}
