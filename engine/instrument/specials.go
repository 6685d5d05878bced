package instrument

// The functions and methods the engine replaces (specials): sync, sync/atomic, time,
// context, runtime, the top-level functions of math/rand and math/rand/v2,
// hash/maphash.MakeSeed, and the functions of package net that make connections and
// listeners (replaced by package engine/vnet's). io.Pipe is apart (pipe.go): its results'
// types change.

import (
	"go/types"
)

// A special is an engine function that replaces a function or method of sync, sync/atomic,
// time, context or runtime.
type special struct {
	fn     string // the engine function
	method bool   // a method: its receiver's address is the first argument
	iface  bool   // an interface method: the receiver value is the first argument
	noPos  bool   // the engine function takes no position
	vnet   bool   // the function is package engine/vnet's
}

var specials = map[string]special{
	"sync.Mutex.Lock":           {fn: "Lock", method: true},
	"sync.Mutex.Unlock":         {fn: "Unlock", method: true},
	"sync.Mutex.TryLock":        {fn: "TryLock", method: true},
	"sync.RWMutex.Lock":         {fn: "RWLock", method: true},
	"sync.RWMutex.Unlock":       {fn: "RWUnlock", method: true},
	"sync.RWMutex.RLock":        {fn: "RLock", method: true},
	"sync.RWMutex.RUnlock":      {fn: "RUnlock", method: true},
	"sync.RWMutex.TryLock":      {fn: "RWTryLock", method: true},
	"sync.RWMutex.TryRLock":     {fn: "RWTryRLock", method: true},
	"sync.RWMutex.RLocker":      {fn: "RLocker", method: true},
	"sync.WaitGroup.Add":        {fn: "WGAdd", method: true},
	"sync.WaitGroup.Done":       {fn: "WGDone", method: true},
	"sync.WaitGroup.Wait":       {fn: "WGWait", method: true},
	"sync.WaitGroup.Go":         {fn: "WGGo", method: true},
	"sync.Once.Do":              {fn: "OnceDo", method: true},
	"sync.Cond.Wait":            {fn: "CondWait", method: true},
	"sync.Cond.Signal":          {fn: "CondSignal", method: true},
	"sync.Cond.Broadcast":       {fn: "CondBroadcast", method: true},
	"sync.Locker.Lock":          {fn: "LockerLock", iface: true},
	"sync.Locker.Unlock":        {fn: "LockerUnlock", iface: true},
	"sync.Map.Load":             {fn: "SyncMapLoad", method: true},
	"sync.Map.Store":            {fn: "SyncMapStore", method: true},
	"sync.Map.LoadOrStore":      {fn: "SyncMapLoadOrStore", method: true},
	"sync.Map.LoadAndDelete":    {fn: "SyncMapLoadAndDelete", method: true},
	"sync.Map.Delete":           {fn: "SyncMapDelete", method: true},
	"sync.Map.Swap":             {fn: "SyncMapSwap", method: true},
	"sync.Map.CompareAndSwap":   {fn: "SyncMapCompareAndSwap", method: true},
	"sync.Map.CompareAndDelete": {fn: "SyncMapCompareAndDelete", method: true},
	"sync.Map.Range":            {fn: "SyncMapRange", method: true},
	"sync.Map.Clear":            {fn: "SyncMapClear", method: true},
	"sync.Pool.Get":             {fn: "PoolGet", method: true},
	"sync.Pool.Put":             {fn: "PoolPut", method: true},
	"sync.OnceFunc":             {fn: "OnceFunc"},
	"sync.OnceValue":            {fn: "OnceValue"},
	"sync.OnceValues":           {fn: "OnceValues"},
	"time.Sleep":                {fn: "Sleep"},
	"time.After":                {fn: "After"},
	"time.NewTimer":             {fn: "NewTimer"},
	"time.AfterFunc":            {fn: "AfterFunc"},
	"time.Tick":                 {fn: "Tick"},
	"time.NewTicker":            {fn: "NewTicker"},
	"time.Now":                  {fn: "Now", noPos: true},
	"time.Since":                {fn: "Since", noPos: true},
	"time.Until":                {fn: "Until", noPos: true},
	"time.Timer.Stop":           {fn: "TimerStop", method: true},
	"time.Timer.Reset":          {fn: "TimerReset", method: true},
	"time.Ticker.Stop":          {fn: "TickerStop", method: true},
	"time.Ticker.Reset":         {fn: "TickerReset", method: true},
	"context.WithTimeout":       {fn: "WithTimeout"},
	"context.WithDeadline":      {fn: "WithDeadline"},
	"context.WithTimeoutCause":  {fn: "WithTimeoutCause"},
	"context.WithDeadlineCause": {fn: "WithDeadlineCause"},
	"context.AfterFunc":         {fn: "ContextAfterFunc"},
	"runtime.Gosched":           {fn: "Gosched"},
	"runtime.NumGoroutine":      {fn: "NumGoroutine", noPos: true},
	"runtime.Stack":             {fn: "Stack", noPos: true},
	"runtime.ReadMemStats":      {fn: "ReadMemStats"},
	"testing.AllocsPerRun":      {fn: "AllocsPerRun"},
	"testing/synctest.Test":     {fn: "SynctestTest"},
	"testing/synctest.Wait":     {fn: "SynctestWait"},
	"hash/maphash.MakeSeed":     {fn: "MaphashMakeSeed"},
	"net.Pipe":                  {fn: "Pipe", vnet: true},
	"net.Listen":                {fn: "Listen", vnet: true},
	"net.Dial":                  {fn: "Dial", vnet: true},
	"net.DialTimeout":           {fn: "DialTimeout", vnet: true},
	"net.Dialer.Dial":           {fn: "DialerDial", method: true, vnet: true},
	"net.Dialer.DialContext":    {fn: "DialerDialContext", method: true, vnet: true},
}

