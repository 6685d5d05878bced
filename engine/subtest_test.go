package engine_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/strategy"
)

// TestParallelSubtestsOrder checks, in every schedule DFS explores, the order testing gives
// parallel subtests: Run returns when the subtest calls Parallel; parallel subtests go on only
// after their parent's function returned; the parent's Cleanup runs after they are all over;
// and Run of a group returns only after the group's parallel subtests are over.
func TestParallelSubtestsOrder(t *testing.T) {
	var log []string
	body := func(t *engine.T) {
		log = log[:0]
		var mu sync.Mutex
		t.Cleanup(func() { log = append(log, "top cleanup") })
		t.Run("group", func(t *engine.T) {
			t.Cleanup(func() { log = append(log, "group cleanup") })
			for _, name := range []string{"a", "b"} {
				t.Run(name, func(t *engine.T) {
					log = append(log, name+" start")
					t.Parallel()
					log = append(log, name+" resumed")
					engine.Lock(&mu, "lock")
					log = append(log, name+" locked")
					engine.Unlock(&mu, "unlock")
				})
				log = append(log, "ran "+name)
			}
			log = append(log, "group end")
		})
		log = append(log, "after group")
	}
	orders := map[string]bool{}
	rep := engine.Explore(body, engine.Config{
		Strategy:  strategy.NewDFS(),
		Schedules: 10000,
		OnExecution: func(n int, r *engine.Result) {
			if r.Bug != nil {
				t.Errorf("schedule %d: %v", n, r.Bug)
				return
			}
			at := func(s string) int {
				i := slices.Index(log, s)
				if i < 0 {
					t.Fatalf("schedule %d: %q missing from %v", n, s, log)
				}
				return i
			}
			for _, before := range [][2]string{
				{"a start", "ran a"},
				{"ran a", "b start"},
				{"b start", "ran b"},
				{"group end", "a resumed"},
				{"group end", "b resumed"},
				{"a locked", "group cleanup"},
				{"b locked", "group cleanup"},
				{"group cleanup", "after group"},
				{"after group", "top cleanup"},
			} {
				if at(before[0]) > at(before[1]) {
					t.Errorf("schedule %d: %q after %q: %v", n, before[0], before[1], log)
				}
			}
			orders[strings.Join(log, ",")] = true
		},
	})
	if rep.Schedules < 2 {
		t.Fatalf("%d schedules, want the parallel subtests interleaved", rep.Schedules)
	}
	// Both subtests may take the lock first.
	var aFirst, bFirst bool
	for o := range orders {
		if strings.Index(o, "a locked") < strings.Index(o, "b locked") {
			aFirst = true
		} else {
			bFirst = true
		}
	}
	if !aFirst || !bFirst {
		t.Errorf("the parallel subtests ran in one order only over %d schedules", rep.Schedules)
	}
}

// TestParallelSubtestsRace: a lost update between two parallel subtests is a bug some
// schedule shows; the same subtests run one after another never show it.
func TestParallelSubtestsRace(t *testing.T) {
	for _, tt := range []struct {
		parallel bool
		wantBug  bool
	}{{true, true}, {false, false}} {
		body := func(t *engine.T) {
			var n int
			inc := func(t *engine.T) {
				if tt.parallel {
					t.Parallel()
				}
				v := engine.Load(&n, "read")
				engine.Store(&n, v+1, "write")
			}
			t.Run("group", func(t *engine.T) {
				t.Run("one", inc)
				t.Run("two", inc)
			})
			if n != 2 {
				t.Errorf("n = %d, want 2", n)
			}
		}
		rep := engine.Explore(body, engine.Config{Strategy: strategy.NewDFS(), Schedules: 1000})
		if got := rep.First != nil; got != tt.wantBug {
			t.Fatalf("parallel=%v: bug found: %v, want %v (%d schedules, stopped: %s)", tt.parallel, got, tt.wantBug, rep.Schedules, rep.Stopped)
		}
		if bug := rep.First; bug != nil && (bug.Bug.Kind != engine.Fail || !strings.Contains(bug.Bug.Message, "n = 1")) {
			t.Errorf("parallel=%v: bug %v, want the lost update", tt.parallel, bug.Bug)
		}
	}
}

