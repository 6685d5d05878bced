package test

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/interleave-dev/interleave/engine/explore"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// TestLockstepHub drives the relay of a lockstep search as two workers would: a round is sent
// to both once both gave theirs, with the executions they ran summed; an announcement is passed
// on at once; a round larger than a pipe's buffer still reaches the live worker when the other
// died (its reader closed); when a worker ends, the other is told to stop, with "time" when that
// is why; a worker that gives a round twice breaks the search.
func TestLockstepHub(t *testing.T) {
	hub, ins, err := newLockstepHub(2)
	if err != nil {
		t.Fatal(err)
	}
	defer hub.close()
	readers := []*bufio.Reader{bufio.NewReader(ins[0]), bufio.NewReader(ins[1])}
	next := func(i int) explore.LockstepRound {
		t.Helper()
		line, err := readers[i].ReadBytes('\n')
		if err != nil {
			t.Fatalf("worker %d: %v", i+1, err)
		}
		var r explore.LockstepRound
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("worker %d: %v", i+1, err)
		}
		return r
	}

	// Round 0: both give theirs; both get everyone's.
	if err := hub.round(0, &explore.LockstepRound{Round: 0, Outcomes: []strategy.PeriodOutcome{{Seq: 0, Counts: []int{1, 1}}}, Executed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := hub.round(1, &explore.LockstepRound{Round: 0, Executed: 0}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if r := next(i); r.Round != 0 || len(r.Outcomes) != 1 || r.Executed != 1 || r.End != "" {
			t.Errorf("worker %d got round %+v", i+1, r)
		}
	}
	// An announcement goes to both at once.
	if err := hub.round(1, &explore.LockstepRound{Round: 1, Cut: 4}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if r := next(i); r.Round != 1 || r.Cut != 4 {
			t.Errorf("worker %d got %+v, want the announcement", i+1, r)
		}
	}
	// Worker 1 dies after giving round 1; worker 2 gives a round of ~1 MB.
	ins[0].Close()
	if err := hub.round(0, &explore.LockstepRound{Round: 1, Executed: 3}); err != nil {
		t.Fatal(err)
	}
	big := make([]strategy.PeriodOutcome, 20000)
	for i := range big {
		big[i] = strategy.PeriodOutcome{Seq: i, Counts: []int{3, 4}, Key: "h:" + strings.Repeat("k", 22)}
	}
	done := make(chan error, 1)
	go func() { done <- hub.round(1, &explore.LockstepRound{Round: 1, Outcomes: big, Executed: 20000}) }()
	if r := next(1); r.Round != 1 || len(r.Outcomes) != len(big) || r.Executed != 20003 {
		t.Errorf("worker 2 got round %d with %d outcomes, %d executed", r.Round, len(r.Outcomes), r.Executed)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Worker 1 ended on its time budget: worker 2 is told to stop with it.
	hub.end("time")
	if r := next(1); r.End != "time" {
		t.Errorf("worker 2 got %+v, want the end", r)
	}
	if _, err := readers[1].ReadBytes('\n'); err == nil {
		t.Error("the lockstep file stays open after the end")
	}

	// A round given twice breaks the search: every worker is told to stop.
	hub2, ins2, err := newLockstepHub(2)
	if err != nil {
		t.Fatal(err)
	}
	defer hub2.close()
	hub2.round(0, &explore.LockstepRound{Round: 0})
	if err := hub2.round(0, &explore.LockstepRound{Round: 0}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a round given twice: %v", err)
	}
	for i, in := range ins2 {
		line, _ := bufio.NewReader(in).ReadBytes('\n')
		if !strings.Contains(string(line), `"End":"canceled"`) {
			t.Errorf("worker %d got %q, want the end", i+1, line)
		}
	}
}