// randPrefix names the engine functions of the top-level functions of math/rand and
// math/rand/v2: rand.Intn is engine.RandIntn, v2's rand.IntN engine.RandV2IntN (see
// engine/rand.go). Their constructors (rand.New, rand.NewPCG, ...) have none, and methods of
// a *rand.Rand are left alone.
var randPrefix = map[string]string{"math/rand": "Rand", "math/rand/v2": "RandV2"}

// engineFuncs is the set of exported functions of the engine, read from its source (see
// source.go); atomic operations are looked up there by name.
var engineFuncs map[string]bool

// specialOf returns the engine replacement of the function or method fn, if any.
func specialOf(fn *types.Func) (special, bool) {
	if fn.Pkg() == nil {
		return special{}, false
	}
	path := fn.Pkg().Path()
	switch path {
	case "sync", "sync/atomic", "time", "context", "runtime", "math/rand", "math/rand/v2", "testing/synctest", "testing", "hash/maphash", "net":
	default:
		return special{}, false
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		if s, ok := specials[path+"."+fn.Name()]; ok {
			return s, true
		}
		if path == "sync/atomic" && engineFuncs["Atomic"+fn.Name()] {
			return special{fn: "Atomic" + fn.Name()}, true
		}
		if prefix, ok := randPrefix[path]; ok && engineFuncs[prefix+fn.Name()] {
			return special{fn: prefix + fn.Name()}, true
		}
		return special{}, false
	}
	rt := sig.Recv().Type()
	if p, ok := rt.(*types.Pointer); ok {
		rt = p.Elem()
	}
	named, ok := rt.(*types.Named)
	if !ok {
		return special{}, false
	}
	key := path + "." + named.Obj().Name() + "." + fn.Name()
	if s, ok := specials[key]; ok {
		return s, true
	}
	if path == "sync/atomic" && engineFuncs["Atomic"+named.Obj().Name()+fn.Name()] {
		return special{fn: "Atomic" + named.Obj().Name() + fn.Name(), method: true}, true
	}
	return special{}, false
}

// specialFor is specialOf for a call of fn through sel (nil for a plain function), where a
// Lock or Unlock of an interface with both methods also goes through the engine's
// sync.Locker dispatch.
func specialFor(fn *types.Func, sel *types.Selection) (special, bool) {
	if sp, ok := specialOf(fn); ok {
		return sp, true
	}
	if sel != nil && (fn.Name() == "Lock" || fn.Name() == "Unlock") && types.IsInterface(sel.Recv()) && lockerLike(sel.Recv()) {
		return specials["sync.Locker."+fn.Name()], true
	}
	return special{}, false
}

// lockerLike reports whether the interface type t has Lock() and Unlock() methods, so that a
// call of them can go through the engine's sync.Locker dispatch.
func lockerLike(t types.Type) bool {
	it, ok := t.Underlying().(*types.Interface)
	if !ok {
		return false
	}
	n := 0
	for i := 0; i < it.NumMethods(); i++ {
		m := it.Method(i)
		if m.Name() == "Lock" || m.Name() == "Unlock" {
			sig := m.Type().(*types.Signature)
			if sig.Params().Len() == 0 && sig.Results().Len() == 0 {
				n++
			}
		}
	}
	return n == 2
}
