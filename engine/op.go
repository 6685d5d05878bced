package engine

import (
	"fmt"
	"path/filepath"
	"strings"
)

// GID identifies a controlled goroutine within one execution. Ids are assigned in creation
// order: the test body is G0, the first goroutine it starts G1, and so on, so the same
// decisions always give the same ids.
type GID int32

// NoGoroutine stands for "no goroutine", for example the last goroutine before the first step.
const NoGoroutine GID = -1

func (g GID) String() string {
	if g < 0 {
		return "none"
	}
	return fmt.Sprintf("G%d", int32(g))
}

// Pos is the source position of an operation, "file:line:col" of the original source. Callers
// pass constant strings, so passing one costs two words and no allocation.
type Pos = string

// OpKind is the kind of a visible operation.
type OpKind uint8

// The visible operations. Blocking operations are the ones whose goroutine can be disabled.
const (
	OpNone OpKind = iota
	OpStart
	OpGo
	OpRead
	OpWrite
	OpYield
	OpLock
	OpUnlock
	OpTryLock
	OpRLock
	OpRUnlock
	OpTryRLock
	OpWaitGroupAdd
	OpWaitGroupWait
	OpOnce
	OpCondWait
	OpCondSignal
	OpCondBroadcast
	OpSend
	OpRecv
	OpClose
	OpSelect
	OpChanLen
	OpAtomicLoad
	OpAtomicStore
	OpAtomicRMW
	OpSleep
	OpTimer
	OpContext
	OpWaitGroupDone
	OpMapRead
	OpMapWrite
	OpPoolGet
	OpPoolPut
	OpNetRead
	OpNetWrite
	OpNetClose
	OpNetAccept
	OpNetDial
	OpNetDeadline
	numOpKinds
)

var opNames = [numOpKinds]string{
	OpNone:          "none",
	OpStart:         "start",
	OpGo:            "go",
	OpRead:          "read",
	OpWrite:         "write",
	OpYield:         "yield",
	OpLock:          "lock",
	OpUnlock:        "unlock",
	OpTryLock:       "trylock",
	OpRLock:         "rlock",
	OpRUnlock:       "runlock",
	OpTryRLock:      "tryrlock",
	OpWaitGroupAdd:  "wg.add",
	OpWaitGroupWait: "wg.wait",
	OpOnce:          "once",
	OpCondWait:      "cond.wait",
	OpCondSignal:    "cond.signal",
	OpCondBroadcast: "cond.broadcast",
	OpSend:          "send",
	OpRecv:          "recv",
	OpClose:         "close",
	OpSelect:        "select",
	OpChanLen:       "len",
	OpAtomicLoad:    "atomic.load",
	OpAtomicStore:   "atomic.store",
	OpAtomicRMW:     "atomic.rmw",
	OpSleep:         "sleep",
	OpTimer:         "timer",
	OpContext:       "context",
	OpWaitGroupDone: "wg.done",
	OpMapRead:       "syncmap.read",
	OpMapWrite:      "syncmap.write",
	OpPoolGet:       "pool.get",
	OpPoolPut:       "pool.put",
	OpNetRead:       "net.read",
	OpNetWrite:      "net.write",
	OpNetClose:      "net.close",
	OpNetAccept:     "net.accept",
	OpNetDial:       "net.dial",
	OpNetDeadline:   "net.deadline",
}

func (k OpKind) String() string {
	if k < numOpKinds {
		return opNames[k]
	}
	return fmt.Sprintf("op(%d)", uint8(k))
}

// ParseOpKind is the inverse of OpKind.String.
func ParseOpKind(s string) (OpKind, bool) {
	for k, n := range opNames {
		if n == s {
			return OpKind(k), true
		}
	}
	return OpNone, false
}

// IsWrite reports whether the operation may change the object it acts on. Two operations on
// the same object are dependent unless both are reads (see the strategies of seed 001).
func (k OpKind) IsWrite() bool {
	switch k {
	case OpRead, OpAtomicLoad, OpChanLen, OpNone, OpYield, OpStart, OpMapRead:
		return false
	}
	return true
}

// Op is a pending or executed visible operation: its kind, the object it acts on (an address,
// or 0 when it acts on none) and its source position.
type Op struct {
	Kind OpKind
	Obj  uintptr
	Pos  Pos
}

func (o Op) String() string {
	if o.Pos == "" {
		return o.Kind.String()
	}
	return o.Kind.String() + " at " + o.Pos
}

// RelativePos makes a position ("file:line" or "file:line:col") whose file is under root
// relative to root, with slashes; other positions, and any position when root is empty, are
// returned as they are. The instrumenter's operation positions are module-relative already.
func RelativePos(root string, pos Pos) Pos {
	if root == "" || !filepath.IsAbs(pos) {
		return pos
	}
	if rel, err := filepath.Rel(root, pos); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return pos
}
