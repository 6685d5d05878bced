// Package streamcluster is SCTBench benchmark 40, parsec.streamcluster
// (Thomson, Donaldson & Betts; the version with FIX_BUG_2 and FIX_BUG_3 but
// not FIX_BUG_1).
//
// streamcluster (PARSEC 2.0's online clustering kernel, streamcluster.cpp)
// clusters a stream of points: for each chunk a local search (pkmedian) runs
// on nproc new threads, which split the points into blocks. pkmedian sums
// the threads' distances to the first point into hizs to bound the facility
// cost z, returns every point as a center when there are at most kmax, and
// otherwise shuffles the points and calls pspeedy: the master thread walks
// the points, opens a center at each with probability cost/z and signals the
// others through a flag, a mutex and a condition variable, and every thread
// updates the points of its block against the new center, with barriers
// between the steps. The centers found for the chunk are then clustered by a
// final local search. The study configured non-spinning synchronization and
// added a check of the output.
//
// The bug (PARSEC 2.0's): a waiting thread passes one barrier per opened
// center where the master passes two, with open = false between them. If
// the waiting thread reaches the first barrier before the master, the master
// leaves it first, clears open and waits at its second barrier, while the
// other thread finds open false and waits for the condition: a deadlock.
// IPB and IDB found it with one preemption/delay.
//
// Threads: 5 (main plus two threads for each of the two local searches).
// Inputs as the harness's "test" run (kmin 2, kmax 5, dimension 1, 10
// generated points in one chunk). Simplified: after pspeedy the binary
// search over z with pFL/pgain (which refines the centers but does not
// involve the bugs) is omitted, points are generated with lrand48 in memory
// instead of a stream object, and the output is the sorted center
// coordinates rather than a file.
package streamcluster

import (
	"math"
	"sync"
)

// Which of the three fixes are applied (FIX_BUG_1..3 in the original).
const (
	fixBug1 = false
	fixBug2 = true
	fixBug3 = true
)

// sp is the number of extra chances pspeedy gets to open kmin centers.
const sp = 1

// lrand48 is the C library's 48-bit linear congruential generator.
type lrand48 struct{ x uint64 }

func srand48(seed uint64) *lrand48 { return &lrand48{x: seed<<16 | 0x330E} }

func (r *lrand48) next() int64 {
	r.x = (0x5DEECE66D*r.x + 0xB) & (1<<48 - 1)
	return int64(r.x >> 17)
}

const intMax = math.MaxInt32

type point struct {
	weight float64
	coord  []float64
	assign int
	cost   float64
}

// Points is a block of points.
type Points struct {
	dim int
	p   []point
}

