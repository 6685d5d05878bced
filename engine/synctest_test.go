package engine_test

import (
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
)

// TestParkedPartnerTakesTheCase: a select with a default whose partner is durably blocked in
// its receive — synctest.Wait said so, or time passed while it was blocked — takes the case in
// every schedule, as Go's does; one whose partner may only be arriving at its receive may take
// the default.
func TestParkedPartnerTakesTheCase(t *testing.T) {
	tests := []struct {
		name   string
		settle func()
		anyway bool // the default may be taken
	}{
		{"after synctest.Wait", func() { engine.SynctestWait("p.go:9") }, false},
		{"after time passed", func() { engine.Sleep(time.Millisecond, "p.go:9") }, false},
		{"right after the go statement", func() {}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defaults := 0
			rep := engine.Explore(func(et *engine.T) {
				engine.SynctestTest(et, func(et *engine.T) {
					ch := engine.MakeChan[int](0, "p.go:1")
					engine.Go(func() { engine.Recv(ch, "p.go:3") }, "p.go:2")
					tt.settle()
					if engine.Select("p.go:4", true, engine.SendCase(ch, 1)) < 0 {
						defaults++
						engine.Send(ch, 1, "p.go:5")
					}
				}, "p.go:0")
			}, engine.Config{Strategy: &alternating{funcStrategy: randomStrategy(1)}, Schedules: 20})
			if rep.First != nil {
				t.Fatalf("bug %v", rep.First.Bug)
			}
			if (defaults > 0) != tt.anyway {
				t.Errorf("the default was taken in %d of 20 schedules", defaults)
			}
		})
	}
}

// TestSynctestTimeStandsStill: inside synctest.Test time does not pass while goroutines run,
// so a sleep as long as a timer armed at the same instant ends at the timer's instant.
func TestSynctestTimeStandsStill(t *testing.T) {
	rep := engine.Explore(func(et *engine.T) {
		engine.SynctestTest(et, func(et *engine.T) {
			start := engine.Now()
			tm := engine.NewTimer(time.Second, "s.go:1")
			for range 5000 {
				engine.Gosched("s.go:2")
			}
			engine.Sleep(time.Second-time.Nanosecond, "s.go:3")
			if _, fired := tmPoll(tm.C, "s.go:4"); fired {
				et.Errorf("the timer fired before its second had passed")
			}
			if d := engine.Since(start); d != time.Second-time.Nanosecond {
				et.Errorf("slept %v", d)
			}
		}, "s.go:0")
	}, engine.Config{Strategy: randomStrategy(1), Schedules: 5})
	if rep.First != nil {
		t.Fatalf("bug %v\n%v", rep.First.Bug, rep.First.Bug.Logs)
	}
}
