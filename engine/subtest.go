package engine

import (
	"io"
	"os"
	"strings"
	"time"
)

// Run runs f as a subtest of t called name, as testing.T.Run does: on a new goroutine (a
// controlled one, so its operations are scheduled like any other), with t waiting until it
// returns. A subtest's Fatal, FailNow and Skip end the subtest only; its failure fails the
// execution. Run reports whether the subtest did not fail.
func (t *T) Run(name string, f func(t *T)) bool {
	sub := &T{e: t.e, name: t.name + "/" + strings.ReplaceAll(name, " ", "_"), parent: t}
	done := MakeChan[struct{}](0, "testing.T.Run")
	Go(func() {
		defer Close(done, "testing.T.Run")
		defer sub.runCleanups()
		f(sub)
	}, "testing.T.Run")
	Recv(done, "testing.T.Run")
	t.logs = append(t.logs, sub.logs...)
	if sub.failed {
		t.failed = true
	}
	return !sub.failed
}

// Parallel is testing.T.Parallel. The top-level test already runs alone (each schedule is
// one execution of its body), so there it does nothing. Parallel subtests, which Go runs
// after their parent's body returns, are not supported: the subtest fails with a message
// saying so.
func (t *T) Parallel() {
	if t.parent == nil {
		return
	}
	t.Fatalf("interleave: t.Parallel in subtest %s is not supported (subtests run one after another under interleave); remove the call or run the subtests without interleave", t.name)
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
