package engine_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/schedule"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// wgAddAfterSleep calls wg.Add inside the goroutine it tracks and relies on a sleep for the
// goroutine to have reached it: on a loaded machine the goroutine may not have run when the
// sleeper wakes, Wait returns at once, and the test reads a result that is not there.
func wgAddAfterSleep(t *engine.T) {
	var wg sync.WaitGroup
	done := false
	engine.Go(func() {
		engine.WGAdd(&wg, 1, "w.go:3")
		engine.Store(&done, true, "w.go:4")
		engine.WGDone(&wg, "w.go:5")
	}, "w.go:2")
	engine.Sleep(time.Millisecond, "w.go:7")
	engine.WGWait(&wg, "w.go:8")
	if !engine.Load(&done, "w.go:9") {
		t.Error("the task had not run when Wait returned")
	}
}

// checkAfterSleep starts a goroutine, sleeps, and checks the goroutine's effect.
func checkAfterSleep(t *engine.T) {
	var mu sync.Mutex
	n := 0
	engine.Go(func() {
		engine.Lock(&mu, "c.go:3")
		n++
		engine.Unlock(&mu, "c.go:5")
	}, "c.go:2")
	engine.Sleep(time.Millisecond, "c.go:7")
	engine.Lock(&mu, "c.go:8")
	got := n
	engine.Unlock(&mu, "c.go:10")
	if got != 1 {
		t.Errorf("n = %d after the sleep, want 1", got)
	}
}

// syncedWithSleeps sleeps too, but waits for its goroutine properly: nothing to find.
func syncedWithSleeps(t *engine.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	engine.WGAdd(&wg, 1, "s.go:1")
	engine.Go(func() {
		engine.Sleep(time.Millisecond, "s.go:3")
		engine.Lock(&mu, "s.go:4")
		n++
		engine.Unlock(&mu, "s.go:6")
		engine.WGDone(&wg, "s.go:7")
	}, "s.go:2")
	engine.Sleep(time.Millisecond, "s.go:9")
	engine.WGWait(&wg, "s.go:10")
	engine.Lock(&mu, "s.go:11")
	if n != 1 {
		t.Errorf("n = %d, want 1", n)
	}
	engine.Unlock(&mu, "s.go:14")
}

// sleepPrograms are the programs whose bug needs a goroutine delayed past a sleep.
var sleepPrograms = []struct {
	name string
	body func(*engine.T)
	want string // what the bug's message says it needed
}{
	{"wg.Add inside the goroutine, Wait after a sleep", wgAddAfterSleep, "G1 had not run for 1ms when G0 woke (sleep at w.go:7)"},
	{"check after a sleep", checkAfterSleep, "G1 had not run for 1ms when G0 woke (sleep at c.go:7)"},
}

// sleepStrategies are the strategies that must reach a delay past a sleep: a random walk and
// delay bounding, for which the delay is one delay.
func sleepStrategies() map[string]func() engine.Strategy {
	return map[string]func() engine.Strategy{
		"random": func() engine.Strategy { return strategy.NewRandom(1) },
		"idb":    func() engine.Strategy { return strategy.NewIDB(-1) },
	}
}

// TestSleepOrdersByDefault: with the engine's default (SleepsOrder) the clock moves only when
// nothing can run, so every sleep is a handshake and the programs pass in every schedule.
func TestSleepOrdersByDefault(t *testing.T) {
	for _, p := range sleepPrograms {
		rep := engine.Explore(p.body, engine.Config{Strategy: strategy.NewIDB(-1), Schedules: 2000})
		if rep.First != nil || rep.Stopped != "exhausted" {
			t.Errorf("%s: %v (stopped: %s), want no bug in the whole space", p.name, rep.First, rep.Stopped)
		}
	}
}

// TestSleepDelayFound: with delays past sleeps explored, the bug of each program is found,
// says what it needed, and its schedule file replays it exactly.
func TestSleepDelayFound(t *testing.T) {
	for _, p := range sleepPrograms {
		for name, mk := range sleepStrategies() {
			s := mk()
			var file *schedule.File
			cfg := engine.Config{Strategy: s, Schedules: 1000, Sleeps: engine.SleepsFail}
			cfg.OnExecution = func(n int, r *engine.Result) {
				if r.Bug != nil && file == nil {
					file = engine.NewScheduleFile(r, engine.TestInfo{Package: "p", Name: "T"}, s, n)
				}
			}
			rep := engine.Explore(p.body, cfg)
			if rep.First == nil {
				t.Fatalf("%s, %s: no bug in %d schedules (%s)", p.name, name, rep.Schedules, rep.Stopped)
			}
			b := rep.First.Bug
			if b.Kind != engine.Fail || b.Delayed != p.want || !strings.Contains(b.Message, p.want) {
				t.Fatalf("%s, %s: %v\ndelayed: %q, want %q", p.name, name, b, b.Delayed, p.want)
			}
			if file.SleepDelays != 1 || file.SleepDelayMax != engine.DefaultSleepDelayMax {
				t.Fatalf("%s, %s: the file records delays %d up to %v", p.name, name, file.SleepDelays, file.SleepDelayMax)
			}
			// Through the file's text: the replay needs the delays it records.
			var text bytes.Buffer
			if err := file.Encode(&text); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), `"sleepDelays": 1`) {
				t.Fatalf("the file does not record its delays:\n%s", text.String())
			}
			back, err := schedule.Decode(&text)
			if err != nil {
				t.Fatal(err)
			}
			if back.Bug.Delayed != p.want {
				t.Fatalf("%s, %s: the file's bug needed %q, want %q", p.name, name, back.Bug.Delayed, p.want)
			}
			var rc engine.Config
			if err := rc.UseFile(back); err != nil {
				t.Fatal(err)
			}
			res := engine.Run(p.body, strategy.NewReplayFile(back), rc)
			if err := engine.CheckReproduced(back, res); err != nil {
				t.Fatalf("%s, %s: %v", p.name, name, err)
			}
		}
	}
}

