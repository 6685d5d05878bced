package engine

import (
	"sync/atomic"
	"unsafe"

	"github.com/interleave-dev/interleave/engine/internal/splitmix"
)

// The values of the program's atomic variables, for strategies that steer by them.
//
// A lock-free structure's state is its atomic variables: the head of a stack, a count, the
// links of its items. Two schedules that order the same operations on the same objects can
// leave them in different states (an ABA problem is a link restored to a value that is no
// longer right), and coverage-guided exploration (strategy.Greybox) that knows only which
// operation followed which cannot tell them apart. Decision.AtomicState is a hash of the
// current values of every atomic variable the execution has used, maintained step by step
// (Zobrist hashing: each variable contributes a mix of its index and its value, and a step
// that changes it replaces its contribution), so that a strategy can count the distinct
// states an execution reached.

// AtomicsObserver is implemented by strategies that read Decision.AtomicState. The engine
// keeps the atomic variables' state only for an execution whose strategy's ObservesAtomics,
// asked as the execution starts, returns true: for the others an atomic operation costs
// nothing more.
type AtomicsObserver interface {
	ObservesAtomics() bool
}

// atomicRep is how an atomic variable's value is read for the state: the memory at the
// variable's address (each type of sync/atomic keeps its value at offset 0).
type atomicRep uint8

const (
	atomicWord32 atomicRep = 1 // int32, uint32, atomic.Bool
	atomicWord64 atomicRep = 2 // int64, uint64
	// unsafe.Pointer, atomic.Pointer: nil or not (addresses differ from one execution to the
	// next).
	atomicPointer atomicRep = 3
	// atomic.Value: the dynamic type of its value (the same in every execution).
	atomicValue atomicRep = 4
	// atomicUintptr is atomicWord32 or atomicWord64, as uintptr is 4 or 8 bytes.
	atomicUintptr = atomicWord32 + atomicRep(unsafe.Sizeof(uintptr(0))>>3)
)

// atomicVar is an atomic variable of the execution.
type atomicVar struct {
	p   unsafe.Pointer // kept alive until the execution ends
	rep atomicRep
	mix uint64 // its contribution to the hash, from its value when last read
}

// atomicVars is the state of an execution's atomic variables.
type atomicVars struct {
	on    bool
	index addrIndex // address -> index in vars, the order first used
	vars  []atomicVar
	hash  uint64 // the XOR of the variables' contributions
	upTo  int    // the steps of the trace whose writes the hash includes
}

func (a *atomicVars) reset(s Strategy) {
	o, ok := s.(AtomicsObserver)
	a.on = ok && o.ObservesAtomics()
	a.index.reset()
	clear(a.vars) // drop the pointers
	a.vars = a.vars[:0]
	a.hash, a.upTo = 0, 0
}

// note records the variable at p, about to be used by an atomic operation.
func (a *atomicVars) note(p unsafe.Pointer, rep atomicRep) {
	if _, ok := a.index.get(uintptr(p)); ok {
		return
	}
	i := len(a.vars)
	a.index.put(uintptr(p), int32(i))
	v := atomicVar{p: p, rep: rep}
	v.mix = atomicMix(i, v.read())
	a.vars = append(a.vars, v)
	a.hash ^= v.mix
}

// read returns the variable's current value, as the state sees it.
func (v *atomicVar) read() uint64 {
	switch v.rep {
	case atomicWord32:
		return uint64(atomic.LoadUint32((*uint32)(v.p)))
	case atomicWord64:
		return atomic.LoadUint64((*uint64)(v.p))
	case atomicPointer, atomicValue:
		// An atomic.Value's first word is its value's type.
		if atomic.LoadPointer((*unsafe.Pointer)(v.p)) == nil {
			return 0
		}
		if v.rep == atomicPointer {
			return 1
		}
		return uint64(uintptr(atomic.LoadPointer((*unsafe.Pointer)(v.p))))
	}
	return 0
}

// state folds the writes of the steps executed since the last call into the hash and
// returns it.
func (a *atomicVars) state(trace []traceStep) uint64 {
	for _, t := range trace[a.upTo:] {
		if t.isChoice() {
			continue
		}
		switch t.op() {
		case OpAtomicStore, OpAtomicRMW:
			if i, ok := a.index.get(t.obj); ok {
				v := &a.vars[i]
				a.hash ^= v.mix
				v.mix = atomicMix(int(i), v.read())
				a.hash ^= v.mix
			}
		}
	}
	a.upTo = len(trace)
	return a.hash
}

// atomicMix is variable i's contribution to the hash when its value is v.
func atomicMix(i int, v uint64) uint64 {
	return splitmix.Mix(v ^ (uint64(i)+1)*0x9e3779b97f4a7c15)
}

// AtomicState is a hash of the values of the atomic variables the execution has used so far
// (sync/atomic's functions and types), as the previous steps left them: equal states give
// equal hashes, and different ones different hashes but for collisions. A variable counts
// from the first step that operates on it, with the value it had then; a pointer counts as
// nil or not, an atomic.Value by the type of its value (their addresses differ between
// executions). Values written to a variable by other means than sync/atomic are seen at its
// next atomic write. 0 unless the strategy is an AtomicsObserver that observes them.
func (d *Decision) AtomicState() uint64 {
	if d.e == nil || !d.e.atomics.on {
		return 0
	}
	return d.e.atomics.state(d.e.trace)
}
