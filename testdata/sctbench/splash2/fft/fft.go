// Package fft is SCTBench benchmark 47, splash2.fft (Thomson, Donaldson &
// Betts; SPLASH-2's FFT kernel, fft.C, built with the study's pthread
// macros).
//
// FFT transforms n = 2^m complex points, viewed as a rootN x rootN matrix
// whose rows are divided among P processes. The main thread initialises the
// data, creates P-1 processes (CREATE), and runs the slave routine itself as
// well. Each process takes an id under a lock, passes a barrier, does the
// forward transform and then the inverse one (test mode) in phases separated
// by barriers, and finally increments the unsynchronized counter numFinished.
// The main thread should then wait for the others (WAIT_FOR_END) before
// using the result.
//
// The bug is in the macros: WAIT_FOR_END expands to nothing, so main goes on
// while the other process may still be running. The study added the check
// numFinished == P right after WAIT_FOR_END; it fails when main gets there
// before the other process's increment (or when the two unsynchronized
// increments collide). All systematic techniques found it in 2 schedules.
//
// Threads: 2 (P = 2, as the harness's -p2). Input reduced as the study did:
// m = 4 (16 points) here (the harness used m = 2). Simplified: each phase is
// a direct discrete Fourier transform of the process's rows instead of the
// six-step radix-2 FFT with transposes; the phases, barriers and row
// partition are kept. After the check, the test joins the other process (the
// missing WAIT_FOR_END) so that no goroutine outlives it, and verifies that
// the inverse transform restored the data.
package fft

import (
	"math"
	"math/cmplx"
	"runtime"
	"sync"
	"sync/atomic"
)

// barrier is SPLASH-2's sense-reversing barrier from the study's macros: a
// compare-and-swap on the arrival count, then a spin (with a yield) until
// the last arrival flips the sense.
type barrier struct {
	gsense atomic.Int32
	count  atomic.Int64
}

func newBarrier() *barrier {
	b := new(barrier)
	b.gsense.Store(1)
	return b
}

func (b *barrier) wait(p int) {
	lsense := b.gsense.Load()
	for {
		old := b.count.Load()
		n := old + int64(lsense)
		if b.count.CompareAndSwap(old, n) {
			if (n == int64(p) && lsense == 1) || (n == 0 && lsense == -1) {
				b.gsense.Store(-lsense)
			}
			break
		}
		runtime.Gosched()
	}
	for b.gsense.Load() == lsense {
		runtime.Gosched()
	}
}

// Global is the shared state of one run.
type Global struct {
	P           int
	N, rootN    int
	x, trans    []complex128 // data and scratch
	orig        []complex128
	id          int
	idlock      sync.Mutex
	start       *barrier
	numFinished int
	transtimes  []int
}

// dftRows transforms rows [first,last) of src (as a rootN x rootN matrix,
// row-major over the whole vector) into dst, with sign -1 (forward) or +1
// (inverse, scaled).
func (g *Global) dftRows(dst, src []complex128, sign float64, first, last int) {
	n := g.N
	for r := first; r < last; r++ {
		for c := 0; c < g.rootN; c++ {
			k := r*g.rootN + c
			var sum complex128
			for j := 0; j < n; j++ {
				sum += src[j] * cmplx.Rect(1, sign*2*math.Pi*float64(k*j)/float64(n))
			}
			if sign > 0 {
				sum /= complex(float64(n), 0)
			}
			dst[k] = sum
		}
	}
}

// slaveStart is the routine every process runs.
func (g *Global) slaveStart() {
	g.idlock.Lock()
	myNum := g.id
	g.id++
	g.idlock.Unlock()

	g.start.wait(g.P)
	myFirst := g.rootN * myNum / g.P
	myLast := g.rootN * (myNum + 1) / g.P
	g.start.wait(g.P)

	// Forward transform into the scratch array, then the inverse back.
	g.dftRows(g.trans, g.x, -1, myFirst, myLast)
	g.start.wait(g.P)
	g.dftRows(g.x, g.trans, +1, myFirst, myLast)
	g.start.wait(g.P)
	g.start.wait(g.P) // end of the transform phases

	if myNum == 0 {
		g.transtimes[myNum] = myLast - myFirst
	}
	g.numFinished++
}

// Run is FFT's main with P processes and 2^m points. It returns the value
// of numFinished seen right after the (empty) WAIT_FOR_END, and a function
// that joins the other processes and returns the largest error of the
// inverse transform.
func Run(P, m int) (finished int, join func() float64) {
	n := 1 << m
	g := &Global{P: P, N: n, rootN: 1 << (m / 2), start: newBarrier(), transtimes: make([]int, P)}
	g.x = make([]complex128, n)
	g.trans = make([]complex128, n)
	for i := range g.x {
		g.x[i] = complex(float64(i%5), float64((i*3)%7))
	}
	g.orig = append([]complex128(nil), g.x...)

	var wg sync.WaitGroup
	for i := 1; i < P; i++ { // CREATE
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.slaveStart()
		}()
	}
	g.slaveStart()
	// WAIT_FOR_END(P-1) is empty: nothing waits here.
	finished = g.numFinished

	join = func() float64 {
		wg.Wait()
		maxErr := 0.0
		for i := range g.x {
			maxErr = math.Max(maxErr, cmplx.Abs(g.x[i]-g.orig[i]))
		}
		return maxErr
	}
	return finished, join
}