// TestSleepDelayNotice: under SleepsNotice the bug is a notice that says what it needed, and
// the exploration goes on to its budget without a failure.
func TestSleepDelayNotice(t *testing.T) {
	for _, p := range sleepPrograms {
		rep := engine.Explore(p.body, engine.Config{Strategy: strategy.NewRandom(1), Schedules: 200, Sleeps: engine.SleepsNotice})
		if rep.First != nil || rep.Buggy != 0 || rep.Schedules != 200 {
			t.Fatalf("%s: first %v, %d buggy in %d schedules, want a notice only", p.name, rep.First, rep.Buggy, rep.Schedules)
		}
		if len(rep.Notices) != 1 || !strings.Contains(rep.Notices[0], p.want) || !strings.Contains(rep.Notices[0], "-sleeps=fail") {
			t.Fatalf("%s: notices %q, want one that names %q", p.name, rep.Notices, p.want)
		}
	}
}

// TestSleepDelaySynchronized: a program that sleeps but synchronizes properly shows nothing,
// in the whole space of one delay per execution (delay bounding exhausts it) and at random.
func TestSleepDelaySynchronized(t *testing.T) {
	for name, mk := range sleepStrategies() {
		rep := engine.Explore(syncedWithSleeps, engine.Config{Strategy: mk(), Schedules: 3000, Sleeps: engine.SleepsFail})
		if rep.First != nil || len(rep.Notices) > 0 || rep.Err != nil {
			t.Fatalf("%s: %v %q %v", name, rep.First, rep.Notices, rep.Err)
		}
		if name == "idb" && rep.Stopped != "exhausted" {
			t.Errorf("idb stopped: %s after %d schedules, want the space exhausted", rep.Stopped, rep.Schedules)
		}
	}
}

// tornRecord is issue 15's torn record, with no sleep: a flusher on a ticker of 20ns
// takes the buffer between the two critical sections of a record.
func tornRecord(t *engine.T) {
	var mu sync.Mutex
	var buf []string
	var batches [][]string
	stop, done := engine.MakeChan[struct{}](0, "r.go:1"), engine.MakeChan[struct{}](0, "r.go:2")
	flush := func() {
		engine.Lock(&mu, "r.go:3")
		if len(buf) > 0 {
			batches, buf = append(batches, buf), nil
		}
		engine.Unlock(&mu, "r.go:4")
	}
	engine.Go(func() {
		defer engine.Close(done, "r.go:5")
		tick := engine.NewTicker(20*time.Nanosecond, "r.go:6")
		for {
			if engine.Select("r.go:7", false, engine.RecvCase(tick.C), engine.RecvCase((<-chan struct{})(stop))) == 1 {
				flush()
				return
			}
			flush()
		}
	}, "r.go:8")
	for range 50 {
		engine.Lock(&mu, "r.go:9")
		buf = append(buf, "k")
		engine.Unlock(&mu, "r.go:10")
		engine.Lock(&mu, "r.go:11")
		buf = append(buf, "v")
		engine.Unlock(&mu, "r.go:12")
	}
	engine.Close(stop, "r.go:13")
	engine.Recv((<-chan struct{})(done), "r.go:14")
	for _, b := range batches {
		if len(b)%2 != 0 {
			t.Fatalf("a batch of %d entries holds a torn record", len(b))
		}
	}
}

// TestSleepDelayOnlyPastSleeps: a bug that needs no sleep to be overtaken stays a failure
// under SleepsNotice. Delays are offered only as a goroutine begins to sleep: offered at every
// decision while a timer is due (a microsecond's ticker always is), a random walk took one in
// nearly every execution, and the torn record, which needs none, became a notice.
func TestSleepDelayOnlyPastSleeps(t *testing.T) {
	rep := engine.Explore(tornRecord, engine.Config{Strategy: strategy.NewRandom(1), Schedules: 2000, Sleeps: engine.SleepsNotice})
	if rep.First == nil || rep.First.Bug.Kind != engine.Fail || rep.First.Bug.Delayed != "" || len(rep.Notices) > 0 {
		t.Fatalf("first %v, notices %q, after %d schedules: want the torn record as a failure that needed no delay", rep.First, rep.Notices, rep.Schedules)
	}
}
