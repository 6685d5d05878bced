package engine

import (
	"os"
	"runtime"
	"slices"
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
	fired chan *watched // receives the watch when the execution stalls
	turn  uint64        // the exploration's number of the execution (exploration.turn)
	// examined is set once the current stall was examined for a wait nothing can end
	// (quickWatchdog); only the watchdog goroutine uses it.
	examined bool
	// stalled is how long the execution had stalled when the watchdog fired.
	stalled atomic.Int64
}

// quickWatchdog is how long a stall lasts before the watchdog looks at what the stuck
// goroutine waits for: a channel or a lock of code the engine does not control, while no
// goroutine can run to release it, is not waited for the whole limit.
const quickWatchdog = time.Second

var (
	watch         atomic.Pointer[watched]
	watchdogStart sync.Once
)

// watchdogTick is how often the watchdog looks.
const watchdogTick = 50 * time.Millisecond

// startWatching watches e until stopWatching; the fired channel of the returned watch receives
// a token if e makes no progress for limit.
func startWatching(e *Exec, limit time.Duration) *watched {
	return startWatchingInto(e, limit, make(chan *watched, 1), 0)
}

// startWatchingInto is startWatching with the channel that receives the watch when e stalls,
// and the number of the execution in its exploration.
func startWatchingInto(e *Exec, limit time.Duration, fired chan *watched, turn uint64) *watched {
	watchdogStart.Do(func() { go watchdog() })
	w := &watched{e: e, limit: limit, fired: fired, turn: turn}
	watch.Store(w)
	return w
}

func stopWatching() { watch.Store(nil) }

func watchdog() {
	var (
		current  *watched
		progress int64
		since    time.Time
		// childSince is when the stalled goroutine was first seen waiting for a child
		// process in the current stall (zero: it was not).
		childSince time.Time
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
			childSince = time.Time{}
			w.examined = false
			continue
		}
		stalled := now.Sub(since)
		quick := w.limit > quickWatchdog && stalled >= quickWatchdog && !w.examined
		if stalled < w.limit && !quick {
			continue
		}
		// A traceback stops the world: once per stall at the quick look, and once per limit.
		s := examine(AllStacks())
		w.examined = true
		if s.child && childSince.IsZero() {
			childSince = since
		}
		if s.child && now.Sub(childSince) < childWaitLimit {
			// Waiting for a child process is the child's work (a real go build): not a
			// goroutine stuck outside the engine. The wait starts over.
			since = now
			w.examined = false
			if f := watchdogSawChild.Load(); f != nil {
				(*f)()
			}
			continue
		}
		if s.child {
			stalled = now.Sub(childSince)
		}
		if stalled >= w.limit || s.forGood {
			w.stalled.Store(int64(stalled.Round(100 * time.Millisecond)))
			select {
			case w.fired <- w:
			default:
			}
		}
	}
}

// childWaitLimit is how long a test may wait for a child process before the watchdog
// abandons the execution after all: go test's own default -timeout, which would end such a
// test natively.
const childWaitLimit = 10 * time.Minute

// watchdogSawChild, when set (by tests), is called each time the watchdog finds the stalled
// goroutine waiting for a child process.
var watchdogSawChild atomic.Pointer[func()]

// childWaits are the frames of a goroutine that waits for a child process: exec.Cmd's Wait,
// under its Run, Output and CombinedOutput too, and os.Process's, which it calls.
var childWaits = []string{"\nos/exec.(*Cmd).Wait(", "\nos.(*Process).Wait("}

// stall is what a traceback of every goroutine says about a stalled execution.
type stall struct {
	// busy is the function a goroutine is running in the program's code, when one is
	// running (or ready to run): a loop without a scheduling point.
	busy string
	// state is the stuck controlled goroutine's wait state ("chan receive", "semacquire",
	// ...), and blockedIn and at the function and position of its innermost frame outside the
	// standard library, where it waits ("" when none).
	state, blockedIn, at string
	// forGood is set when the stuck goroutine waits on a channel or a lock and no goroutine of
	// the process can run: none is running, ready, sleeping or in a system call (a real timer
	// can still wake it; nothing else can).
	forGood bool
	// child is set when the stuck goroutine waits for a child process to end (childWaits).
	child bool
}