func dist(a, b point, dim int) float64 {
	var r float64
	for i := 0; i < dim; i++ {
		d := a.coord[i] - b.coord[i]
		r += d * d
	}
	return r
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

// Cluster holds one run's state: the original's globals and the static
// locals of pspeedy and pkmedian, shared by the threads of a local search.
type Cluster struct {
	nproc int
	rng   *lrand48
	bar   *barrier

	// pspeedy's statics.
	totalcost float64
	open      bool
	costs     []float64
	i         int
	mu        sync.Mutex
	cond      *sync.Cond

	// pkmedian's statics.
	k    int
	hizs []float64
}

func (c *Cluster) shuffle(points *Points) {
	n := len(points.p)
	for i := 0; i < n-1; i++ {
		j := int(c.rng.next()%int64(n-i)) + i
		points.p[i], points.p[j] = points.p[j], points.p[i]
	}
}

// pspeedy opens centers greedily: the master (pid 0) walks the points and
// opens a center at each with probability cost/z, and every thread updates
// the points of its block against each new center.
func (c *Cluster) pspeedy(points *Points, z float64, kcenter *int, pid int) float64 {
	c.bar.wait()
	num := len(points.p)
	bsize := num / c.nproc
	k1 := bsize * pid
	k2 := k1 + bsize
	if pid == c.nproc-1 {
		k2 = num
	}

	// Create a center at the first point and assign everything to it.
	for k := k1; k < k2; k++ {
		points.p[k].cost = dist(points.p[k], points.p[0], points.dim) * points.p[k].weight
		points.p[k].assign = 0
	}
	if pid == 0 {
		*kcenter = 1
		c.costs = make([]float64, c.nproc)
	}
	if fixBug2 {
		c.bar.wait()
	}
	if pid != 0 { // wait until the master opens a center
		for {
			c.mu.Lock()
			for !c.open {
				c.cond.Wait()
			}
			c.mu.Unlock()
			if c.i >= num {
				break
			}
			for k := k1; k < k2; k++ {
				d := dist(points.p[c.i], points.p[k], points.dim)
				if d*points.p[k].weight < points.p[k].cost {
					points.p[k].cost = d * points.p[k].weight
					points.p[k].assign = c.i
				}
			}
			if fixBug1 {
				c.bar.wait()
			}
			c.bar.wait()
		}
	} else { // the master decides whether to open a center
		for c.i = 1; c.i < num; c.i++ {
			toOpen := float64(float32(c.rng.next())/float32(intMax)) < points.p[c.i].cost/z
			if toOpen {
				*kcenter++
				c.mu.Lock()
				c.open = true
				c.mu.Unlock()
				c.cond.Broadcast()
				for k := k1; k < k2; k++ {
					d := dist(points.p[c.i], points.p[k], points.dim)
					if d*points.p[k].weight < points.p[k].cost {
						points.p[k].cost = d * points.p[k].weight
						points.p[k].assign = c.i
					}
				}
				c.bar.wait()
				c.open = false
				c.bar.wait()
			}
		}
		c.mu.Lock()
		c.open = true
		c.mu.Unlock()
		c.cond.Broadcast()
	}
	c.bar.wait()
	c.open = false
	mytotal := 0.0
	for k := k1; k < k2; k++ {
		mytotal += points.p[k].cost
	}
	c.costs[pid] = mytotal
	c.bar.wait()
	if pid == 0 { // aggregate the threads' costs
		c.totalcost = z * float64(*kcenter)
		for i := 0; i < c.nproc; i++ {
			c.totalcost += c.costs[i]
		}
		c.costs = nil
	}
	c.bar.wait()
	return c.totalcost
}

// pkmedian finds between kmin and kmax centers for points.
func (c *Cluster) pkmedian(points *Points, kmin, kmax int, kfinal *int, pid int) float64 {
	if pid == 0 {
		c.hizs = make([]float64, c.nproc)
	}
	hiz, loz := 0.0, 0.0
	num := len(points.p)
	bsize := num / c.nproc
	k1 := bsize * pid
	k2 := k1 + bsize
	if pid == c.nproc-1 {
		k2 = num
	}
	c.bar.wait()
	myhiz := 0.0
	for kk := k1; kk < k2; kk++ {
		myhiz += dist(points.p[kk], points.p[0], points.dim) * points.p[kk].weight
	}
	c.hizs[pid] = myhiz
	c.bar.wait()
	for i := 0; i < c.nproc; i++ {
		hiz += c.hizs[i]
	}
	if fixBug3 {
		c.bar.wait()
	}
	z := (hiz + loz) / 2
	if num <= kmax { // more centers allowed than points: all are centers
		for kk := k1; kk < k2; kk++ {
			points.p[kk].assign = kk
			points.p[kk].cost = 0
		}
		if pid == 0 {
			c.hizs = nil // freed
			*kfinal = c.k
		}
		return 0
	}
	if pid == 0 {
		c.shuffle(points)
	}
	cost := c.pspeedy(points, z, &c.k, pid)
	i := 0
	for c.k < kmin && i < sp { // give speedy sp chances to reach kmin
		cost = c.pspeedy(points, z, &c.k, pid)
		i++
	}
	for c.k < kmin { // z is too high
		if i >= sp {
			hiz = z
			z = (hiz + loz) / 2
			i = 0
		}
		if pid == 0 {
			c.shuffle(points)
		}
		cost = c.pspeedy(points, z, &c.k, pid)
		i++
	}
	if pid == 0 {
		*kfinal = c.k
	}
	return cost
}

// localSearch runs pkmedian on nproc new threads and joins them.
func (c *Cluster) localSearch(points *Points, kmin, kmax int, kfinal *int) {
	c.bar = newBarrier(c.nproc)
	var wg sync.WaitGroup
	for pid := 0; pid < c.nproc; pid++ {
		wg.Add(1)
		go func(pid int) {
			defer wg.Done()
			c.pkmedian(points, kmin, kmax, kfinal, pid)
		}(pid)
	}
	wg.Wait()
}

// centersOf returns the points that are centers, each weighted by the
// points assigned to it.
func centersOf(points *Points) *Points {
	weight := map[int]float64{}
	for _, p := range points.p {
		weight[p.assign] += p.weight
	}
	out := &Points{dim: points.dim}
	for i, p := range points.p {
		if w, ok := weight[i]; ok {
			out.p = append(out.p, point{weight: w, coord: p.coord})
		}
	}
	return out
}

// Run clusters n generated points of dimension dim with nproc threads per
// local search and returns the final centers' coordinates, sorted.
func Run(nproc, kmin, kmax, dim, n int) []float64 {
	c := &Cluster{nproc: nproc, rng: srand48(1)}
	c.cond = sync.NewCond(&c.mu)
	points := &Points{dim: dim, p: make([]point, n)}
	for i := range points.p {
		coord := make([]float64, dim)
		for k := range coord {
			coord[k] = float64(float32(c.rng.next()) / float32(intMax))
		}
		points.p[i] = point{weight: 1, coord: coord}
	}
	var kfinal int
	c.localSearch(points, kmin, kmax, &kfinal) // the one chunk
	centers := centersOf(points)
	c.localSearch(centers, kmin, kmax, &kfinal) // the final clustering
	final := centersOf(centers)
	var out []float64
	for _, p := range final.p {
		out = append(out, p.coord...)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j-1] > out[j]; j-- {
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	return out
}
