package engine

import (
	"io"
	"os"
	"strings"
	"time"
)

// Run runs f as a subtest of t called name, as testing.T.Run does: on a new goroutine (a
// controlled one, so its operations are scheduled like any other), with t waiting until it
// returns or calls Parallel. A subtest's Fatal, FailNow and Skip end the subtest only; its
// failure fails the execution. Run reports whether the subtest did not fail (or had not failed
// when it called Parallel).
func (t *T) Run(name string, f func(t *T)) bool {
	sub := &T{e: t.e, name: t.name + "/" + strings.ReplaceAll(name, " ", "_"), parent: t, draw: t.draw, handle: t.handle}
	sub.paused = MakeChan[struct{}](0, "testing.T.Run")
	Go(func() {
		sub.enter()
		defer sub.finish()
		f(sub)
	}, "testing.T.Run")
	Recv(sub.paused, "testing.T.Run")
	if sub.isParallel {
		t.parallelSubs = append(t.parallelSubs, sub) // adopted when it is over (finish)
	} else {
		t.adopt(sub)
	}
	return !sub.failed
}

// Parallel is testing.T.Parallel. The top-level test already runs alone (each schedule is
// one execution of its body), so there it does nothing. A subtest that calls it is paused, its
// Run returns, and it goes on when its parent's function has returned, concurrently with its
// parent's other parallel subtests, as Go runs them; the parent is over when they all are.
// The interleavings of parallel subtests are explored like those of any goroutines. Go's
// -parallel limit does not apply: all of a parent's parallel subtests run at once.
func (t *T) Parallel() {
	if t.parent == nil {
		t.calledParallel = true
		return
	}
	if t.isParallel {
		panic("testing: t.Parallel called multiple times")
	}
	t.isParallel = true
	t.over = MakeChan[struct{}](0, "testing.T.Parallel")
	p := t.parent
	if p.released == nil {
		p.released = MakeChan[struct{}](0, "testing.T.Parallel")
	}
	Close(t.paused, "testing.T.Parallel")
	Recv(p.released, "testing.T.Parallel")
}

// finish ends a test once its function has returned (or stopped with Fatal, FailNow or
// Skip), as testing does: it releases the test's parallel subtests and waits for them, runs
// its Cleanup functions, and then lets its parent go on.
func (t *T) finish() {
	if t.released != nil {
		Close(t.released, "testing.T.Run")
	}
	for _, sub := range t.parallelSubs {
		Recv(sub.over, "testing.T.Run")
		t.adopt(sub)
	}
	t.runCleanups()
	if t.e == nil {
		t.mu.Lock()
		t.completed = true
		t.mu.Unlock()
	} else {
		t.completed = true
	}
	switch {
	case t.isParallel:
		Close(t.over, "testing.T.Run")
	case t.paused != nil:
		Close(t.paused, "testing.T.Run")
	}
}

// adopt takes a finished subtest's log lines and failure into t.
func (t *T) adopt(sub *T) {
	if t.e == nil {
		t.mu.Lock()
		defer t.mu.Unlock()
		sub.mu.Lock()
		defer sub.mu.Unlock()
		if t.failure == nil {
			t.failure = sub.failure
		}
	}
	t.logs = append(t.logs, sub.logs...)
	if sub.failed {
		t.failed = true
	}
}

// Setenv sets an environment variable for the rest of the execution, as testing.T.Setenv.
func (t *T) Setenv(key, value string) {
	prev, had := os.LookupEnv(key)
	if err := os.Setenv(key, value); err != nil {
		t.Fatalf("Setenv: %v", err)
	}
	t.Cleanup(func() {
		if had {
			os.Setenv(key, prev)
		} else {
			os.Unsetenv(key)
		}
	})
}

// Chdir changes the working directory for the rest of the execution, as testing.T.Chdir.
func (t *T) Chdir(dir string) {
	prev, err := os.Getwd()
	if err != nil {
		t.Fatalf("Chdir: %v", err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatalf("Chdir: %v", err)
	}
	t.Cleanup(func() { os.Chdir(prev) })
}

// Deadline reports no deadline: an execution runs on the virtual clock.
func (t *T) Deadline() (deadline time.Time, ok bool) { return time.Time{}, false }

// Attr records a key-value attribute as a log line, as testing.T.Attr prints one.
func (t *T) Attr(key, value string) { t.log("=== ATTR " + key + " " + value) }

// Output returns a writer whose lines are logged like Log's.
func (t *T) Output() io.Writer { return logWriter{t} }

type logWriter struct{ t *T }

func (w logWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSuffix(string(p), "\n"), "\n") {
		w.t.logs = append(w.t.logs, line)
	}
	return len(p), nil
}
