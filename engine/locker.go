package engine

import (
	"reflect"
	"runtime"
	"strconv"
	"sync"
)

// syncRLockerType is the dynamic type of the Locker that sync.RWMutex.RLocker returns.
var syncRLockerType = reflect.TypeOf(new(sync.RWMutex).RLocker())

// LockerLock is l.Lock() for a sync.Locker l. The lockers of package sync — *sync.Mutex,
// *sync.RWMutex, the RLocker of an RWMutex (this package's or package sync's) — are handled
// by the engine; any other Locker's Lock method is simply called (its own operations, when
// instrumented, are scheduling points). A nil l panics as the method call would.
func LockerLock(l sync.Locker, pos Pos) {
	switch x := l.(type) {
	case *sync.Mutex:
		Lock(x, pos)
	case *sync.RWMutex:
		RWLock(x, pos)
	case *rlocker:
		RLock((*sync.RWMutex)(x), pos)
	default:
		if rw := syncRLocker(l); rw != nil {
			RLock(rw, pos)
			return
		}
		l.Lock()
	}
}

// LockerUnlock is l.Unlock() for a sync.Locker l; see LockerLock.
func LockerUnlock(l sync.Locker, pos Pos) {
	switch x := l.(type) {
	case *sync.Mutex:
		Unlock(x, pos)
	case *sync.RWMutex:
		RWUnlock(x, pos)
	case *rlocker:
		RUnlock((*sync.RWMutex)(x), pos)
	default:
		if rw := syncRLocker(l); rw != nil {
			RUnlock(rw, pos)
			return
		}
		l.Unlock()
	}
}

// syncRLocker returns the RWMutex behind l when l is the RLocker of package sync (made by
// uninstrumented code), nil otherwise.
func syncRLocker(l sync.Locker) *sync.RWMutex {
	if l == nil || reflect.TypeOf(l) != syncRLockerType {
		return nil
	}
	return (*sync.RWMutex)(reflect.ValueOf(l).UnsafePointer())
}

// callerPos is the "file:line" of the caller skip frames up (1: callerPos's caller), for
// operations that reach the engine without a position.
func callerPos(skip int) Pos {
	_, file, line, ok := runtime.Caller(skip)
	if !ok {
		return "?"
	}
	return file + ":" + strconv.Itoa(line)
}
