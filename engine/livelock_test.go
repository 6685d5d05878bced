package engine_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/interleave-dev/interleave/engine"
)

// node is a node of a chain of atomic.Pointer links, as a hash map's collision chain or a
// skip list's level is.
type node struct {
	key  int
	next atomic.Pointer[node]
}

// chain builds a chain of n nodes, keys n-1 (head) to 0 (tail), and returns its head.
func chain(n int) *atomic.Pointer[node] {
	head := new(atomic.Pointer[node])
	for k := range n {
		nd := &node{key: k}
		engine.AtomicPointerStore(&nd.next, engine.AtomicPointerLoad(head, "c.go:1"), "c.go:2")
		engine.AtomicPointerStore(head, nd, "c.go:3")
	}
	return head
}

// find walks the chain from head to the node of key k.
func find(head *atomic.Pointer[node], k int) bool {
	for nd := engine.AtomicPointerLoad(head, "c.go:4"); nd != nil; nd = engine.AtomicPointerLoad(&nd.next, "c.go:5") {
		if nd.key == k {
			return true
		}
	}
	return false
}

// TestLivelockNeedsEvidenceOfNoProgress: a goroutine alone that walks a long chain of
// atomic.Pointer nodes again and again only loads, over the same locations — it was called a
// livelock at the step bound ("only looked … at the same 300 locations over and over") — but
// it is a long computation, as natively (go test passes it in milliseconds): the step bound,
// a notice. A goroutine alone spinning on a flag that no goroutine can ever set is still
// reported, as the hang it is, with the loop it repeats; and two goroutines taking turns
// forever, each waiting for a turn that never comes, are still a livelock.
func TestLivelockNeedsEvidenceOfNoProgress(t *testing.T) {
	tests := []struct {
		name string
		body func(*engine.T)
		want engine.BugKind
		msg  []string // in the bug's message
	}{
		{name: "lookups of every key of a long chain", body: func(t *engine.T) {
			head := chain(300)
			for range 10 {
				for k := range 300 {
					if !find(head, k) {
						t.Errorf("key %d not found", k)
					}
				}
			}
		}},
		{name: "the same lookup through a long chain, again and again", body: func(t *engine.T) {
			head := chain(300)
			for range 1000 {
				if !find(head, 0) {
					t.Errorf("key 0 not found")
				}
			}
		}},
		{name: "a spin alone on a flag nobody can set", body: func(t *engine.T) {
			var flag int32
			never := engine.MakeChan[int](0, "h.go:1")
			engine.Go(func() {
				engine.Recv(never, "h.go:3")
				engine.AtomicStoreInt32(&flag, 1, "h.go:4")
			}, "h.go:2")
			for engine.AtomicLoadInt32(&flag, "h.go:5") == 0 {
			}
		}, want: engine.Livelock, msg: []string{"G0 alone", "a loop of 1 step(s) (atomic.load at h.go:5)", "at one location over and over", "a hang"}},
		{name: "two goroutines taking turns forever", body: func(t *engine.T) {
			var turn int32 = 2 // nobody's
			engine.Go(func() {
				for engine.AtomicLoadInt32(&turn, "p.go:2") != 1 {
					engine.Gosched("p.go:3")
				}
			}, "p.go:1")
			for engine.AtomicLoadInt32(&turn, "p.go:4") != 0 {
				engine.Gosched("p.go:5")
			}
		}, want: engine.Livelock, msg: []string{"the goroutines only looked", "a livelock"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := engine.Explore(tt.body, engine.Config{Strategy: randomStrategy(2), Schedules: 3, MaxSteps: 20_000})
			if rep.Err != nil || len(rep.Limitations) > 0 {
				t.Fatalf("exploration stopped: %v %v", rep.Err, rep.Limitations)
			}
			var got engine.BugKind
			if rep.First != nil {
				got = rep.First.Bug.Kind
			}
			if got != tt.want {
				t.Fatalf("bug %v: want kind %q", bugOf(rep), tt.want)
			}
			if rep.First != nil {
				t.Logf("%s", rep.First.Bug.Message)
			}
			for _, m := range tt.msg {
				if !strings.Contains(rep.First.Bug.Message, m) {
					t.Errorf("message:\n%s\nwant it to contain %q", rep.First.Bug.Message, m)
				}
			}
			if tt.want == "" && rep.StepBound != 3 {
				t.Errorf("%d of 3 schedules at the step bound, want 3 (a notice)", rep.StepBound)
			}
		})
	}
}
