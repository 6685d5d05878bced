package engine_test

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
	"weak"

	"github.com/interleave-dev/interleave/engine"
)

// weakShadow runs f with the race detectors made in it starting in weak mode.
func weakShadow(t *testing.T, f func()) {
	old := engine.SetShadowWeak(true)
	defer engine.SetShadowWeak(old)
	f()
}

// TestRaceDetectorWeakShadow: the race programs give the same races when the shadow holds weak
// pointers instead of pins.
func TestRaceDetectorWeakShadow(t *testing.T) {
	weakShadow(t, func() {
		for _, p := range racePrograms {
			t.Run(p.name, func(t *testing.T) {
				rep := engine.Explore(p.body, engine.Config{Strategy: randomStrategy(7), Schedules: 500, Races: true, Points: engine.PointsAll, KeepGoing: true})
				if rep.First != nil || rep.Err != nil || len(rep.Limitations) > 0 {
					t.Fatalf("exploration: bug %v, error %v, limitations %v", rep.First, rep.Err, rep.Limitations)
				}
				if got := racePairs(rep); !slices.Equal(got, p.races) {
					t.Fatalf("races %q, want %q", got, p.races)
				}
			})
		}
	})
}

// block is an object of a size class of its own among the tests' allocations.
type block [1000]byte

// TestShadowReusedAddressIsNoRace: one goroutine writes an object and drops it; another, not
// ordered with the first, collects the garbage and allocates until it gets the same address,
// and writes there. The two writes are to different objects: no race. In weak mode the
// address is reused (the shadow does not keep the object alive) and the shadow sees the new
// object; when pinning, the address is never reused within the execution.
func TestShadowReusedAddressIsNoRace(t *testing.T) {
	for _, weakMode := range []bool{false, true} {
		var reused atomic.Int32
		body := func(t *engine.T) {
			var dropped atomic.Uintptr // not instrumented: no edge between the goroutines
			var wg sync.WaitGroup
			engine.WGAdd(&wg, 2, "r.go:1")
			engine.Go(func() {
				x := new(block)
				engine.Write(unsafe.Pointer(&x[0]), "r.go:2")
				x[0] = 1
				dropped.Store(uintptr(unsafe.Pointer(&x[0])))
				engine.WGDone(&wg, "r.go:3")
			}, "r.go:4")
			engine.Go(func() {
				defer engine.WGDone(&wg, "r.go:5")
				addr := dropped.Load()
				if addr == 0 {
					return // the first goroutine has not run yet in this schedule
				}
				runtime.GC()
				var keep []*block
				for range 20000 {
					y := new(block)
					if uintptr(unsafe.Pointer(&y[0])) == addr {
						engine.Write(unsafe.Pointer(&y[0]), "r.go:6")
						y[0] = 2
						reused.Add(1)
						break
					}
					keep = append(keep, y)
				}
				runtime.KeepAlive(keep)
			}, "r.go:7")
			engine.WGWait(&wg, "r.go:8")
		}
		run := func() {
			rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(5), Schedules: 20, Races: true, Points: engine.PointsAll, KeepGoing: true})
			if rep.First != nil || rep.Err != nil {
				t.Fatalf("weak %v: exploration: bug %v, error %v", weakMode, rep.First, rep.Err)
			}
			if got := racePairs(rep); len(got) != 0 {
				t.Errorf("weak %v: races %q on a reused address, want none", weakMode, got)
			}
		}
		if weakMode {
			weakShadow(t, run)
			if reused.Load() == 0 {
				t.Errorf("weak mode: the dropped object's address was never reused: the shadow kept it alive")
			}
		} else {
			run()
			if n := reused.Load(); n != 0 {
				t.Errorf("pinning: the address of an object the shadow has history for was reused %d times", n)
			}
		}
	}
}

// TestShadowSwitchesToWeak: an execution that writes more memory than the shadow pins stops
// pinning it: the first object it wrote is collected before the execution ends. A small one
// keeps its objects alive to the end. The shadow reads the live heap of collections that end
// during the execution; the body has one end every 256 blocks, so that how many end does not
// depend on how fast the background collector runs (under the load of `go test ./...` too few
// ended, and the shadow kept pinning).
func TestShadowSwitchesToWeak(t *testing.T) {
	for _, tt := range []struct {
		blocks    int
		collected bool
	}{
		{blocks: 16, collected: false},
		{blocks: 2048, collected: true}, // 128 MiB
	} {
		var first weak.Pointer[[64 << 10]byte]
		var collected bool
		body := func(t *engine.T) {
			for i := range tt.blocks {
				b := new([64 << 10]byte)
				engine.Write(unsafe.Pointer(&b[0]), "w.go:1")
				b[0] = 1
				if i == 0 {
					first = weak.Make(b)
				}
				if i%256 == 255 {
					runtime.GC()
				}
			}
			runtime.GC()
			collected = first.Value() == nil
		}
		rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(1), Schedules: 1, Races: true, Points: engine.PointsAll})
		if rep.First != nil || rep.Err != nil {
			t.Fatalf("%d blocks: bug %v, error %v", tt.blocks, rep.First, rep.Err)
		}
		if collected != tt.collected {
			t.Errorf("%d blocks of 64 KiB written: first collected during the execution = %v, want %v", tt.blocks, collected, tt.collected)
		}
	}
}

