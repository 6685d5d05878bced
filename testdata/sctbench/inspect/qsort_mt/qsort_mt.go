// Package qsort_mt is SCTBench benchmark 36, inspect.qsort_mt (Thomson,
// Donaldson & Betts; from the Inspect benchmarks: qsort_mt.c, a FreeBSD-style
// multithreaded quicksort by Diomidis Spinellis).
//
// qsort_mt keeps a fixed pool of sorting threads. Each pool slot has a state
// (idle, work, term), a sub-array to sort, and a mutex and condition
// variable; a common part counts idle threads under its own mutex. The caller
// hands the whole array to slot 0 and joins the pool. A sorting thread
// partitions its sub-array; if both sides are larger than forkelem it farms
// the left side out to an idle slot (allocate_thread) and continues with the
// right side itself; when it finishes it marks itself idle, and the thread
// that makes every slot idle tells the others to terminate. The program then
// verifies that the array is sorted.
//
// The bug: allocate_thread marks the chosen slot as working (under the
// common mutex) before taking the slot's own mutex and filling in the
// sub-array. A pool thread that checks its state in that window sees work,
// does not wait, and sorts the stale (empty or previous) sub-array; the job
// then handed to it is never done and the verification fails ("Failed to
// verify sorted list!"). IPB and IDB found it with one preemption/delay.
//
// Threads: 3 (the caller plus a pool of 2, as the harness's -h 2). Input as
// the harness: 32 integers in [0,32) (a fixed pseudo-random sequence instead
// of rand()), forkelem 4. Simplified: the partition is a plain median-of-three
// quicksort with insertion sort below 7 elements instead of Bentley and
// McIlroy's three-way partition, and the string-sorting and timing options
// are omitted; the thread protocol is unchanged.
package qsort_mt

import "sync"

type threadState int

const (
	tsIdle threadState = iota // waiting for instructions
	tsWork                    // has work to do
	tsTerm                    // asked to terminate
)

// slot is one pool thread's variant part.
type slot struct {
	st     threadState
	common *common
	a      []uint32 // the sub-array to sort
	mu     sync.Mutex
	cond   *sync.Cond
}

// common is the part shared by all pool threads.
type common struct {
	nthreads    int
	idlethreads int
	forkelem    int
	pool        []*slot
	mu          sync.Mutex // for allocating threads in the pool
}

// Sort sorts a with a pool of maxthreads threads, farming out sub-arrays of
// more than forkelem elements.
func Sort(a []uint32, maxthreads, forkelem int) {
	if len(a) < forkelem {
		insertionSort(a)
		return
	}
	c := &common{forkelem: forkelem}
	var wg sync.WaitGroup
	for i := 0; i < maxthreads; i++ {
		qs := &slot{st: tsIdle, common: c}
		qs.cond = sync.NewCond(&qs.mu)
		c.pool = append(c.pool, qs)
		wg.Add(1)
		go func() {
			defer wg.Done()
			qs.run()
		}()
	}
	c.nthreads = maxthreads
	c.idlethreads = maxthreads

	// Hand out the first work batch.
	qs := c.pool[0]
	qs.mu.Lock()
	qs.a = a
	qs.st = tsWork
	c.idlethreads--
	qs.cond.Signal()
	qs.mu.Unlock()

	wg.Wait()
}

// allocate returns an idle slot, marked working and with its mutex held, or
// nil if none is idle.
func (c *common) allocate() *slot {
	c.mu.Lock()
	for _, qs := range c.pool {
		if qs.st == tsIdle {
			c.idlethreads--
			qs.st = tsWork // BUG: visible before the sub-array is set
			qs.mu.Lock()
			c.mu.Unlock()
			return qs
		}
	}
	c.mu.Unlock()
	return nil
}

// run is a pool thread.
func (qs *slot) run() {
	c := qs.common
	for {
		qs.mu.Lock()
		for qs.st == tsIdle {
			qs.cond.Wait()
		}
		qs.mu.Unlock()
		if qs.st == tsTerm {
			return
		}
		qs.sort()

		c.mu.Lock()
		qs.st = tsIdle
		c.idlethreads++
		if c.idlethreads == c.nthreads {
			for _, qs2 := range c.pool {
				if qs2 == qs {
					continue
				}
				qs2.mu.Lock()
				qs2.st = tsTerm
				qs2.cond.Signal()
				qs2.mu.Unlock()
			}
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
	}
}

// sort sorts qs.a, farming out left parts when possible.
func (qs *slot) sort() {
	c := qs.common
	a := qs.a
	for {
		n := len(a)
		if n < 7 {
			insertionSort(a)
			return
		}
		m := median3(a, 0, n/2, n-1)
		a[0], a[m] = a[m], a[0]
		i := 1
		for j := 1; j < n; j++ {
			if a[j] < a[0] {
				a[i], a[j] = a[j], a[i]
				i++
			}
		}
		a[0], a[i-1] = a[i-1], a[0]
		left, right := a[:i-1], a[i:]
		nl, nr := len(left), len(right)

		if nl > c.forkelem && nr > c.forkelem {
			if qs2 := c.allocate(); qs2 != nil {
				qs2.a = left
				qs2.cond.Signal()
				qs2.mu.Unlock()
				left = nil
			}
		}
		if len(left) > 0 {
			qs.a = left
			qs.sort()
		}
		if nr == 0 {
			return
		}
		a = right
	}
}

func median3(a []uint32, i, j, k int) int {
	if a[i] < a[j] {
		if a[j] < a[k] {
			return j
		}
		if a[i] < a[k] {
			return k
		}
		return i
	}
	if a[j] > a[k] {
		return j
	}
	if a[i] < a[k] {
		return i
	}
	return k
}

func insertionSort(a []uint32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j-1] > a[j]; j-- {
			a[j-1], a[j] = a[j], a[j-1]
		}
	}
}

// Input returns the harness's input: n pseudo-random integers in [0,n).
func Input(n int) []uint32 {
	a := make([]uint32, n)
	x := uint32(12345)
	for i := range a {
		x = x*1103515245 + 12345
		a[i] = (x >> 16) % uint32(n)
	}
	return a
}
