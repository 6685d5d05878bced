// Package ferret is SCTBench benchmark 39, parsec.ferret (Thomson, Donaldson
// & Betts; PARSEC 2.0's content-based image similarity search,
// ferret-parallel.c with queue.h).
//
// ferret is a six-stage pipeline connected by bounded queues (a mutex and
// not-empty/not-full condition variables each): a load thread reads the
// query images, pools of threads segment them, extract features, index the
// feature vectors and rank the candidates, and an output thread writes the
// results. The load thread counts the queries it enqueues (cnt_enqueue) and
// sets input_end when done; the output thread counts the results it writes
// (cnt_dequeue) and, when input_end is set and the counts match, sets
// output_end and signals main, which waits for that under a mutex and then
// cancels all the threads.
//
// The bug: input_end and the counters are unsynchronized, and the load
// thread sets input_end only after its last enqueue. If the load thread is
// preempted between the two until the output thread has written the last
// result, the output thread sees input_end unset and never signals; it then
// blocks on its empty queue and main waits forever: a deadlock. Only IDB (one
// delay) and PCT found it, as it needs one thread held back until all the
// others have finished.
//
// Threads: 11 (main, load, two threads in each of the four middle stages,
// output), as the harness's n = 2. Inputs reduced as the study did (§4.2):
// 2 query images of 16 pixels, queue depth 2. Simplified: the stages' image
// processing, feature extraction, LSH indexing and EMD ranking are replaced
// by small computations on the pixel values, the database is a fixed array,
// and pthread_cancel is modelled by a cancelled flag that wakes the threads
// blocked on the queues so that they return and can be joined.
package ferret

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// queue is a bounded FIFO queue.
type queue[T any] struct {
	mu        sync.Mutex
	notEmpty  *sync.Cond
	notFull   *sync.Cond
	items     []T
	depth     int
	cancelled bool
}

func newQueue[T any](depth int) *queue[T] {
	q := &queue[T]{depth: depth}
	q.notEmpty = sync.NewCond(&q.mu)
	q.notFull = sync.NewCond(&q.mu)
	return q
}

// enqueueWait adds x, waiting while the queue is full; it reports false if
// the thread was cancelled.
func (q *queue[T]) enqueueWait(x T) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) >= q.depth && !q.cancelled {
		q.notFull.Wait()
	}
	if q.cancelled {
		return false
	}
	q.items = append(q.items, x)
	q.notEmpty.Signal()
	return true
}

// dequeueWait removes the oldest item, waiting while the queue is empty; it
// reports false if the thread was cancelled.
func (q *queue[T]) dequeueWait() (T, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) == 0 && !q.cancelled {
		q.notEmpty.Wait()
	}
	var x T
	if q.cancelled {
		return x, false
	}
	x = q.items[0]
	q.items = q.items[1:]
	q.notFull.Signal()
	return x, true
}

func (q *queue[T]) cancel() {
	q.mu.Lock()
	q.cancelled = true
	q.notEmpty.Broadcast()
	q.notFull.Broadcast()
	q.mu.Unlock()
}

type loadData struct {
	name string
	rgb  []int
}

type segData struct {
	name string
	seg  []int // segment label per pixel
}

type extractData struct {
	name     string
	features []int // one feature per segment
}

type vecData struct {
	name       string
	candidates []int // database entries sharing a feature bucket
	features   []int
}

type rankData struct {
	name   string
	result []int // best database entries, nearest first
}

// Ferret is one run's state.
type Ferret struct {
	db          [][]int
	topK        int
	qLoadSeg    *queue[*loadData]
	qSegExtract *queue[*segData]
	qExtractVec *queue[*extractData]
	qVecRank    *queue[*vecData]
	qRankOut    *queue[*rankData]

	cntEnqueue, cntDequeue int
	inputEnd, outputEnd    bool
	doneMu                 sync.Mutex
	done                   *sync.Cond
	out                    strings.Builder
}

func (f *Ferret) load(images map[string][]int) {
	names := make([]string, 0, len(images))
	for n := range images {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f.cntEnqueue++
		if !f.qLoadSeg.enqueueWait(&loadData{name: n, rgb: images[n]}) {
			return
		}
	}
	f.inputEnd = true
}

