package engine

import (
	"runtime"
	"strings"
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
			continue
		}
		if now.Sub(since) >= w.limit {
			select {
			case w.fired <- struct{}{}:
			default:
			}
		}
	}
}

// busyGoroutine looks in a traceback of every goroutine for one that is running (or ready to
// run) in the program's code rather than waiting: the sign that a stalled execution is a
// loop without a scheduling point, not an operation blocked outside the engine. It returns
// the function it runs. The goroutine that calls it is left out.
func busyGoroutine() (fn string, ok bool) {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	blocks := strings.Split(string(buf), "\n\n")
	for _, b := range blocks[1:] {
		lines := strings.Split(strings.TrimSpace(b), "\n")
		if len(lines) < 2 {
			continue
		}
		_, status, _ := strings.Cut(lines[0], "[")
		if !strings.HasPrefix(status, "running") && !strings.HasPrefix(status, "runnable") {
			continue
		}
		top := lines[1]
		if i := strings.LastIndexByte(top, '('); i > 0 {
			top = top[:i]
		}
		if hiddenFrame(top) || strings.HasPrefix(top, "runtime") {
			continue
		}
		return top, true
	}
	return "", false
}
