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

// TestSynctestBubbleStartsAtGosEpoch: a bubble's clock reads midnight UTC on 2000-01-01 as it
// starts, as Go's does, whatever the time outside; after it the execution's own time goes on,
// later than the bubble's. The execution itself starts in the middle of every calendar period
// (Epoch): no minute, hour, day, month or year begins within seconds of it, and it is a
// weekday.
func TestSynctestBubbleStartsAtGosEpoch(t *testing.T) {
	midnight := time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)
	var inside, before, after time.Time
	rep := engine.Explore(func(et *engine.T) {
		engine.Sleep(time.Hour, "e.go:1")
		before = engine.Now()
		engine.SynctestTest(et, func(et *engine.T) {
			inside = engine.Now()
			engine.Sleep(time.Minute, "e.go:2")
		}, "e.go:0")
		after = engine.Now()
	}, engine.Config{Strategy: randomStrategy(1), Schedules: 1})
	if rep.First != nil {
		t.Fatalf("bug %v", rep.First.Bug)
	}
	if !inside.Equal(midnight) {
		t.Errorf("the bubble started at %v, want %v", inside, midnight)
	}
	if !after.After(before) {
		t.Errorf("after the bubble the time is %v, before it %v: want later", after, before)
	}
	e := engine.Epoch
	next := func(d time.Duration) time.Duration { return e.Truncate(d).Add(d).Sub(e) }
	for _, tt := range []struct {
		period time.Duration
		from   time.Duration // the least time from Epoch to the next period's start and back
	}{{time.Minute, 20 * time.Second}, {time.Hour, 20 * time.Minute}, {24 * time.Hour, 6 * time.Hour}} {
		if after, since := next(tt.period), e.Sub(e.Truncate(tt.period)); after < tt.from || since < tt.from {
			t.Errorf("Epoch %v is %v after a %v begins and %v before the next: want %v from both", e, since, tt.period, after, tt.from)
		}
	}
	if d := e.Day(); d < 8 || d > 21 || e.Month() == time.January || e.Month() == time.December || e.Weekday() == time.Saturday || e.Weekday() == time.Sunday {
		t.Errorf("Epoch %v (%v) is near the start or end of a month or year, or on a weekend", e, e.Weekday())
	}
}