func (f *Ferret) seg() {
	for {
		l, ok := f.qLoadSeg.dequeueWait()
		if !ok {
			return
		}
		s := &segData{name: l.name, seg: make([]int, len(l.rgb))}
		for i, v := range l.rgb {
			s.seg[i] = v / 64
		}
		if !f.qSegExtract.enqueueWait(s) {
			return
		}
	}
}

func (f *Ferret) extract() {
	for {
		s, ok := f.qSegExtract.dequeueWait()
		if !ok {
			return
		}
		feat := make([]int, 4)
		for _, l := range s.seg {
			feat[l]++
		}
		if !f.qExtractVec.enqueueWait(&extractData{name: s.name, features: feat}) {
			return
		}
	}
}

func (f *Ferret) vec() {
	for {
		e, ok := f.qExtractVec.dequeueWait()
		if !ok {
			return
		}
		v := &vecData{name: e.name, features: e.features}
		for id, d := range f.db {
			if argmax(d) == argmax(e.features) || len(v.candidates) < f.topK {
				v.candidates = append(v.candidates, id)
			}
		}
		if !f.qVecRank.enqueueWait(v) {
			return
		}
	}
}

func (f *Ferret) rank() {
	for {
		v, ok := f.qVecRank.dequeueWait()
		if !ok {
			return
		}
		c := append([]int(nil), v.candidates...)
		sort.SliceStable(c, func(i, j int) bool {
			return l1(f.db[c[i]], v.features) < l1(f.db[c[j]], v.features)
		})
		if len(c) > f.topK {
			c = c[:f.topK]
		}
		if !f.qRankOut.enqueueWait(&rankData{name: v.name, result: c}) {
			return
		}
	}
}

func (f *Ferret) output() {
	for {
		r, ok := f.qRankOut.dequeueWait()
		if !ok {
			return
		}
		fmt.Fprintf(&f.out, "%s", r.name)
		for _, id := range r.result {
			fmt.Fprintf(&f.out, "\tdb%d", id)
		}
		f.out.WriteString("\n")
		f.cntDequeue++
		if f.inputEnd && f.cntEnqueue == f.cntDequeue {
			f.doneMu.Lock()
			f.outputEnd = true
			f.done.Signal()
			f.doneMu.Unlock()
		}
	}
}

func argmax(v []int) int {
	m := 0
	for i := range v {
		if v[i] > v[m] {
			m = i
		}
	}
	return m
}

func l1(a, b []int) int {
	s := 0
	for i := range a {
		d := a[i] - b[i]
		if d < 0 {
			d = -d
		}
		s += d
	}
	return s
}

// Run runs the pipeline with n threads per middle stage on the given query
// images and returns the output.
func Run(n, depth int, images map[string][]int) string {
	f := &Ferret{
		db:          [][]int{{16, 0, 0, 0}, {0, 16, 0, 0}, {8, 8, 0, 0}, {0, 0, 8, 8}, {4, 4, 4, 4}},
		topK:        2,
		qLoadSeg:    newQueue[*loadData](depth),
		qSegExtract: newQueue[*segData](depth),
		qExtractVec: newQueue[*extractData](depth),
		qVecRank:    newQueue[*vecData](depth),
		qRankOut:    newQueue[*rankData](depth),
	}
	f.done = sync.NewCond(&f.doneMu)

	var wg sync.WaitGroup
	start := func(fn func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn()
		}()
	}
	start(func() { f.load(images) })
	for _, stage := range []func(){f.seg, f.extract, f.vec, f.rank} {
		for i := 0; i < n; i++ {
			start(stage)
		}
	}
	start(f.output)

	f.doneMu.Lock()
	if !f.outputEnd {
		f.done.Wait()
	}
	f.qLoadSeg.cancel()
	f.qSegExtract.cancel()
	f.qExtractVec.cancel()
	f.qVecRank.cancel()
	f.qRankOut.cancel()
	f.doneMu.Unlock()
	wg.Wait()
	return f.out.String()
}

// Images is the reduced query set: two 16-pixel images.
func Images() map[string][]int {
	return map[string][]int{
		"q1.jpg": {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 5, 15, 25, 35},
		"q2.jpg": {200, 210, 220, 230, 240, 250, 130, 140, 150, 160, 170, 180, 190, 200, 210, 220},
	}
}
