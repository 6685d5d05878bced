package schedule

import (
	"fmt"
	"time"
)

// A schedule file looks like this (the steps, usually the bulk of it, take one line each):
//
//	{
//	  "format": "interleave-schedule",
//	  "version": 1,
//	  "test": {"module": "example.com/bank", "package": "example.com/bank", "name": "TestTransfer", "build": "5f2c..."},
//	  "strategy": {"name": "pct", "params": {"depth": "3", "seed": "42"}},
//	  "execution": 17,
//	  "points": "racy", "racyPoints": ["bank.go:12:3", "bank.go:19:2"],
//	  "result": {"steps": 41, "goroutines": 3, "preemptions": 2, "fingerprint": "9f1c00e3a1b2c3d4"},
//	  "bug": {
//	    "kind": "deadlock",
//	    "message": "all goroutines are blocked: ...",
//	    "step": 41, "g": 0, "pos": "bank.go:42",
//	    "goroutines": [
//	      {"id": 0, "parent": -1, "status": "blocked", "op": "lock", "pos": "bank.go:42",
//	       "stack": [{"func": "bank.TestTransfer", "file": "/src/bank/bank_test.go", "line": 30}]},
//	      ...
//	    ]
//	  },
//	  "source": {
//	    "bank.go:20": {"func":"TestTransfer","line":4,"text":"go transfer(a, b, 10)"},
//	    ...
//	  },
//	  "steps": [
//	    {"step":1,"g":0,"op":"go","pos":"bank.go:20"},
//	    {"choice":1,"n":2,"g":1,"op":"select","pos":"bank.go:61"},
//	    ...
//	  ]
//	}
//
// A goroutine step has "g" (and an optional "step", its 1-based number among the goroutine
// steps, checked when present); a data choice has "choice" (the alternative taken), "n" (the
// number of alternatives) and "g" (the goroutine that chose). "op" and "pos" are informative.
// "points" and "racyPoints" say which memory accesses were scheduling points (absent: all).
// "source" (version 2) anchors each position of the steps in the source it was recorded from:
// the function it is in, its line relative to the function's, and the line's tokens; a replay
// of edited source finds each position again from them (package srcmap). Version 1 files,
// without it, are read as well: their positions are matched as written.
// Fields this version does not know are ignored.

// FormatName is the value of the "format" field of every schedule file.
const FormatName = "interleave-schedule"

// Version is the format version this package writes. It reads every version from
// OldestVersion to Version.
const Version = 2

// OldestVersion is the oldest format version this package reads: version 1 files have no
// "source" anchors.
const OldestVersion = 1

// File is a schedule file: one execution's decisions, what was tested, the strategy that
// chose them and the bug they expose.
type File struct {
	// Test is what was tested.
	Test Test
	// Instrument lists the modules instrumented besides the main module and those always
	// instrumented (interleave test -instrument), and BuildFlags the build flags that change
	// what the test binary does (-tags, -race, …): a replay, a minimization or a debugging
	// session of the schedule builds the test so again. Files written before they were
	// recorded have neither, and are built without.
	Instrument []string
	BuildFlags []string
	// Strategy is the strategy that produced the schedule, with the parameters of the
	// execution (a randomized strategy's include its seed).
	Strategy Strategy
	// Execution is the number of the execution within its exploration, from 1 (0: unknown).
	Execution int
	// Points is the scheduling-points mode the execution ran with ("all", "sync", "racy";
	// empty means "all"), and RacyPoints the positions of the accesses that were scheduling
	// points in mode "racy". A replay must use the same points to make the same decisions.
	Points     string
	RacyPoints []string
	// DataSeed is the seed of the execution's math/rand values (0: the fixed seed of
	// strategies that hold them fixed, and of files written before it was recorded).
	DataSeed uint64
	// SleepDelays is how many times the execution could move the clock past runnable
	// goroutines, to a timer at most SleepDelayMax ahead (interleave test -sleeps); 0 when it
	// could not. A replay offers the same delays, so that the schedule's choices among them
	// come again.
	SleepDelays   int
	SleepDelayMax time.Duration
	// FairSteps is the fairness bound the execution ran with when it was not the default
	// (interleave test -fair-steps, or a portfolio member's own, such as the unfair one);
	// -1: no fairness; 0: the default (and files written before it was recorded).
	FairSteps int
	// Result summarizes the execution.
	Result Summary
	// Bug is what went wrong, nil if the execution passed.
	Bug *Bug
	// Steps are the decisions, in order.
	Steps []Step
	// Source anchors the positions of the steps (and of the bug) in the source the schedule
	// was recorded from, by position ("x_test.go:12"); nil in files written before version 2,
	// or when the source could not be read.
	Source map[string]Anchor
	// Path is where the file was loaded from or saved to. It is not part of the document.
	Path string
}

