// Package ctrace_test is SCTBench benchmark 37, misc.ctrace-test (Thomson,
// Donaldson & Betts; a test of the ctrace multithreaded tracing library,
// obtained from the authors of Kasikci et al. 2012: ctrace-test.c).
//
// ctrace keeps a hash table of registered threads (each record holds the
// thread's name, on flag, level mask and formatting buffers), guarded by a
// readers-writer protocol built from a mutex, a reader count and a binary
// semaphore, and a global enabled flag _trc that the trace macros test before
// calling into the library. trc_end disables tracing and frees every thread
// record, without taking the table's lock. The test's main thread
// initialises the library, registers itself, starts two threads, traces a
// print and an error, joins the threads, unregisters them, traces its return
// and ends the library. Thread 1 calls trc_end; thread 2 calls it only when
// the program's argument starts with 'b' (the harness passes "2", so it
// returns at once).
//
// The bug: thread 1's trc_end runs while main is inside a trace call, after
// main has tested _trc and found its own record, so main then writes into
// (and reads from) a freed record. In C this is a use after free that
// crashed under the study's harness; here freed records panic when touched.
// IPB and IDB found it with one preemption/delay.
//
// Threads: 3 (main plus two). Simplified: the output goes to a buffer rather
// than stdout, the timestamp is a constant (no clock), the optional
// trace-server thread and the unit table (unused: the test passes 0 units)
// are omitted, and trc_end clears the table's buckets after freeing the
// records (the original leaves dangling pointers, so that main's final
// trc_end would free them again in every schedule; the harness did not
// report that). Destroying the mutex and semaphores has no Go counterpart
// and is left out.
package ctrace_test

import (
	"bytes"
	"fmt"
	"sync"
)

// Trace levels.
const (
	trcNone = 0
	trc0    = 1
	trcErr  = 64
	trcAll  = 1 | 2 | 4 | 8 | 16 | 32 | 64
)

// Trace actions.
const (
	actEnter = iota
	actReturn
	actVoidReturn
	actPrint
	actError
)

const thrdMax = 307 // keep this prime: used in hashing

// record is a registered thread.
type record struct {
	id    int
	name  string
	on    bool
	level int
	fmt   string
	trace string
	next  *record
	freed bool
}

// live panics if r has been freed, as touching freed memory crashed the C
// original.
func (r *record) live() *record {
	if r.freed {
		panic(fmt.Sprintf("ctrace: use after free of the record of thread %d", r.id))
	}
	return r
}

// Tracer is the library's global state.
type Tracer struct {
	trc         bool // tracing enabled (the macros test it)
	on          bool
	tlevel      int
	out         *bytes.Buffer
	msgs        int
	initialised bool

	threads    [thrdMax]*record
	numthreads int
	hashMu     sync.Mutex
	hashReads  int
	hashSem    chan struct{} // binary semaphore: writers, or the first reader
}

func (tr *Tracer) readEnter() {
	tr.hashMu.Lock()
	if tr.hashReads == 0 {
		<-tr.hashSem
	}
	tr.hashReads++
	tr.hashMu.Unlock()
}

func (tr *Tracer) readExit() {
	tr.hashMu.Lock()
	tr.hashReads--
	if tr.hashReads == 0 {
		tr.hashSem <- struct{}{}
	}
	tr.hashMu.Unlock()
}

func (tr *Tracer) writeEnter() { <-tr.hashSem }
func (tr *Tracer) writeExit()  { tr.hashSem <- struct{}{} }

// Init initialises the library.
func (tr *Tracer) Init(enabled, on bool, level int) bool {
	if tr.initialised {
		return false
	}
	tr.trc = enabled
	tr.on = on
	tr.tlevel = level
	tr.out = new(bytes.Buffer)
	for i := range tr.threads {
		tr.threads[i] = nil
	}
	tr.hashSem = make(chan struct{}, 1)
	tr.hashSem <- struct{}{}
	tr.initialised = true
	return true
}

// End disables tracing and frees the thread records.
func (tr *Tracer) End() {
	tr.trc = false
	for i := range tr.threads {
		var next *record
		for cur := tr.threads[i]; cur != nil; cur = next {
			next = cur.live().next
			cur.freed = true
		}
		tr.threads[i] = nil
	}
	tr.initialised = false
}

