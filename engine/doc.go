// Package engine runs Go code under a controlled scheduler, the way controlled concurrency
// testing tools (CHESS, Maple, Shuttle) do: only one controlled goroutine runs at a time, and
// before every visible operation — goroutine start, channel operation, lock, atomic, timer,
// yield, shared-memory access — the goroutine stops at a scheduling point where a Strategy picks
// which enabled goroutine executes the next step.
//
// Programs are written against (or rewritten by the instrumenter to) the package-level
// functions of this package: Go, Lock, Unlock, Send, Recv, Select, Sleep, Read, Write, and so
// on. Each takes the source position of the original operation as a constant string. Outside an
// execution — or on a goroutine the engine did not start — they perform the real operation,
// so instrumented code still works when it is not being explored.
//
// Synchronization objects keep their real Go types. Their state is tracked by address in
// per-execution shadow tables, so an object needs no constructor and a new execution starts
// from a clean slate. Time is virtual: the clock only moves when no goroutine is enabled and a
// timer is due, as in testing/synctest.
//
// Explore runs a test body once per schedule until a bug, a budget or exhaustion of the
// strategy's space; every execution yields a Result with its schedule, which the schedule
// package serializes and the replay strategy reproduces.
//
// The package uses the standard library only: it is compiled into arbitrary user test binaries.
package engine
