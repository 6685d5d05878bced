// Package perf holds the tests the performance benchmark (cmd/interleave/internal/perfbench)
// runs natively with go test and under interleave test, to set one against the other: many
// goroutines that contend for one mutex, a worker pool that runs 1,025 goroutines at most 10 at
// a time, and goroutines that allocate and drop memory. None has a bug; every test checks its
// own result.
package perf

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// contend starts n goroutines that each lock one mutex, add to a counter and unlock, and
// waits for them: the shape of a worker pool's test, where every goroutine waits for the same
// mutex.
func contend(t *testing.T, n int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := 0
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			defer wg.Done()
			mu.Lock()
			total += i
			mu.Unlock()
		}()
	}
	wg.Wait()
	if want := n * (n - 1) / 2; total != want {
		t.Fatalf("total = %d, want %d", total, want)
	}
}

func TestGoroutines10(t *testing.T)    { contend(t, 10) }
func TestGoroutines1000(t *testing.T)  { contend(t, 1000) }
func TestGoroutines10000(t *testing.T) { contend(t, 10000) }

// allocate has 4 goroutines allocate total bytes between them in 4 KiB blocks, each written
// at both ends, the last 16 of each goroutine's blocks kept (so that they live on the heap
// and a little of the allocation stays live, as in a program that processes buffers), then
// sums what they wrote.
func allocate(t *testing.T, total int) {
	const (
		workers = 4
		block   = 4 << 10
		kept    = 16
	)
	perWorker := total / workers / block
	sums := make(chan int, workers)
	for w := 0; w < workers; w++ {
		go func() {
			var recent [kept][]byte
			sum := 0
			for i := 0; i < perWorker; i++ {
				buf := make([]byte, block)
				buf[0] = byte(i)
				buf[block-1] = byte(w)
				recent[i%kept] = buf
				sum += int(buf[0]) + int(buf[block-1])
			}
			for _, b := range recent {
				if b != nil && b[block-1] != byte(w) {
					sum = -1
				}
			}
			sums <- sum
		}()
	}
	got := 0
	for w := 0; w < workers; w++ {
		got += <-sums
	}
	want := 0
	for w := 0; w < workers; w++ {
		for i := 0; i < perWorker; i++ {
			want += int(byte(i)) + w
		}
	}
	if got != want {
		t.Fatalf("sum = %d, want %d", got, want)
	}
}

func TestAllocate10MB(t *testing.T) { allocate(t, 10<<20) }
func TestAllocate1GB(t *testing.T)  { allocate(t, 1<<30) }

// TestLimitedGroup1025 starts 1,025 goroutines, at most 10 at a time, as a worker pool with a
// limit does (errgroup's SetLimit, whose TestGoLimit has this shape): a slot is taken from a
// buffered channel before each go statement and given back when the goroutine ends; each
// goroutine counts itself active, sleeps a microsecond so that others can start, and checks
// that no more than the limit were active at once.
func TestLimitedGroup1025(t *testing.T) {
	const limit, n = 10, 1025
	slots := make(chan struct{}, limit)
	var wg sync.WaitGroup
	var active, over atomic.Int32
	for range n {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if active.Add(1) > limit {
				over.Add(1)
			}
			time.Sleep(time.Microsecond)
			active.Add(-1)
		}()
	}
	wg.Wait()
	if got := over.Load(); got != 0 {
		t.Fatalf("%d goroutines saw more than %d active", got, limit)
	}
}
