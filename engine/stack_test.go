package engine_test

import (
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
)

// blockedForever is started by TestStackIsTheProgramsOnly and waits on a channel nobody sends
// on: the one goroutine of the program that the traceback must show besides the body.
func blockedForever(ch chan int) { engine.Recv(ch, "s.go:2") }

// abandonedForever is a goroutine of an execution the watchdog abandons in
// TestStackIsTheProgramsOnly: it stays blocked in the engine.
func abandonedForever(ch chan int) { engine.Recv(ch, "a.go:4") }

// finishes is started by TestStackIsTheProgramsOnly and returns at once.
func finishes() {}

// TestStackIsTheProgramsOnly: engine.Stack (runtime.Stack in instrumented code) with all set
// shows, during an execution after one the watchdog abandoned, the test body and its goroutines that are under way, each with
// the program's function on top — not the explorer, the watchdog, the interrupt handler, a
// goroutine that returned (nor an AfterFunc whose timer has not fired, no goroutine in Go
// either), nor controlled goroutines between executions; NumGoroutine agrees. Without all, it
// is runtime.Stack's.
func TestStackIsTheProgramsOnly(t *testing.T) {
	// First an execution the watchdog abandons, whose goroutines stay: they are not the
	// program's either.
	release := make(chan struct{})
	defer close(release)
	rep := engine.Explore(func(et *engine.T) {
		ch := engine.MakeChan[int](0, "a.go:1")
		engine.Go(func() { abandonedForever(ch) }, "a.go:2")
		engine.Gosched("a.go:3")
		<-release // not instrumented: the engine cannot see it
	}, engine.Config{Strategy: firstEnabled(), Schedules: 1, Watchdog: 50 * time.Millisecond})
	if rep.Stopped != "limitation" {
		t.Fatalf("the first exploration was not abandoned: %+v", rep)
	}

	var during string
	var before, after int
	rep = engine.Explore(func(et *engine.T) {
		before = engine.NumGoroutine()
		ch := engine.MakeChan[int](0, "s.go:1")
		engine.Go(func() { blockedForever(ch) }, "s.go:3")
		engine.Go(finishes, "s.go:4")
		engine.AfterFunc(time.Hour, func() {}, "s.go:5")
		for range 10 {
			engine.Gosched("s.go:6") // lets the goroutine that finishes finish
		}
		after = engine.NumGoroutine()
		buf := make([]byte, 1<<20)
		during = string(buf[:engine.Stack(buf, true)])
		engine.Send(ch, 1, "s.go:7")
	}, engine.Config{Strategy: randomStrategy(1), Schedules: 1})
	if rep.First != nil {
		t.Fatalf("bug: %v", rep.First.Bug)
	}
	blocks := strings.Split(strings.TrimSpace(during), "\n\n")
	top := regexp.MustCompile(`^goroutine \d+ \[[^\]]*\]:\n([^\n(]*)\(`)
	var tops []string
	for _, b := range blocks {
		if m := top.FindStringSubmatch(b); m != nil && !strings.HasPrefix(m[1], "testing.") && !strings.HasPrefix(m[1], "runtime.") {
			tops = append(tops, m[1])
		}
	}
	want := []string{
		"github.com/interleave-dev/interleave/engine_test.TestStackIsTheProgramsOnly.func2", // the body, running
		"github.com/interleave-dev/interleave/engine_test.blockedForever",                   // blocked at its receive
	}
	if len(tops) != 2 || tops[0] != want[0] || tops[1] != want[1] {
		t.Errorf("the goroutines' top functions are %q, want %q:\n%s", tops, want, during)
	}
	for _, absent := range []string{"engine.Explore(", "engine.watchdog(", "os/signal", "engine_test.finishes", "(*Exec).wait(", "abandonedForever"} {
		if strings.Contains(during, absent) {
			t.Errorf("the traceback shows %s:\n%s", absent, during)
		}
	}
	if after != before+1 {
		t.Errorf("NumGoroutine %d after starting a goroutine that blocks, one that returns and an AfterFunc, %d before; want one more", after, before)
	}
	between := make([]byte, 1<<20)
	if s := string(between[:engine.Stack(between, true)]); strings.Contains(s, "engine.(*Exec).run(") || strings.Contains(s, "engine.watchdog(") {
		t.Errorf("between executions the traceback shows controlled goroutines or the watchdog:\n%s", s)
	}
	if s := string(between[:engine.Stack(between, false)]); !strings.Contains(s, "TestStackIsTheProgramsOnly") {
		t.Errorf("Stack without all is not the caller's traceback:\n%s", s)
	}
}

