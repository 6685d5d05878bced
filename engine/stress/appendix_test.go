package stress

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// depthOneBody is the program of Appendix I (Figure 8): thread 1 executes Ins1 (a store)
// early, thread 2 executes Ins2 (a load of it) late, so that in the natural order Ins1
// comes first; the bug is the other order, which needs thread 1 suspended before Ins1 long
// enough for thread 2 to reach Ins2 — a bug of depth 1. The other n−2 threads (n counts the
// body's goroutine) work alongside, as the N threads of the process the randomizer picks from.
// Each thread's operations are the engine's entry points, where the randomizer's holds act.
// Thread 2 starts its work once thread 1 runs (Go's scheduler runs the goroutine started last
// first, which would make the bug's order the natural one on one processor).
func depthOneBody(n int, hits *atomic.Int64) func(*engine.T) {
	return func(t *engine.T) {
		var x, flag int64
		work := func(ops int) {
			for range ops {
				engine.Read(unsafe.Pointer(&x), "appendix.go:work")
			}
		}
		var wg sync.WaitGroup
		wg.Add(n - 1)
		started := make(chan struct{})
		engine.Go(func() { // thread 1
			defer wg.Done()
			close(started)
			work(1000)
			engine.Write(unsafe.Pointer(&flag), "appendix.go:Ins1")
			atomic.StoreInt64(&flag, 1)
			work(1000)
		}, "appendix.go:thread1")
		engine.Go(func() { // thread 2, from when thread 1 runs
			defer wg.Done()
			<-started
			work(1600)
			engine.Read(unsafe.Pointer(&flag), "appendix.go:Ins2")
			if atomic.LoadInt64(&flag) == 0 {
				hits.Add(1)
			}
			work(400)
		}, "appendix.go:thread2")
		for range n - 3 {
			engine.Go(func() { defer wg.Done(); work(2000) }, "appendix.go:other")
		}
		wg.Wait()
	}
}

// BenchmarkAppendixI measures the thread randomizer's probability of hitting a depth-1 bug in
// an iteration against Appendix I's lower bound, P(bug) > 1/(2N) · MINTP/(MAXRP+MAXSD) (Eq. 2
// and 4), for N = 3, 5 and 9 threads (the body's goroutine and the N−1 threads it starts), and
// the same program without the randomizer. It is a measurement of real timing, not a test:
//
//	go test -run '^$' -bench AppendixI -benchtime 1x ./engine/stress
//
// reports p_bug (with the randomizer), p_bug_off (without) and bound per N.
func BenchmarkAppendixI(b *testing.B) {
	for _, n := range []int{3, 5, 9} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			measure := func(randomizer bool) (p, bound float64) {
				var hits atomic.Int64
				plan := &Plan{Tests: []string{"TestDepthOne"}, Combine: 1, Budget: 3 * time.Second, Seed: uint64(n), Randomizer: randomizer,
					Events: filepath.Join(b.TempDir(), "events")}
				if err := Run(plan, map[string]func(*engine.T){"TestDepthOne": depthOneBody(n, &hits)}); err != nil {
					b.Fatal(err)
				}
				last := lastEvent(b, plan.Events)
				st := last.Tests[0]
				bound = 1 / (2 * float64(n)) * float64(st.Min) / float64(MaxRP+MaxSD)
				b.Logf("N=%d randomizer=%v: %d hits in %d iterations, MINTP %v, mean TP %v, %d holds", n, randomizer, hits.Load(), st.Iterations, st.Min, st.Total/time.Duration(st.Iterations), last.Holds)
				return float64(hits.Load()) / float64(st.Iterations), bound
			}
			for b.Loop() {
				p, bound := measure(true)
				p0, _ := measure(false)
				b.ReportMetric(p, "p_bug")
				b.ReportMetric(p0, "p_bug_off")
				b.ReportMetric(bound, "bound")
			}
		})
	}
}

func lastEvent(b *testing.B, path string) Event {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var e Event
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &e); err != nil {
		b.Fatal(err)
	}
	return e
}
