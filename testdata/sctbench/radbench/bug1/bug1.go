// Package bug1 is SCTBench benchmark 43, radbench.bug1 (Thomson, Donaldson &
// Betts; RADBench bug 1, Mozilla bug 515403: test-js.cpp against the
// SpiderMonkey of Firefox 3.6, 2009-09-09).
//
// The runtime keeps a table of script filenames (a chained hash table with
// its own lock) that scripts point into; the GC marks the filenames of live
// scripts and sweeps the others. The test's threads each create a context,
// evaluate a small script named "test.js" (which registers the filename),
// wait at a barrier, and destroy their context. js_DestroyContext unlinks the
// context under the GC lock and then runs a GC; the thread that destroys the
// last context runs the final GC and then, if the filename table is empty,
// frees it (JS_HashTableDestroy) and only afterwards sets the runtime's
// pointer to NULL. GCs do not overlap: a thread that finds a GC running
// waits for it and returns.
//
// The bug: a thread destroying a non-last context is preempted before its
// GC; the last thread's final GC empties the table and the last thread frees
// it but is preempted before clearing the pointer; the first thread's GC
// then marks filenames through the freed table and crashes (here the freed
// table's buckets are gone and the walk indexes out of range). The study
// found it only with IDB (bound 1) and PCT; its many scheduling points put
// it out of reach of IPB and DFS.
//
// Threads: 4 (main plus three JS threads; the harness's MY_THREAD_COUNT is
// 2, raised by one to match Table III's thread count). The engine is reduced
// to what the bug involves: contexts, the GC lock and GC handshake, scripts
// as references to filename entries, and the filename table; requests,
// standard classes and the script's execution are omitted.
package bug1

import "sync"

type entry struct {
	name   string
	marked bool
	next   *entry
}

// hashTable is a chained hash table; destroy frees its buckets.
type hashTable struct {
	shift    uint
	buckets  []*entry
	nentries int
}

func newHashTable() *hashTable {
	return &hashTable{shift: 28, buckets: make([]*entry, 1<<(32-28))}
}

func (h *hashTable) size() int { return 1 << (32 - h.shift) }

func (h *hashTable) index(name string) int {
	var x uint32
	for i := 0; i < len(name); i++ {
		x = x*31 + uint32(name[i])
	}
	return int((x * 0x9E3779B9) >> h.shift)
}

// destroy frees the buckets; the table must not be used afterwards.
func (h *hashTable) destroy() {
	h.buckets = nil
	h.nentries = 0
}

// Runtime is a JSRuntime.
type Runtime struct {
	gcLock    sync.Mutex
	gcDone    *sync.Cond
	contexts  []*Context
	gcRunning bool
	state     int

	scriptFilenameTable *hashTable
	tableLock           sync.Mutex
}

// Runtime states.
const (
	rtDown = iota
	rtUp
	rtLanding
)

// Context is a JSContext; script is the filename entry of its script.
type Context struct {
	rt     *Runtime
	script *entry
}

// NewRuntime creates a runtime.
func NewRuntime() *Runtime {
	rt := new(Runtime)
	rt.gcDone = sync.NewCond(&rt.gcLock)
	return rt
}

// NewContext creates a context; the first one brings the runtime up and
// creates the filename table.
func (rt *Runtime) NewContext() *Context {
	cx := &Context{rt: rt}
	rt.gcLock.Lock()
	first := len(rt.contexts) == 0
	rt.contexts = append(rt.contexts, cx)
	if first && rt.state == rtDown {
		rt.scriptFilenameTable = newHashTable()
		rt.state = rtUp
	}
	rt.gcLock.Unlock()
	return cx
}

// EvaluateScript compiles a script named filename, registering the name.
func (cx *Context) EvaluateScript(filename string) {
	rt := cx.rt
	rt.tableLock.Lock()
	t := rt.scriptFilenameTable
	i := t.index(filename)
	e := t.buckets[i]
	for e != nil && e.name != filename {
		e = e.next
	}
	if e == nil {
		e = &entry{name: filename, next: t.buckets[i]}
		t.buckets[i] = e
		t.nentries++
	}
	rt.tableLock.Unlock()
	cx.script = e
}

// DestroyContext unlinks cx and collects; the last context also frees the
// filename table.
func (cx *Context) DestroyContext() {
	rt := cx.rt
	cx.script = nil // its scripts are garbage now
	rt.gcLock.Lock()
	for i, c := range rt.contexts {
		if c == cx {
			rt.contexts = append(rt.contexts[:i:i], rt.contexts[i+1:]...)
			break
		}
	}
	last := len(rt.contexts) == 0
	if last {
		rt.state = rtLanding
	}
	rt.gcLock.Unlock()

	cx.gc()
	if last {
		if t := rt.scriptFilenameTable; t != nil && t.nentries == 0 {
			t.destroy()
			rt.scriptFilenameTable = nil
		}
		rt.gcLock.Lock()
		rt.state = rtDown
		rt.gcLock.Unlock()
	}
}

// gc runs a collection unless one is running, in which case it waits for
// it and returns.
func (cx *Context) gc() {
	rt := cx.rt
	rt.gcLock.Lock()
	if rt.gcRunning {
		for rt.gcRunning {
			rt.gcDone.Wait()
		}
		rt.gcLock.Unlock()
		return
	}
	rt.gcRunning = true
	live := append([]*Context(nil), rt.contexts...)
	rt.gcLock.Unlock()

	// Mark the filenames of live scripts, then sweep the rest.
	if t := rt.scriptFilenameTable; t != nil {
		for i := 0; i < t.size(); i++ {
			for e := t.buckets[i]; e != nil; e = e.next {
				e.marked = false
				for _, c := range live {
					if c.script == e {
						e.marked = true
					}
				}
			}
		}
		for i := 0; i < t.size(); i++ {
			p := &t.buckets[i]
			for *p != nil {
				if !(*p).marked {
					*p = (*p).next
					t.nentries--
				} else {
					p = &(*p).next
				}
			}
		}
	}

	rt.gcLock.Lock()
	rt.gcRunning = false
	rt.gcDone.Broadcast()
	rt.gcLock.Unlock()
}

// barrier is a pthread barrier.
type barrier struct {
	mu      sync.Mutex
	cond    *sync.Cond
	n, seen int
	gen     int
}

func newBarrier(n int) *barrier {
	b := &barrier{n: n}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *barrier) wait() {
	b.mu.Lock()
	gen := b.gen
	b.seen++
	if b.seen == b.n {
		b.seen = 0
		b.gen++
		b.cond.Broadcast()
	} else {
		for gen == b.gen {
			b.cond.Wait()
		}
	}
	b.mu.Unlock()
}

// Run is the test's main with the given number of JS threads.
func Run(threads int) {
	rt := NewRuntime()
	bar := newBarrier(threads)
	var wg sync.WaitGroup
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cx := rt.NewContext()
			cx.EvaluateScript("test.js")
			bar.wait()
			cx.DestroyContext()
		}()
	}
	wg.Wait()
}
