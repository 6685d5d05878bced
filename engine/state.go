package engine

import "sync"

// Package state. All the executions of a test run in one process, so a package variable that
// one execution changed would still be changed in the next, which the program alone never
// sees: a flag left set by an execution made a later one fail, and the failure did not replay.
// The instrumenter therefore registers, for every package it rewrites, a function that saves
// the package's variables and returns the function that restores them (RegisterState), and
// every execution starts from the variables as they were when the exploration began — after
// the package's initialization and any TestMain — as every run of go test does.
//
// The restore is shallow: a variable is given back its value (a map or a slice a copy of
// its contents), not what a pointer in it points to, and channels keep what they buffer.

var state struct {
	mu        sync.Mutex
	snapshots []func() func() // registered by the instrumented packages' init functions
	restores  []func()        // of the last SnapshotState
	taken     bool
}

// RegisterState registers the function that saves an instrumented package's variables and
// returns the function that restores them. The instrumenter calls it from an init function.
func RegisterState(snapshot func() func()) {
	state.mu.Lock()
	defer state.mu.Unlock()
	state.snapshots = append(state.snapshots, snapshot)
}

// SnapshotState saves the variables of every instrumented package as they are now: the
// executions that follow start from these values. Test calls it when an exploration begins;
// without a call, the first execution of the process takes the snapshot.
func SnapshotState() {
	state.mu.Lock()
	defer state.mu.Unlock()
	state.restores = state.restores[:0]
	for _, s := range state.snapshots {
		state.restores = append(state.restores, s())
	}
	state.taken = true
}

// restoreState gives every instrumented package's variables the values of the last snapshot.
func restoreState() {
	state.mu.Lock()
	taken := state.taken
	state.mu.Unlock()
	if !taken {
		SnapshotState()
		return
	}
	state.mu.Lock()
	defer state.mu.Unlock()
	for _, r := range state.restores {
		r()
	}
}

// CloneMap returns a copy of m (nil for nil): the snapshot of a map variable, and the value it
// is restored to.
func CloneMap[M ~map[K]V, K comparable, V any](m M) M {
	if m == nil {
		return nil
	}
	c := make(M, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// CloneSlice returns a copy of s with the same length and capacity (nil for nil).
func CloneSlice[S ~[]E, E any](s S) S {
	if s == nil {
		return nil
	}
	c := make(S, len(s), cap(s))
	copy(c, s)
	return c
}