func hash(id int) int {
	if id < 0 {
		id = -id
	}
	return id % thrdMax
}

// lookup returns the record of thread id, or nil.
func (tr *Tracer) lookup(id int) *record {
	for t := tr.threads[hash(id)]; t != nil; t = t.live().next {
		if t.id == id {
			return t
		}
	}
	return nil
}

// AddThread registers thread id under name.
func (tr *Tracer) AddThread(name string, id int) {
	tr.writeEnter()
	if t := tr.lookup(id); t != nil {
		t.live().name = name
	} else {
		i := hash(id)
		t := &record{id: id, name: name, on: tr.on, level: tr.tlevel}
		t.next = tr.threads[i]
		tr.threads[i] = t
		tr.numthreads++
	}
	tr.writeExit()
}

// RemoveThread unregisters thread id and reports whether it was found.
func (tr *Tracer) RemoveThread(id int) bool {
	found := false
	tr.writeEnter()
	i := hash(id)
	if h := tr.threads[i]; h != nil && h.live().id == id {
		tr.threads[i] = h.next
		h.freed = true
		tr.numthreads--
		found = true
	} else {
		for cur := tr.threads[i]; cur != nil; cur = cur.live().next {
			if next := cur.next; next != nil && next.live().id == id {
				cur.next = next.next
				next.freed = true
				tr.numthreads--
				found = true
			}
		}
	}
	tr.writeExit()
	return found
}

// Varargs formats the arguments into the calling thread's buffer.
func (tr *Tracer) Varargs(self int, format string, args ...any) string {
	var s string
	tr.readEnter()
	t := tr.lookup(self)
	if t != nil {
		t.live().fmt = fmt.Sprintf(format, args...)
		s = t.live().fmt
	}
	tr.readExit()
	return s
}

// Trace writes one trace line for the calling thread.
func (tr *Tracer) Trace(self, action, level int, file string, line int, fn, s string) {
	tr.readEnter()
	t := tr.lookup(self)
	if tr.out == nil || t == nil {
		tr.readExit()
		return
	}
	if !(t.live().on && t.live().level&level != 0) {
		tr.readExit()
		return
	}
	prefix := fmt.Sprintf("00/00/00-00:00:00:%s:%d:%s:", file, line, t.live().name)
	var msg string
	switch action {
	case actEnter:
		msg = fmt.Sprintf("enter %s(%s)\n", fn, s)
	case actReturn:
		msg = fmt.Sprintf("return %s(%s)\n", fn, s)
	case actVoidReturn:
		msg = fmt.Sprintf("%s: return\n", fn)
	case actPrint:
		msg = s + "\n"
	case actError:
		msg = fmt.Sprintf("ERROR in fn %s: %s\n", fn, s)
	}
	t.live().trace = prefix + msg
	tr.out.WriteString(t.live().trace)
	tr.msgs++
	tr.readExit()
}

// Run is the test program's main with the given argument; it returns the
// trace output.
func Run(arg string) string {
	const mainID, id1, id2 = 1, 2, 3
	tr := new(Tracer)
	x := arg[0]
	i := 6
	tr.Init(true, true, trc0)
	tr.AddThread("ctrace-test", mainID)

	var wg1, wg2 sync.WaitGroup
	wg1.Add(1)
	go func() { // thread 1
		defer wg1.Done()
		tr.End()
	}()
	wg2.Add(1)
	go func() { // thread 2
		defer wg2.Done()
		if x == 'b' {
			tr.End()
		}
	}()

	if tr.trc { // TRC_PRINT
		tr.Trace(mainID, actPrint, trc0, "ctrace-test.c", 1, "main", tr.Varargs(mainID, "i=%d", 0))
	}
	if tr.trc { // TRC_ERROR
		tr.Trace(mainID, actError, trcErr, "ctrace-test.c", 2, "main", tr.Varargs(mainID, "mystring=%s", "stringval"))
	}
	wg1.Wait()
	tr.RemoveThread(id1)
	wg2.Wait()
	tr.RemoveThread(id2)
	if tr.trc { // TRC_RETURN
		tr.Trace(mainID, actReturn, trc0, "ctrace-test.c", 3, "main", tr.Varargs(mainID, "%d", i))
	}
	tr.End()
	return tr.out.String()
}
