// Package period_once is the motivating example of Wen et al., "Controlled
// Concurrency Testing via Periodical Scheduling" (PERIOD, seed 003), Figure
// 2: a once() function simplified from a CVE, written in Go.
//
// Two threads call once() concurrently. It is guarded by three shared
// variables: lock (allocated by the main thread, released by whichever thread
// believes it is the last waiter), done (set once the critical section has
// run) and waiters (threads between the done check and the release). The
// intended behaviour is that only the last thread frees the lock. The program
// has three bugs, each needing its own interleaving of done, waiters and
// lock:
//   - null-pointer dereference: one thread frees the lock and sets it to nil
//     before the other locks it (a nil *handle dereference here);
//   - use after free: one thread frees the lock while the other is about to
//     use it (the freed handle panics with "use after free");
//   - double free: both threads see waiters == 0 and both free the same lock
//     (panics with "double free").
//
// Threads: 3 (the test goroutine plays main: it allocates the lock, starts
// both threads and joins them). malloc/free are modelled by a handle with a
// freed flag, so that the memory errors C would silently commit become
// panics; free(nil) is a no-op as in C.
package period_once

import "sync"

// handle is a heap-allocated pthread mutex.
type handle struct {
	mu    sync.Mutex
	freed bool
}

func (h *handle) lock() {
	if h.freed {
		panic("use after free: lock of a released mutex")
	}
	h.mu.Lock()
}

func (h *handle) unlock() {
	if h.freed {
		panic("use after free: unlock of a released mutex")
	}
	h.mu.Unlock()
}

// release frees h; releasing nil does nothing, releasing twice panics.
func release(h *handle) {
	if h == nil {
		return
	}
	if h.freed {
		panic("double free of the mutex")
	}
	h.freed = true
}

// Program holds the shared state of the example.
type Program struct {
	lock    *handle
	waiters int
	done    bool
}

// once runs the critical section at most once across threads.
func (p *Program) once() {
	if p.done {
		return
	}
	p.waiters++
	p.lock.lock()
	// ... the work done exactly once ...
	if !p.done {
		p.done = true
	}
	p.lock.unlock()
	p.waiters--
	if p.waiters == 0 {
		release(p.lock)
		p.lock = nil
	}
}

// Run plays main: allocate the lock, start two threads calling once and
// join them.
func Run() {
	p := &Program{lock: new(handle)}
	var wg sync.WaitGroup
	wg.Add(2)
	for i := 0; i < 2; i++ {
		go func() {
			defer wg.Done()
			p.once()
		}()
	}
	wg.Wait()
}
