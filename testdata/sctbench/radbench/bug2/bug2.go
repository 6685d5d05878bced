// Package bug2 is SCTBench benchmark 44, radbench.bug2 (Thomson, Donaldson &
// Betts; RADBench bug 2, Mozilla bug 476934, "SpiderMonkey-1": test-ctxt.cpp
// against SpiderMonkey 1.7.0 with JS_THREADSAFE).
//
// In SpiderMonkey a runtime has a list of contexts and a GC lock; each
// context is bound to a JSThread (cx->thread) that owns per-thread GC free
// lists and a source-note cache. JS_SetContextThread binds a context to the
// calling thread and JS_ClearContextThread unbinds it (cx->thread = NULL),
// each under the GC lock. js_GC takes the GC lock, waits for other requests
// to end, marks the GC as running and releases the lock; while running it
// walks the context list and, for every context bound to another thread,
// clears that thread's free lists and cache:
//
//	if (!acx->thread || acx->thread == cx->thread) continue;
//	memset(acx->thread->gcFreeLists, ...); GSN_CACHE_CLEAR(&acx->thread->gsnCache);
//
// The test's main creates a runtime and a context, starts worker threads
// that each create a context and bind and unbind it, and runs a GC inside a
// request.
//
// The bug: JS_ClearContextThread does not wait for a running GC, so a worker
// can unbind its context between the GC's test of acx->thread and its use:
// a NULL dereference (a nil pointer dereference here). It needs three
// preemptions: the worker must create and bind its context before the GC's
// walk, the GC must pass the test, and the worker must unbind before the use.
// IPB and IDB found it with a bound of 3.
//
// Threads: 2 (main and one worker; the study reduced them from six). The
// engine is reduced to the parts the bug involves: the context list, the
// threads' GC state, requests and the GC's request handshake; marking and
// sweeping the heap are omitted.
package bug2

import "sync"

// jsThread is a thread's engine state.
type jsThread struct {
	id          int
	gcFreeLists [8]int
	gsnCache    map[int]int
}

// Context is a JSContext.
type Context struct {
	rt           *Runtime
	thread       *jsThread
	requestDepth int
	next         *Context
}

// Runtime is a JSRuntime.
type Runtime struct {
	gcLock       sync.Mutex
	gcDone       *sync.Cond
	requestDone  *sync.Cond
	contexts     *Context
	requestCount int
	gcRunning    bool
	gcThread     *jsThread
	gcNumber     int
}

// NewRuntime creates a runtime.
func NewRuntime() *Runtime {
	rt := new(Runtime)
	rt.gcDone = sync.NewCond(&rt.gcLock)
	rt.requestDone = sync.NewCond(&rt.gcLock)
	return rt
}

// NewThread creates the engine state of the calling thread.
func NewThread(id int) *jsThread {
	return &jsThread{id: id, gsnCache: map[int]int{}}
}

// NewContext creates a context bound to thread th and links it into the
// runtime's list.
func (rt *Runtime) NewContext(th *jsThread) *Context {
	cx := &Context{rt: rt, thread: th}
	rt.gcLock.Lock()
	cx.next = rt.contexts
	rt.contexts = cx
	rt.gcLock.Unlock()
	return cx
}

// SetContextThread binds cx to thread th.
func SetContextThread(cx *Context, th *jsThread) {
	rt := cx.rt
	rt.gcLock.Lock()
	cx.thread = th
	rt.gcLock.Unlock()
}

// ClearContextThread unbinds cx. BUG: it does not wait for a running GC.
func ClearContextThread(cx *Context) {
	if cx.thread == nil {
		return
	}
	rt := cx.rt
	rt.gcLock.Lock()
	cx.thread = nil
	rt.gcLock.Unlock()
}

// BeginRequest enters a request, waiting for a GC run by another thread.
func BeginRequest(cx *Context) {
	rt := cx.rt
	rt.gcLock.Lock()
	for rt.gcRunning && rt.gcThread != cx.thread {
		rt.gcDone.Wait()
	}
	rt.requestCount++
	cx.requestDepth = 1
	rt.gcLock.Unlock()
}

// EndRequest leaves the request.
func EndRequest(cx *Context) {
	rt := cx.rt
	rt.gcLock.Lock()
	cx.requestDepth = 0
	rt.requestCount--
	if rt.requestCount == 0 {
		rt.requestDone.Broadcast()
	}
	rt.gcLock.Unlock()
}

// GC collects garbage on behalf of cx.
func GC(cx *Context) {
	rt := cx.rt
	rt.gcLock.Lock()
	for rt.gcRunning {
		rt.gcDone.Wait()
	}
	own := 0
	if cx.requestDepth > 0 {
		own = 1
	}
	for rt.requestCount > own {
		rt.requestDone.Wait()
	}
	rt.gcRunning = true
	rt.gcThread = cx.thread
	rt.gcLock.Unlock()

	// Clear the other threads' free lists and caches.
	for acx := rt.contexts; acx != nil; acx = acx.next {
		if acx.thread == nil || acx.thread == cx.thread {
			continue
		}
		acx.thread.gcFreeLists = [8]int{}
		clear(acx.thread.gsnCache)
	}

	rt.gcLock.Lock()
	rt.gcNumber++
	rt.gcRunning = false
	rt.gcThread = nil
	rt.gcDone.Broadcast()
	rt.gcLock.Unlock()
}

// Run is the test's main with the given number of worker threads.
func Run(threads int) {
	rt := NewRuntime()
	mainThread := NewThread(0)
	cx := rt.NewContext(mainThread)

	var wg sync.WaitGroup
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			th := NewThread(id)
			wcx := rt.NewContext(th)
			SetContextThread(wcx, th)
			ClearContextThread(wcx)
		}(i + 1)
	}
	BeginRequest(cx)
	GC(cx)
	EndRequest(cx)
	wg.Wait()
}