// Anchor places a position in its source in a way that survives edits elsewhere: the
// function the line is in, its line relative to the function's first line, which of the
// function's lines with the same tokens it is (0: the first), and those tokens. Comments,
// blank lines, reformatting and changes outside the function leave all of them unchanged but
// the relative line, which is only a hint.
type Anchor struct {
	// Func is the function ("TestX", "T.Method", "T.Method.func1" is not used: a function
	// literal's lines belong to the declared function that holds it); empty for a line
	// outside every function (a package variable's initializer).
	Func string `json:"func,omitempty"`
	// Line is the line's distance from the function's first line (from the file's first
	// line when Func is empty).
	Line int `json:"line"`
	// Col is the column of the line's first token (to place a position's column among
	// the line's tokens).
	Col int `json:"col,omitempty"`
	// Nth counts the lines of the function before this one with the same Text.
	Nth int `json:"nth,omitempty"`
	// Text is the line as written, without its comments and surrounding blanks; lines
	// are compared by their tokens, so that reformatting does not tell them apart.
	Text string `json:"text"`
}

// Test identifies what was tested.
type Test struct {
	Module  string `json:"module,omitempty"`
	Package string `json:"package"`
	// Name is the test's name, with subtests ("TestA/sub").
	Name string `json:"name"`
	// Build identifies the test binary (a hash of it, or a build ID), so that a file recorded
	// with another version of the code can be detected. Empty when unknown.
	Build string `json:"build,omitempty"`
}

// String describes the test as messages name it: "TestA in package p".
func (t Test) String() string {
	if t.Package == "" {
		return t.Name
	}
	return fmt.Sprintf("%s in package %s", t.Name, t.Package)
}

// Strategy names a strategy and its parameters.
type Strategy struct {
	Name   string            `json:"name"`
	Params map[string]string `json:"params,omitempty"`
}

// Summary summarizes an execution.
type Summary struct {
	Steps       int
	Goroutines  int
	Preemptions int
	// Fingerprint identifies the execution's happens-before order (0: unknown). Two
	// executions that differ only in the order of independent operations share it.
	Fingerprint uint64
}

// Bug is the bug an execution exposed.
type Bug struct {
	Kind    string
	Message string
	// Step is the goroutine step during which the bug happened.
	Step int
	// G is the goroutine that failed (-1: none).
	G   int32
	Pos string
	// Delayed, when not empty, says that the bug needed runnable goroutines delayed past a
	// sleep or a timer, and how ("G1 had not run for 1ms when G0 woke (sleep at x.go:9)").
	Delayed string
	// Logs are the test's log lines.
	Logs []string
	// Goroutines are the states and stacks of every goroutine when the bug happened.
	Goroutines []Goroutine
}

// Goroutine is the state of one goroutine when a bug happened.
type Goroutine struct {
	ID     int32  `json:"id"`
	Parent int32  `json:"parent"`
	Status string `json:"status,omitempty"`
	// Op and Pos are the operation the goroutine was about to execute.
	Op  string `json:"op,omitempty"`
	Pos string `json:"pos,omitempty"`
	// Created is the position of the go statement that started it.
	Created string  `json:"created,omitempty"`
	Stack   []Frame `json:"stack,omitempty"`
}

// Frame is a stack frame.
type Frame struct {
	Func string `json:"func"`
	File string `json:"file"`
	Line int    `json:"line"`
}

// Check reports whether f was recorded for target: the same test in the same package (and
// module), by the same build when both builds are known. The error wraps ErrOtherTest or
// ErrOtherBuild; a caller may choose to replay a file of another build anyway, at the risk of
// a divergence. Empty fields of target are not compared.
func (f *File) Check(target Test) error {
	name := fileName(f.Path)
	mismatch := func(kind error, format string, args ...any) error {
		return &Error{Path: f.Path, Kind: kind, msg: name + " " + fmt.Sprintf(format, args...)}
	}
	switch {
	case target.Package != "" && f.Test.Package != target.Package:
		return mismatch(ErrOtherTest, "is for test %s in package %s, not %s in package %s", f.Test.Name, f.Test.Package, target.Name, target.Package)
	case target.Name != "" && f.Test.Name != target.Name:
		return mismatch(ErrOtherTest, "is for test %s in package %s, not %s", f.Test.Name, f.Test.Package, target.Name)
	case target.Module != "" && f.Test.Module != "" && f.Test.Module != target.Module:
		return mismatch(ErrOtherTest, "is for module %s, not %s", f.Test.Module, target.Module)
	case target.Build != "" && f.Test.Build != "" && f.Test.Build != target.Build:
		return mismatch(ErrOtherBuild, "was recorded by build %s, not by this build (%s): the code under test may have changed, and a replay may diverge", f.Test.Build, target.Build)
	}
	return nil
}

// RunSteps returns the number of goroutine steps of the schedule (data choices are not steps).
func (f *File) RunSteps() int {
	n := 0
	for _, s := range f.Steps {
		if s.Kind == Run {
			n++
		}
	}
	return n
}