// TestStrategyGoroutinesAreTheEngines: PERIOD generates its schedules in a coroutine, a
// goroutine of its own while a job lasts. A program that lists its goroutines during an
// execution (goleak) does not see it, and none is left once the exploration is over, alone or
// in the default portfolio (Explore closes the strategy).
func TestStrategyGoroutinesAreTheEngines(t *testing.T) {
	for _, spec := range []string{"period", "portfolio"} {
		t.Run(spec, func(t *testing.T) {
			s := newStrategy(t, spec)
			var seen []string
			generating := 0
			rep := engine.Explore(func(*engine.T) {
				var mu sync.Mutex
				done := engine.MakeChan[struct{}](0, "g.go:1")
				for range 2 {
					engine.Go(func() {
						engine.Lock(&mu, "g.go:2")
						engine.Unlock(&mu, "g.go:3")
						engine.Send(done, struct{}{}, "g.go:4")
					}, "g.go:5")
				}
				engine.Recv(done, "g.go:6")
				engine.Recv(done, "g.go:6")
				buf := make([]byte, 1<<20)
				seen = append(seen, string(buf[:engine.Stack(buf, true)]))
				if strings.Contains(string(buf[:runtime.Stack(buf, true)]), "engine/strategy.") {
					generating++
				}
			}, engine.Config{Strategy: s, Schedules: 24})
			if rep.First != nil || rep.Err != nil || rep.Schedules < 12 {
				t.Fatalf("%d executions, bug %v, error %v", rep.Schedules, rep.First, rep.Err)
			}
			if generating == 0 {
				t.Fatal("no execution ran while PERIOD's generator was there: the test tests nothing")
			}
			for i, st := range seen {
				if strings.Contains(st, "engine/strategy.") || strings.Contains(st, "iter.Pull") {
					t.Fatalf("execution %d: the program's goroutines show a strategy's:\n%s", i+1, st)
				}
			}
			buf := make([]byte, 1<<20)
			if all := string(buf[:runtime.Stack(buf, true)]); strings.Contains(all, "engine/strategy.") {
				t.Errorf("a strategy's goroutine is left after the exploration:\n%s", all)
			}
		})
	}
}

// TestStackShowsTestingsOwnWaits: a test waiting for its subtest to end, and a parallel
// subtest waiting for its parent's function to return, have testing.(*T).Run and
// testing.(*T).Parallel on top of their tracebacks, as in Go, where goleak.VerifyNone in a
// subtest recognizes them as the testing package's own by it; the caller's own traceback
// (all unset) starts at the program's function, without engine.Stack's frame.
func TestStackShowsTestingsOwnWaits(t *testing.T) {
	var all, own string
	rep := engine.Explore(func(et *engine.T) {
		et.Run("parallel", func(et *engine.T) {
			et.Parallel()
		})
		et.Run("sub", func(et *engine.T) {
			buf := make([]byte, 1<<20)
			all = string(buf[:engine.Stack(buf, true)])
			own = string(buf[:engine.Stack(buf, false)])
		})
	}, engine.Config{Strategy: firstEnabled(), Schedules: 1})
	if rep.First != nil {
		t.Fatalf("bug: %v", rep.First.Bug)
	}
	// The first frame's function (its line up to the arguments, the last parenthesis) of the
	// execution's goroutines, the test process's own left aside (goroutine 1, in go test's
	// own testing.(*T).Run).
	top := regexp.MustCompile(`^goroutine \d+ \[([^\]]*)\]:\n([^\n]*)\(`)
	var tops []string
	for _, b := range strings.Split(all, "\n\n") {
		if m := top.FindStringSubmatch(b); m != nil && strings.Contains(b, "TestStackShowsTestingsOwnWaits.func") && strings.HasPrefix(m[2], "testing.(*T).") {
			tops = append(tops, m[2]+" ["+m[1]+"]")
		}
	}
	slices.Sort(tops)
	want := []string{"testing.(*T).Parallel [chan receive]", "testing.(*T).Run [chan receive]"}
	if !slices.Equal(tops, want) {
		t.Errorf("the goroutines waiting in testing's methods have on top %q, want %q:\n%s", tops, want, all)
	}
	if m := regexp.MustCompile(`^goroutine \d+ \[[^\]]*\]:\n([^\n(]*)\(`).FindStringSubmatch(own); m == nil || !strings.HasSuffix(m[1], "TestStackShowsTestingsOwnWaits.func1.2") {
		t.Errorf("the caller's own traceback does not start at its function:\n%s", own)
	}
}
