package engine

import (
	"fmt"
	"runtime"
	"strings"
)

// The test's own handle. An instrumented test body receives the real *testing.T of its test
// (package harness): the instrumented code's calls of its methods reach the execution's T
// through the harness, which finds it by the handle (Bind) and the calling goroutine's test
// (CurrentT). Calls the instrumenter did not rewrite — from a module that was not
// instrumented, through reflection, through a method promoted into a type of such a module —
// reach the real testing package: a FailNow there (Fatal, Fatalf) marks the real test failed
// and exits the calling goroutine with runtime.Goexit, a SkipNow (Skip, Skipf) marks it
// skipped, and an Error or Fail marks it failed. The engine sees each of them in the execution
// it happens in: the Goexit by the testing package's frame on the goroutine's stack as it
// exits, the marks by a probe of the real test's state (External) as each goroutine ends and
// as the execution ends. The real test's marks stay: once it failed, a later execution's Error
// from code that was not instrumented is not seen again (its FailNow still is).

// Bind makes h, the test's own handle (its real *testing.T), t's: its subtests have it too.
func (t *T) Bind(h any) { t.handle = h }

// Handle is the handle bound to t or to the test it is a subtest of (Bind), or nil.
func (t *T) Handle() any { return t.handle }

// External registers probe, which reports whether the real test behind t's handle is marked
// failed and skipped; what it reports now is where the execution starts from, and a change
// seen later is the execution's failure or skip (see the comment above).
func (t *T) External(probe func() (failed, skipped bool)) {
	t.external = probe
	t.extFailed, t.extSkipped = probe()
}

// CurrentT returns the test of the calling goroutine: the test or subtest whose function it
// runs or that started it, transitively, in the execution in progress or in stress mode; nil
// for a goroutine of neither (one an uninstrumented module started).
func CurrentT() *T {
	if e := active.Load(); e != nil {
		if g := e.caller(); g != nil {
			return g.test
		}
		return nil
	}
	if s := stressing.Load(); s != nil {
		s.mu.Lock()
		g := s.byGP[getg()]
		s.mu.Unlock()
		if g != nil {
			return g.test
		}
	}
	return nil
}

// enter makes t the test of the calling goroutine (CurrentT): a subtest's goroutine, the root
// goroutine of a stress iteration.
func (t *T) enter() {
	if e := active.Load(); e != nil {
		if g := e.caller(); g != nil {
			g.test = t
		}
		return
	}
	if s := stressing.Load(); s != nil {
		s.mu.Lock()
		if g := s.byGP[getg()]; g != nil {
			g.test = t
		}
		s.mu.Unlock()
	}
}

// root is the top-level test of t.
func (t *T) root() *T {
	for t.parent != nil {
		t = t.parent
	}
	return t
}

// testingExit, called while a goroutine unwinds by runtime.Goexit or a panic, returns the
// method of package testing that called Goexit ("FailNow" or "SkipNow"), with the frame that
// called the testing package: the code that was not instrumented. It returns "" for a Goexit
// of anything else (the engine's own T, the program's runtime.Goexit) or a panic.
func testingExit() (method string, caller Frame) {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	seenGoexit := false
	for {
		f, more := frames.Next()
		switch {
		case f.Function == "runtime.Goexit":
			seenGoexit = true
		case !seenGoexit:
		case strings.HasPrefix(f.Function, "testing."):
			for _, m := range [...]string{"FailNow", "SkipNow"} {
				if strings.HasSuffix(f.Function, ")."+m) {
					method = m
				}
			}
		case method != "":
			return method, Frame{Func: f.Function, File: f.File, Line: f.Line}
		default:
			return "", Frame{}
		}
		if !more {
			return method, Frame{}
		}
	}
}

// checkExternal turns what happened to the real test behind the test of g (or of the
// execution, g nil) since the last look into the execution's failure or skip: a FailNow or
// SkipNow of the testing package that made g exit, and the probe's marks (External).
func (e *Exec) checkExternal(g *goroutine, root *T) {
	t := root
	if g != nil && g.test != nil {
		t = g.test
	}
	if t == nil {
		return
	}
	root = t.root()
	if g != nil {
		switch g.end.testing {
		case "FailNow":
			root.extFailed = true
			pos := ""
			if f := g.end.testingCaller; f.File != "" {
				pos = f.Pos()
			}
			t.externalFail(g, pos, fmt.Sprintf("t.FailNow (t.Fatal, t.Fatalf) of the real *testing.T, called by %s, code that was not instrumented: its message is in the test's own log (interleave test -v shows it)", funcOrUnknown(g.end.testingCaller)))
		case "SkipNow":
			root.extSkipped = true
			t.skipped = true
		}
	}
	if root.external == nil {
		return
	}
	failed, skipped := root.external()
	if failed && !root.extFailed {
		root.extFailed = true
		t.externalFail(g, "", "the real *testing.T was marked failed (t.Error, t.Errorf or t.Fail) by code that was not instrumented: its message is in the test's own log (interleave test -v shows it)")
	}
	if skipped && !root.extSkipped {
		root.extSkipped = true
		t.skipped = true
	}
}

// externalFail marks t failed with msg, at pos when known, as the execution's bug.
func (t *T) externalFail(g *goroutine, pos, msg string) {
	t.failed = true
	e := t.e
	if e == nil || e.aborting {
		return
	}
	bug := &Bug{Kind: Fail, Message: msg, Pos: pos}
	if g != nil {
		bug.stack = g.end.stack
	}
	e.recordBug(bug, g)
}

func funcOrUnknown(f Frame) string {
	if f.Func == "" {
		return "a function"
	}
	if f.File != "" {
		return fmt.Sprintf("%s at %s", f.Func, f.Pos())
	}
	return f.Func
}
