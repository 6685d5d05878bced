package initclock

import (
	"os"
	"sync"
	"testing"
	"time"
)

var mainAt time.Time

func TestMain(m *testing.M) {
	mainAt = time.Now()
	os.Exit(m.Run())
}

// TestUptime: the uptime the test sees is small and never negative, and the package's
// initialization, TestMain and the test come in that order.
func TestUptime(t *testing.T) {
	now := time.Now()
	if up := Uptime(); up < 0 || up > time.Minute {
		t.Errorf("uptime %v, want a small positive duration", up)
	}
	if mainAt.Before(started) || now.Before(mainAt) {
		t.Errorf("init at %v, TestMain at %v, the test at %v: time ran backwards", started, mainAt, now)
	}
}

// TestCountWhenWarm (the bug): two tasks run at once once the pool is warm, and one may not be
// counted — a bug that depends on the time, since the pool counts only after its warm-up.
func TestCountWhenWarm(t *testing.T) {
	var p Pool
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go p.Do(wg.Done)
	}
	wg.Wait()
	if p.Done != 2 {
		t.Fatalf("%d task(s) counted at an uptime of %v, want 2", p.Done, Uptime())
	}
}
