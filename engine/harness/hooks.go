package harness

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/interleave-dev/interleave/engine"
	"github.com/interleave-dev/interleave/engine/random"
)

// The test's *testing.T under control. The instrumenter leaves every type as written: the
// test body receives its test's own *testing.T (Body), and what the instrumented code calls on
// it goes to the execution's engine.T, found by the handle and the calling goroutine (resolve):
//
//	t.Fatalf(format, x)    becomes  __ilh.OfT(t).Fatalf(format, x)
//	tb.Log(x)              becomes  __ilh.OfTB(tb).Log(x)          (tb a testing.TB)
//	h.Errorf(format, x)    becomes  __ilh.Of(h).Errorf(format, x)  (h an interface whose methods are testing.TB's)
//	t.Run(name, f)         becomes  __ilh.Run(t, name, f)
//
// OfT, OfTB and Of return the engine's T when the value is the *testing.T of a test under
// control, and the value itself otherwise (a *testing.B, a TB of the program's own, a test not
// under control): the method is then called by the program's own frame either way, so that
// the positions of log lines and failures are the caller's, and a method value (f :=
// t.Fatalf) is bound to the execution it was made in. Everything else the program does with
// t — pass it to a module that was not instrumented, dispatch test methods by reflection,
// wrap it in its own testing.TB — sees a *testing.T; calls that reach the real testing
// package are seen by the engine (engine/external.go).

// bound maps the *testing.T of each test under control to the engine's T of its execution in
// progress (the last one begun): the test of a goroutine that belongs to no test (one an
// uninstrumented module started) that calls back into the instrumented code.
var bound sync.Map

func init() {
	// random.Draw(t, …) is called with the test's own t, in code the instrumenter does not
	// rewrite: its values come from the execution's source through the engine's T.
	random.ResolveHandles(func(t random.TB) random.TB {
		if et := resolve(t); et != nil {
			return et
		}
		return t
	})
}

// Body returns the body the engine runs once per schedule for the test t whose function is
// test: it binds t to the execution's T and calls test with t.
func Body(t *testing.T, test func(*testing.T)) func(*engine.T) {
	return func(et *engine.T) {
		et.Bind(t)
		bound.Store(t, et)
		et.External(func() (failed, skipped bool) { return t.Failed(), t.Skipped() })
		test(t)
	}
}

// resolve returns the engine's T that h, when it is a *testing.T under control, stands for in
// the calling goroutine: its test or subtest (engine.CurrentT), or the test's when the
// goroutine belongs to none; nil when h is anything else.
func resolve(h any) *engine.T {
	t, ok := h.(*testing.T)
	if !ok || t == nil {
		return nil
	}
	if cur := engine.CurrentT(); cur != nil && cur.Handle() == any(t) {
		return cur
	}
	if v, ok := bound.Load(t); ok {
		return v.(*engine.T)
	}
	return nil
}

// TB is the methods of testing.TB, without its private one: what OfTB returns.
type TB interface {
	ArtifactDir() string
	Attr(key, value string)
	Chdir(dir string)
	Cleanup(f func())
	Context() context.Context
	Error(args ...any)
	Errorf(format string, args ...any)
	Fail()
	FailNow()
	Failed() bool
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Helper()
	Log(args ...any)
	Logf(format string, args ...any)
	Name() string
	Output() io.Writer
	Setenv(key, value string)
	Skip(args ...any)
	SkipNow()
	Skipf(format string, args ...any)
	Skipped() bool
	TempDir() string
}

// T is the methods of *testing.T that OfT returns, Run aside (see Run).
type T interface {
	TB
	Parallel()
	Deadline() (deadline time.Time, ok bool)
}

var (
	_ T = (*engine.T)(nil)
	_ T = (*testing.T)(nil)
)

// OfT is what the instrumented code calls a method of t on: the engine's T of the execution
// when t is the *testing.T of a test under control, t itself otherwise.
func OfT(t *testing.T) T {
	if et := resolve(t); et != nil {
		return et
	}
	return t
}

// OfTB is OfT for a testing.TB.
func OfTB(tb testing.TB) TB {
	if et := resolve(tb); et != nil {
		return et
	}
	return tb
}

// Of is OfT for a value of an interface type I whose methods are all testing.TB's (an
// assertion library's TestingT, a helper's interface{ Helper() }): the engine's T as an I when
// x holds the *testing.T of a test under control, x itself otherwise.
func Of[I any](x I) I {
	if et := resolve(any(x)); et != nil {
		if h, ok := any(et).(I); ok {
			return h
		}
	}
	return x
}

// Run is t.Run(name, f): a subtest of the execution's test, explored like any goroutine
// (engine.T.Run), whose function receives t, when t is under control; t.Run otherwise.
func Run(t *testing.T, name string, f func(*testing.T)) bool {
	if et := resolve(t); et != nil {
		return et.Run(name, func(*engine.T) { f(t) })
	}
	return t.Run(name, f)
}

// RunOf is the method value t.Run.
func RunOf(t *testing.T) func(string, func(*testing.T)) bool {
	return func(name string, f func(*testing.T)) bool { return Run(t, name, f) }
}

// ParallelOf is the method value x.Parallel of an interface value x (one that embeds
// testing.TB and adds Parallel, say): the engine's T's when x holds the *testing.T of a test
// under control.
func ParallelOf(x interface{ Parallel() }) func() {
	if et := resolve(x); et != nil {
		return et.Parallel
	}
	return x.Parallel
}

// DeadlineOf is ParallelOf for Deadline.
func DeadlineOf(x interface {
	Deadline() (deadline time.Time, ok bool)
}) func() (time.Time, bool) {
	if et := resolve(x); et != nil {
		return et.Deadline
	}
	return x.Deadline
}