// TestShadowWeakPointersPerPage: writing every byte of a 64 KiB buffer in weak mode makes at
// most maxWeakPerPage (8) weak pointers per page of it, not one per byte — the runtime inserts
// each into a list walked from the start, so one per byte would take time quadratic in the
// buffer's size — and the bytes past the budget are pinned, so a race on them is still seen.
func TestShadowWeakPointersPerPage(t *testing.T) {
	weakShadow(t, func() {
		before := engine.ShadowWeakMade()
		const size = 64 << 10
		body := func(t *engine.T) {
			buf := make([]byte, size)
			var wg sync.WaitGroup
			engine.WGAdd(&wg, 1, "b.go:1")
			engine.Go(func() {
				engine.Write(unsafe.Pointer(&buf[size-1]), "b.go:2")
				buf[size-1] = 2
				engine.WGDone(&wg, "b.go:3")
			}, "b.go:4")
			for i := range buf {
				engine.Write(unsafe.Pointer(&buf[i]), "b.go:5")
				buf[i] = 1
			}
			engine.WGWait(&wg, "b.go:6")
		}
		rep := engine.Explore(body, engine.Config{Strategy: randomStrategy(3), Schedules: 1, Races: true, Points: engine.PointsSync})
		if rep.First != nil || rep.Err != nil {
			t.Fatalf("bug %v, error %v", rep.First, rep.Err)
		}
		// Two executions: the schedule, and its replay that finds the race's stacks.
		if made, limit := engine.ShadowWeakMade()-before, 2*(8*(size/8192+1)+8); made > limit {
			t.Errorf("%d weak pointers made for a %d-byte buffer written byte by byte, want at most %d", made, size, limit)
		}
		if got := racePairs(rep); !slices.Equal(got, []string{"b.go:2~b.go:5"}) {
			t.Errorf("races %q, want the write of the last byte by both goroutines", got)
		}
	})
}

// TestShadowKeepsPinningWhenTheProgramPinsLittle: two executions whose heap grows by
// megabytes that pinning does not hold stay in pinning mode, whose checks cost nothing:
//
//   - thousands of goroutines which take one mutex and write a word each: the growth is the
//     engine's own records (the clock chunks copied at each Unlock, the goroutines' records and
//     clocks);
//   - memory the process allocated after its last collection and before the execution, which
//     the execution's first look at the heap (a reading of that collection) does not count and
//     the next collection does.
//
// Each program collects as it goes, so that the detector's looks at the heap (every 64 new
// addresses) see the collections' readings change.
func TestShadowKeepsPinningWhenTheProgramPinsLittle(t *testing.T) {
	const goroutines = 6000
	engineRecords := func(t *engine.T) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		total := 0
		engine.WGAdd(&wg, goroutines, "k.go:1")
		for i := range goroutines {
			engine.Go(func() {
				own := new(int)
				engine.Write(unsafe.Pointer(own), "k.go:2")
				*own = i
				engine.Lock(&mu, "k.go:3")
				engine.Write(unsafe.Pointer(&total), "k.go:4")
				total += *own
				engine.Unlock(&mu, "k.go:5")
				engine.WGDone(&wg, "k.go:6")
			}, "k.go:7")
			if i%100 == 0 {
				runtime.GC()
			}
		}
		engine.WGWait(&wg, "k.go:8")
	}
	words := make([]int, 64*8)
	wordsByCollection := func(t *engine.T) {
		for i := range words {
			engine.Write(unsafe.Pointer(&words[i]), "k.go:9")
			words[i]++
			if i%64 == 63 {
				runtime.GC()
			}
		}
	}
	for _, tt := range []struct {
		name  string
		body  func(*engine.T)
		setUp func() []byte
	}{
		{"goroutines", engineRecords, func() []byte { return nil }},
		{"allocated before", wordsByCollection, func() []byte {
			runtime.GC()
			b := make([]byte, 2<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			return b
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := engine.ShadowWeakMade()
			keep := tt.setUp()
			rep := engine.Explore(tt.body, engine.Config{Strategy: randomStrategy(1), Schedules: 2, Races: true, Points: engine.PointsAll})
			runtime.KeepAlive(keep)
			if rep.First != nil || rep.Err != nil {
				t.Fatalf("bug %v, error %v", rep.First, rep.Err)
			}
			if made := engine.ShadowWeakMade() - before; made != 0 {
				t.Errorf("the shadow went to weak mode (%d weak pointers made)", made)
			}
		})
	}
}
