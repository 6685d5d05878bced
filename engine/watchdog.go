package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// The watchdog notices a running goroutine that goes too long without reaching a scheduling
// point: it is blocked outside the engine's control. It runs on a goroutine of its own that
// sleeps in a system call rather than on a runtime timer: while a runtime timer is pending,
// every goroutine switch on its processor reads the clock, which would tax each of the
// engine's handoffs (about 30 ns, measured by BenchmarkPointSwitch).

// watched is the execution the watchdog watches, if any.
type watched struct {
	e     *Exec
	limit time.Duration
	fired chan struct{} // receives one token when the execution stalls
	// cpuShare is the CPU the process used while the execution stalled, in thousandths of
	// one CPU's time (-1: unknown): near 1000 or more, the stuck goroutine was running (a
	// loop without a scheduling point), not blocked. Written before fired receives.
	cpuShare atomic.Int64
}

var (
	watch         atomic.Pointer[watched]
	watchdogStart sync.Once
)

// watchdogTick is how often the watchdog looks.
const watchdogTick = 50 * time.Millisecond

// startWatching watches e until stopWatching; the fired channel of the returned watch receives
// a token if e makes no progress for limit.
func startWatching(e *Exec, limit time.Duration) *watched {
	watchdogStart.Do(func() { go watchdog() })
	w := &watched{e: e, limit: limit, fired: make(chan struct{}, 1)}
	watch.Store(w)
	return w
}

func stopWatching() { watch.Store(nil) }

func watchdog() {
	var (
		current  *watched
		progress int64
		since    time.Time
		cpuSince time.Duration
		cpuKnown bool
	)
	for {
		sleepOutsideRuntimeTimers(watchdogTick)
		w := watch.Load()
		if w == nil {
			current = nil
			continue
		}
		now := time.Now()
		p := w.e.progress.Load()
		if w != current || p != progress {
			current, progress, since = w, p, now
			cpuSince, cpuKnown = processCPUTime()
			continue
		}
		if now.Sub(since) >= w.limit {
			w.cpuShare.Store(-1)
			if cpu, ok := processCPUTime(); ok && cpuKnown {
				w.cpuShare.Store(int64(1000 * float64(cpu-cpuSince) / float64(now.Sub(since))))
			}
			select {
			case w.fired <- struct{}{}:
			default:
			}
		}
	}
}