// syncWait lists the wait states of a goroutine blocked on a channel or a lock.
var syncWait = []string{"chan receive", "chan send", "select", "semacquire", "sync.Mutex.Lock", "sync.RWMutex.Lock",
	"sync.RWMutex.RLock", "sync.WaitGroup.Wait", "sync.Cond.Wait"}

// examine reads a traceback of every goroutine (AllStacks); the calling goroutine, the first,
// is left out.
func examine(buf []byte) stall {
	var s stall
	canRun := false
	stuckWaits := false
	for _, b := range strings.Split(string(buf), "\n\n")[1:] {
		lines := strings.Split(strings.TrimSpace(b), "\n")
		if len(lines) < 2 {
			continue
		}
		_, status, _ := strings.Cut(lines[0], "[")
		status, _, _ = strings.Cut(status, "]")
		status, _, _ = strings.Cut(status, ",") // "chan receive, 2 minutes"
		controlled := strings.Contains(b, enginePkg+"(*Exec).run(")
		parked := strings.Contains(b, enginePkg+"(*Exec).wait(") || strings.Contains(b, enginePkg+"(*runner).wait(")
		switch {
		case status == "running" || status == "runnable":
			canRun = true
			if s.busy == "" {
				if top := funcName(lines[1]); !hiddenFrame(top) && !strings.HasPrefix(top, "runtime") {
					s.busy = top
				}
			}
		case status == "syscall" || status == "IO wait" || status == "sleep":
			// os/signal's loop waits for a signal in a system call: only a signal (an
			// interrupt, which ends the exploration) wakes it.
			if !parked && !strings.Contains(b, "os/signal.signal_recv") {
				canRun = true
			}
		}
		if controlled && !parked && s.state == "" {
			s.state = status
			for _, f := range childWaits {
				s.child = s.child || strings.Contains(b, f)
			}
			stuckWaits = slices.Contains(syncWait, status)
			for i := 1; i+1 < len(lines); i += 2 {
				fn := funcName(lines[i])
				if fn == "" || strings.HasPrefix(fn, "created by") {
					break
				}
				if !standardLibrary(fn) && !hiddenFrame(fn) {
					s.blockedIn = fn
					s.at = strings.TrimSpace(lines[i+1])
					if j := strings.LastIndex(s.at, " +0x"); j > 0 {
						s.at = s.at[:j]
					}
					break
				}
			}
		}
	}
	s.forGood = stuckWaits && !canRun
	return s
}

// funcName is the function of a traceback's frame line ("pkg.F(0x1, ...)").
func funcName(line string) string {
	if i := strings.LastIndexByte(line, '('); i > 0 {
		return line[:i]
	}
	return line
}

// standardLibrary reports whether the function fn ("path/to/pkg.Func", "pkg.(*T).M") is of
// the standard library: its import path's first element has no dot.
func standardLibrary(fn string) bool {
	first, _, _ := strings.Cut(packageOf(fn), "/")
	return !strings.Contains(first, ".") && !strings.HasPrefix(fn, "main.")
}

// packageOf returns the import path of the package of function fn.
func packageOf(fn string) string {
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 {
		return fn
	}
	return fn[:slash+1+dot]
}

// uninstrumentedModule returns the module of the package path pkg when it is one of the
// modules the test binary links without instrumenting them (INTERLEAVE_UNINSTRUMENTED, set by
// whoever built it), or "".
func uninstrumentedModule(pkg string) string {
	best := ""
	for _, m := range strings.Split(os.Getenv("INTERLEAVE_UNINSTRUMENTED"), ",") {
		if m != "" && (pkg == m || strings.HasPrefix(pkg, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	return best
}

// AllStacks returns a traceback of every goroutine (runtime.Stack with all set), however
// long it is.
func AllStacks() []byte {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}
