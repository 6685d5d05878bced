// Package control is the test process's side of a debugging session: the control protocol
// that the debug adapter (interleave dap) speaks to an instrumented test binary, and the
// session that serves it.
//
// When INTERLEAVE_DEBUG=<addr> is set, harness.RunTest hands the test to Serve, which connects to
// the debug adapter's control address (unix:PATH, a Unix domain socket in a directory only the
// user can enter; a loopback TCP address where there are none) and serves the control
// protocol: newline-separated JSON, one Command from the adapter at a time, answered by Reply
// messages. The adapter is in charge; the test process only executes:
//
//	explore   explore with a strategy until the first bug (progress replies while it runs;
//	          a "cancel" command stops it, keeping what was found), then reply "explored"
//	run       start a new execution that follows Steps, pausing when Stop steps have been
//	          executed (or, with Continue, at a breakpoint, at ExceptionAt, or at the end);
//	          reply "paused" (or "ended")
//	step      while paused: run one step, of goroutine G if G >= 0 (manual scheduling: the
//	          execution leaves the schedule it followed), else the next one of the schedule
//	continue  while paused: run until a breakpoint line, ExceptionAt, a pause, or the end
//	pause     while running: stop at the next scheduling point
//	quit      end the session; the test returns
//
// Every execution is one engine.Run under debugStrategy, whose Pick blocks while the
// execution is paused. Going back in a schedule is re-executing a prefix of it: a new run.
// While paused, the goroutines of the test are parked at their scheduling points, and the
// paused reply describes each of them: its engine id, its runtime goroutine id (for a
// debugger attached to the process), its pending operation and state, its user frames, the
// locks it holds and the channels it waits on.
//
// The files: protocol.go holds the messages, session.go the session and its commands,
// dial_*.go its connection, strategy.go the strategy of a debugged execution, stacks.go the
// goroutines' stacks and values.
//
// Like every package compiled into test binaries, it uses the standard library only.
package control
