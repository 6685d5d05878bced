// Package lu is SCTBench benchmark 48, splash2.lu (Thomson, Donaldson &
// Betts; SPLASH-2's LU kernel, non-contiguous blocks version, lu.C, built
// with the study's pthread macros).
//
// LU factors a dense n x n matrix into lower and upper triangular factors.
// The matrix is divided into b x b blocks owned by the P processes in a
// two-dimensional cyclic layout. The main thread initialises the matrix,
// creates P-1 processes (CREATE) and runs the slave routine itself as well.
// Each process takes an id under a lock, passes a barrier, and then for each
// diagonal step k: the owner factors the diagonal block, (barrier) the
// owners of the blocks in row and column k update them against it, (barrier)
// and every process updates the interior blocks it owns; finally each
// increments the unsynchronized counter numFinished. The main thread should
// then wait for the others (WAIT_FOR_END).
//
// The bug is in the macros: WAIT_FOR_END expands to nothing, so main goes on
// while the other process may still be running. The study added the check
// numFinished == P right after WAIT_FOR_END; it fails when main gets there
// before the other process's increment (or when the two unsynchronized
// increments collide). All systematic techniques found it in 2 schedules.
//
// Threads: 2 (P = 2, as the harness's -p2). Input reduced as the study did:
// n = 4 with 1 x 1 blocks here (the harness used -n2 -b1). Nothing else is
// simplified. After the check, the test joins the other process (the
// missing WAIT_FOR_END) so that no goroutine outlives it, and verifies L*U
// against the original matrix.
package lu

import (
	"math"
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
	P, n        int
	a, orig     [][]float64
	id          int
	idlock      sync.Mutex
	start       *barrier
	numFinished int
}

// owner is the process owning block (i, j) in the cyclic layout of P = 2
// processes (one row of processes by P columns).
func (g *Global) owner(i, j int) int { return (i + j) % g.P }

// slaveStart is the routine every process runs.
func (g *Global) slaveStart() {
	g.idlock.Lock()
	myNum := g.id
	g.id++
	g.idlock.Unlock()

	g.start.wait(g.P)
	a, n := g.a, g.n
	for k := 0; k < n; k++ {
		// The diagonal block is 1 x 1: nothing to factor in place.
		g.start.wait(g.P)
		// Column k below the diagonal: divide by the pivot.
		for i := k + 1; i < n; i++ {
			if g.owner(i, k) == myNum {
				a[i][k] /= a[k][k]
			}
		}
		g.start.wait(g.P)
		// Interior: a[i][j] -= a[i][k] * a[k][j].
		for i := k + 1; i < n; i++ {
			for j := k + 1; j < n; j++ {
				if g.owner(i, j) == myNum {
					a[i][j] -= a[i][k] * a[k][j]
				}
			}
		}
	}
	g.numFinished++
}

// Run is LU's main with P processes on an n x n matrix. It returns the value
// of numFinished seen right after the (empty) WAIT_FOR_END, and a function
// that joins the other processes and returns the largest error of L*U.
func Run(P, n int) (finished int, join func() float64) {
	g := &Global{P: P, n: n, start: newBarrier()}
	g.a = make([][]float64, n)
	g.orig = make([][]float64, n)
	for i := range g.a {
		g.a[i] = make([]float64, n)
		for j := range g.a[i] {
			g.a[i][j] = float64((i*7+j*3)%5 + 1)
		}
		g.a[i][i] += float64(5 * n) // diagonally dominant: no pivoting needed
		g.orig[i] = append([]float64(nil), g.a[i]...)
	}

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
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for k := 0; k <= i && k <= j; k++ {
					l := g.a[i][k]
					if k == i {
						l = 1
					}
					s += l * g.a[k][j]
				}
				maxErr = math.Max(maxErr, math.Abs(s-g.orig[i][j]))
			}
		}
		return maxErr
	}
	return finished, join
}