// TestParallelSubtestFailures: a parallel subtest's Fatal ends that subtest only; its failure
// is the execution's; Parallel twice panics as testing's does.
func TestParallelSubtestFailures(t *testing.T) {
	tests := []struct {
		name    string
		sub     func(t *engine.T)
		kind    engine.BugKind
		message string
	}{
		{"fatal", func(t *engine.T) { t.Parallel(); t.Fatal("stop") }, engine.Fail, "stop"},
		{"twice", func(t *engine.T) { t.Parallel(); t.Parallel() }, engine.Panic, "t.Parallel called multiple times"},
		{"skip", func(t *engine.T) { t.Parallel(); t.Skip("skipped") }, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var after bool
			var ran bool
			body := func(t *engine.T) {
				t.Run("sub", tt.sub)
				t.Run("other", func(t *engine.T) { t.Parallel(); ran = true })
				after = true
			}
			r := engine.Run(body, strategy.NewDFS(), engine.Config{})
			// A panic ends the execution: the other subtest never resumes.
			if !after || !ran && tt.kind != engine.Panic {
				t.Errorf("the parent's function returned: %v, the other subtest ran: %v", after, ran)
			}
			switch {
			case tt.kind == "" && r.Bug != nil:
				t.Errorf("bug %v, want none", r.Bug)
			case tt.kind != "" && (r.Bug == nil || r.Bug.Kind != tt.kind || !strings.Contains(r.Bug.Message, tt.message)):
				t.Errorf("bug %v, want %s %q", r.Bug, tt.kind, tt.message)
			}
		})
	}
}

// TestArtifactDir: one directory per execution, the same for every call, removed at its end.
func TestArtifactDir(t *testing.T) {
	var dirs []string
	body := func(t *engine.T) {
		d := t.ArtifactDir()
		if t.ArtifactDir() != d {
			t.Errorf("two directories in one execution")
		}
		if err := os.WriteFile(filepath.Join(d, "out.txt"), []byte("x"), 0o644); err != nil {
			t.Error(err)
		}
		dirs = append(dirs, d)
	}
	rep := engine.Explore(body, engine.Config{Strategy: strategy.NewRandom(1), Schedules: 2})
	if rep.First != nil {
		t.Fatal(rep.First.Bug)
	}
	if len(dirs) != 2 || dirs[0] == dirs[1] {
		t.Fatalf("directories %v, want one per execution", dirs)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s: still there after the execution (%v)", d, err)
		}
	}
}

func TestLogAfterTheTestCompletedPanics(t *testing.T) {
	// As in Go: a goroutine that logs after its test returned panics, with Go's message; one
	// that logs before, or is waited for, does not; one of a subtest that logs after the
	// subtest returned, while the parent runs, writes to the parent's log.
	tests := []struct {
		name string
		body func(t *engine.T)
		want string // the panic's message; "" for no bug
	}{
		{"log after the test", func(t *engine.T) {
			engine.Go(func() {
				engine.Gosched("l.go:1")
				t.Logf("late %d", 1)
			}, "l.go:2")
		}, "Log in goroutine after TestLate has completed: late 1"},
		{"log as a goroutine starts, after the test", func(t *engine.T) {
			engine.Go(func() {
				t.Logf("starting %d", 1) // its first act: its start is a step of its own
			}, "l.go:13")
		}, "Log in goroutine after TestLate has completed: starting 1"},
		{"log after a subtest", func(t *engine.T) {
			done := engine.MakeChan[int](0, "l.go:3")
			t.Run("sub", func(t *engine.T) {
				engine.Go(func() {
					engine.Recv(done, "l.go:4")
					t.Log("late")
				}, "l.go:5")
			})
			engine.Send(done, 1, "l.go:6")
			engine.Gosched("l.go:7")
			engine.Gosched("l.go:8")
		}, "Log in goroutine after TestLate/sub has completed: late"},
		{"log after a subtest while the parent runs", func(t *engine.T) {
			start := engine.MakeChan[int](0, "l.go:14")
			done := engine.MakeChan[int](0, "l.go:15")
			t.Run("sub", func(t *engine.T) {
				engine.Go(func() {
					engine.Recv(start, "l.go:16")
					t.Log("late")
					engine.Send(done, 1, "l.go:17")
				}, "l.go:18")
			})
			engine.Send(start, 1, "l.go:19")
			engine.Recv(done, "l.go:20")
		}, ""},
		{"log before the end", func(t *engine.T) {
			done := engine.MakeChan[int](0, "l.go:9")
			engine.Go(func() {
				t.Log("in time")
				engine.Send(done, 1, "l.go:10")
			}, "l.go:11")
			engine.Recv(done, "l.go:12")
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := engine.Explore(tt.body, engine.Config{Strategy: randomStrategy(2), Schedules: 50, Name: "TestLate", OnExecution: func(n int, r *engine.Result) {
				if tt.name == "log after a subtest while the parent runs" && r.Bug == nil && !slices.ContainsFunc(r.Logs, func(l string) bool { return strings.HasSuffix(l, ": late") }) {
					t.Errorf("execution %d: logs %q, want the subtest's goroutine's line in the parent's", n, r.Logs)
				}
			}})
			switch {
			case tt.want == "" && rep.First != nil:
				t.Fatalf("bug %v, want none", rep.First.Bug)
			case tt.want != "" && (rep.First == nil || rep.First.Bug.Kind != engine.Panic || rep.First.Bug.Message != tt.want):
				t.Fatalf("first bug %+v, want the panic %q", rep.First, tt.want)
			}
		})
	}
}
