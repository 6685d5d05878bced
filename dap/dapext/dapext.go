// Package dapext defines Interleave's extensions to the Debug Adapter Protocol, which the
// adapter (package dap), its test client (dap/daptest) and the VS Code extension's schedule
// timeline share:
//
//   - the interleaveStep event, sent after every stopped event: how many scheduling steps the
//     paused execution has run and which schedule file it follows, so that a timeline of that
//     schedule can mark the current step;
//   - the interleaveGotoStep request, which moves the paused execution to another step of its
//     schedule (back by re-executing a prefix, forward by following the schedule), as a click
//     on the timeline asks;
//   - the interleaveTimeline request, which returns every step of the paused execution's
//     schedule with what the timeline draws: the operation, the name of its object as the
//     source spells it, the goroutines that were enabled (preemptions, blocked spans).
//
// The protocol lets an adapter add requests and events of its own; a client that does not know
// them ignores the event and never sends the request.
package dapext

import "github.com/google/go-dap"

// StepEventName is the name of the event that says where the paused execution is.
const StepEventName = "interleaveStep"

// StepEvent is sent after each stopped event.
type StepEvent struct {
	dap.Event
	Body StepEventBody `json:"body"`
}

// StepEventBody says where the paused execution is.
type StepEventBody struct {
	// Step is the number of scheduling steps the execution has run: the next step to run is
	// Step+1 (1-based, as the timeline numbers them).
	Step int `json:"step"`
	// Current is the step the execution is paused before, Step+1 (0 once it has ended): the
	// number the timeline marks and the Scheduler scope shows ("3 of 10"), so that both say
	// the same. Added after Step; a client that reads only Step computes it as Step+1.
	Current int `json:"current"`
	// Steps is the number of steps of the schedule the execution follows.
	Steps int `json:"steps"`
	// Schedule is the path of the schedule file the session started from (the replayed file,
	// or the one exploring saved), empty when it has none.
	Schedule string `json:"schedule,omitempty"`
	// Following is false once the execution has left that schedule (a goroutine stepped by
	// hand): its steps from then on are not the file's.
	Following bool `json:"following"`
	// Ended is true when the execution has ended.
	Ended bool `json:"ended"`
}

// GotoStepCommand is the command of the request that moves the paused execution.
const GotoStepCommand = "interleaveGotoStep"

// GotoStepRequest asks the adapter to pause the execution before step Arguments.Step+1 of its
// schedule, that is after Arguments.Step steps.
type GotoStepRequest struct {
	dap.Request
	Arguments GotoStepArguments `json:"arguments"`
}

// GotoStepArguments says where to go.
type GotoStepArguments struct {
	// Step is the number of steps to have run when the execution pauses (0: at its start).
	Step int `json:"step"`
	// Current is the step the execution is paused before, Step+1 (0 once it has ended): the
	// number the timeline marks and the Scheduler scope shows ("3 of 10"), so that both say
	// the same. Added after Step; a client that reads only Step computes it as Step+1.
	Current int `json:"current"`
}

// GotoStepResponse acknowledges a GotoStepRequest; a stopped event follows.
type GotoStepResponse struct {
	dap.Response
}

// TimelineCommand is the command of the request that returns the steps of the schedule.
const TimelineCommand = "interleaveTimeline"

// TimelineRequest asks for the steps of the paused execution's schedule. The adapter runs
// the schedule to its end once (silently) to learn the steps not run yet, then pauses the
// execution again where it was: a stopped event follows the response when it had to.
type TimelineRequest struct {
	dap.Request
}

// TimelineResponse returns the steps.
type TimelineResponse struct {
	dap.Response
	Body TimelineBody `json:"body"`
}

// TimelineBody is the schedule as the timeline draws it.
type TimelineBody struct {
	// Step is where the execution is paused (as in StepEventBody: Step steps have run).
	Step int `json:"step"`
	// Schedule and Following are as in StepEventBody.
	Schedule  string `json:"schedule,omitempty"`
	Following bool   `json:"following"`
	// Steps are the run steps (data choices left out), Steps[i] being step i+1.
	Steps []TimelineStep `json:"steps"`
}

// TimelineStep is one step of the schedule.
type TimelineStep struct {
	// G is the goroutine that ran, Op its operation ("lock", "send", "read", ...) and Pos its
	// position ("bank.go:42:2", relative to the module root).
	G   int    `json:"g"`
	Op  string `json:"op"`
	Pos string `json:"pos,omitempty"`
	// Name is the operation's object as the source spells it at Pos ("from.mu", "ch", "x"),
	// empty when the source does not say (no object, or the file cannot be read).
	Name string `json:"name,omitempty"`
	// Obj numbers the object (the same number: the same object in this execution), 0: none.
	Obj int `json:"obj,omitempty"`
	// Enabled are the goroutines that could run at this step; absent when unknown.
	Enabled []int `json:"enabled,omitempty"`
}

// NewCodec returns a codec that decodes the standard protocol's messages and these.
func NewCodec() *dap.Codec {
	c := dap.NewCodec()
	if err := c.RegisterRequest(GotoStepCommand,
		func() dap.Message { return &GotoStepRequest{} },
		func() dap.Message { return &GotoStepResponse{} }); err != nil {
		panic(err)
	}
	if err := c.RegisterRequest(TimelineCommand,
		func() dap.Message { return &TimelineRequest{} },
		func() dap.Message { return &TimelineResponse{} }); err != nil {
		panic(err)
	}
	if err := c.RegisterEvent(StepEventName, func() dap.Message { return &StepEvent{} }); err != nil {
		panic(err)
	}
	return c
}
