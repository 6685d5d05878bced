package explore_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/explore"
)

// lostUpdateChecked is lostUpdate with its check made or not: the same operations, so that
// a schedule of one replays on the other.
func lostUpdateChecked(check bool) func(*explore.T) {
	return func(t *explore.T) {
		var n int
		var wg sync.WaitGroup
		for i := 0; i < 2; i++ {
			engine.WGAdd(&wg, 1, "lost.go:1")
			engine.Go(func() {
				defer engine.WGDone(&wg, "lost.go:2")
				engine.Read(unsafe.Pointer(&n), "lost.go:3")
				v := n
				engine.Write(unsafe.Pointer(&n), "lost.go:4")
				n = v + 1
			}, "lost.go:5")
		}
		engine.WGWait(&wg, "lost.go:6")
		if check && n != 2 {
			t.Fatalf("n = %d, want 2", n)
		}
	}
}

func resultOf(t *testing.T, log *bytes.Buffer) explore.Event {
	t.Helper()
	sc := bufio.NewScanner(log)
	for sc.Scan() {
		var e explore.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err == nil && e.Event == "result" {
			return e
		}
	}
	t.Fatalf("no result event in %s", log.String())
	return explore.Event{}
}

// A test's saved schedule is replayed before it is explored: still failing, it is the bug at
// schedule 1, whatever the budget and the seed; after a fix it counts as fixed.
func TestSavedSchedulesReplayFirst(t *testing.T) {
	dir := t.TempDir()
	if _, rep := exploreOn(t, "TestLostUpdate", lostUpdateChecked(true), explore.ScheduleDir(dir), explore.Minimize(0)); rep == nil || rep.First == nil {
		t.Fatalf("no bug found: %+v", rep)
	}

	var log bytes.Buffer
	r, rep := exploreOn(t, "TestLostUpdate", lostUpdateChecked(true), explore.ScheduleDir(dir), explore.Minimize(0),
		explore.Strategy("random", nil), explore.Seed(987654), explore.Schedules(1), explore.EventLog(&log))
	e := resultOf(t, &log)
	if rep == nil || rep.First == nil || rep.FirstAt != 1 || rep.Strategy != "random" || e.SavedReplayed != 1 || e.SavedFailing != 1 || e.Bug == nil {
		t.Fatalf("report %+v, event %+v", rep, e)
	}
	if len(r.errors) != 1 || !strings.Contains(r.errors[0], "a saved schedule still fails") {
		t.Errorf("errors %q", r.errors)
	}

	log.Reset()
	r, rep = exploreOn(t, "TestLostUpdate", lostUpdateChecked(false), explore.ScheduleDir(dir), explore.Minimize(0),
		explore.Schedules(5), explore.EventLog(&log))
	e = resultOf(t, &log)
	if rep == nil || rep.First != nil || len(r.errors) != 0 || e.SavedReplayed != 1 || e.SavedFailing != 0 || e.SavedDiverged != 0 {
		t.Fatalf("after the fix: report %+v, errors %q, event %+v", rep, r.errors, e)
	}
}
