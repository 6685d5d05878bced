// Package barnes is SCTBench benchmark 46, splash2.barnes (Thomson,
// Donaldson & Betts; SPLASH-2's Barnes-Hut N-body application, code.C and
// friends, built with the study's pthread macros).
//
// Barnes simulates gravitating bodies over a number of time steps. The main
// thread reads the parameters and creates the bodies, creates NPROC-1
// processes (CREATE) and runs the slave routine itself as well. Each process
// takes an id under CountLock, and in every step, separated by barriers,
// computes the forces on the bodies it owns, advances them, and merges the
// bounds of its bodies into the global bounding box under CountLock; finally
// each increments the unsynchronized counter numFinished. The main thread
// should then wait for the others (WAIT_FOR_END).
//
// The bug is in the macros: WAIT_FOR_END expands to nothing, so main goes on
// while the other process may still be running. The study added the check
// numFinished == NPROC right after WAIT_FOR_END; it fails when main gets
// there before the other process's increment (or when the two
// unsynchronized increments collide). All systematic techniques found it in
// 2 schedules.
//
// Threads: 2 (NPROC = 2). Inputs reduced as the study did: 16 bodies and 2
// time steps (the input file has 16384 bodies). Simplified: forces are
// summed directly over all bodies instead of through the Barnes-Hut octree
// (whose parallel construction under per-cell locks is omitted); the
// per-step phases, barriers, body partition and CountLock reductions are
// kept. After the check, the test joins the other process (the missing
// WAIT_FOR_END) so that no goroutine outlives it, and checks that momentum
// is conserved.
package barnes

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

// body is one particle.
type body struct {
	mass      float64
	pos, vel  [3]float64
	acc       [3]float64
	processor int
}

// Global is the shared state of one run.
type Global struct {
	nproc, nsteps int
	dtime, eps    float64
	bodies        []body
	countLock     sync.Mutex
	id            int
	barStart      *barrier
	min, max      [3]float64
	numFinished   int
}

// slaveStart is the routine every process runs.
func (g *Global) slaveStart() {
	g.countLock.Lock()
	procNum := g.id
	g.id++
	g.countLock.Unlock()

	n := len(g.bodies)
	first, last := n*procNum/g.nproc, n*(procNum+1)/g.nproc
	g.barStart.wait(g.nproc)
	for step := 0; step < g.nsteps; step++ {
		// Forces on my bodies.
		for i := first; i < last; i++ {
			p := &g.bodies[i]
			p.processor = procNum
			p.acc = [3]float64{}
			for j := range g.bodies {
				if j == i {
					continue
				}
				q := &g.bodies[j]
				var d [3]float64
				r2 := g.eps * g.eps
				for k := 0; k < 3; k++ {
					d[k] = q.pos[k] - p.pos[k]
					r2 += d[k] * d[k]
				}
				f := q.mass / (r2 * math.Sqrt(r2))
				for k := 0; k < 3; k++ {
					p.acc[k] += f * d[k]
				}
			}
		}
		g.barStart.wait(g.nproc)
		// Advance my bodies and merge their bounds.
		var lo, hi [3]float64
		for k := 0; k < 3; k++ {
			lo[k], hi[k] = math.Inf(1), math.Inf(-1)
		}
		for i := first; i < last; i++ {
			p := &g.bodies[i]
			for k := 0; k < 3; k++ {
				p.vel[k] += p.acc[k] * g.dtime
				p.pos[k] += p.vel[k] * g.dtime
				lo[k] = math.Min(lo[k], p.pos[k])
				hi[k] = math.Max(hi[k], p.pos[k])
			}
		}
		g.countLock.Lock()
		for k := 0; k < 3; k++ {
			g.min[k] = math.Min(g.min[k], lo[k])
			g.max[k] = math.Max(g.max[k], hi[k])
		}
		g.countLock.Unlock()
		g.barStart.wait(g.nproc)
	}
	g.numFinished++
}

// Run is Barnes's main with nproc processes, nbody bodies and nsteps steps.
// It returns the value of numFinished seen right after the (empty)
// WAIT_FOR_END, and a function that joins the other processes and returns
// the magnitude of the total momentum (initially zero).
func Run(nproc, nbody, nsteps int) (finished int, join func() float64) {
	g := &Global{nproc: nproc, nsteps: nsteps, dtime: 0.025, eps: 0.05, barStart: newBarrier()}
	g.bodies = make([]body, nbody)
	for i := range g.bodies {
		b := &g.bodies[i]
		b.mass = 1 / float64(nbody)
		for k := 0; k < 3; k++ {
			b.pos[k] = float64((i*(k+3)*7)%11) - 5
		}
	}
	for k := 0; k < 3; k++ {
		g.min[k], g.max[k] = math.Inf(1), math.Inf(-1)
	}

	var wg sync.WaitGroup
	for i := 1; i < nproc; i++ { // CREATE
		wg.Add(1)
		go func() {
			defer wg.Done()
			g.slaveStart()
		}()
	}
	g.slaveStart()
	// WAIT_FOR_END(NPROC-1) is empty: nothing waits here.
	finished = g.numFinished

	join = func() float64 {
		wg.Wait()
		var m [3]float64
		for _, b := range g.bodies {
			for k := 0; k < 3; k++ {
				m[k] += b.mass * b.vel[k]
			}
		}
		return math.Sqrt(m[0]*m[0] + m[1]*m[1] + m[2]*m[2])
	}
	return finished, join
}
