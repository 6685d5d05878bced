package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The test's *testing.T stays a *testing.T (issue 46): every way it reaches other code builds,
// and a bug found through it is found. Each test of testingTModule loses an update between two
// goroutines and reports it through t in one of those ways; the module example.com/check,
// replaced by a directory of the fixture, is not instrumented.
const testingTModule = `package m

import (
	"sync"
	"testing"

	"example.com/check"
	"example.com/m/suite"
)

// lostUpdate returns the count of two goroutines that each add one without synchronization.
func lostUpdate() int {
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := n
			n = v + 1
		}()
	}
	wg.Wait()
	return n
}

// counterSuite's test methods are dispatched by reflection (suite.Run), as an RPC framework's
// shared helper does with m.Interface().(func(*testing.T)).
type counterSuite struct{}

func (counterSuite) TestCount(t *testing.T) {
	if n := lostUpdate(); n != 2 {
		t.Fatalf("reflect: n = %d, want 2", n)
	}
}

func TestReflectDispatch(t *testing.T) {
	suite.Run(t, counterSuite{})
}

// check.Equal is a function of a module that was not instrumented, taking *testing.T: its
// t.Fatalf reaches the real testing package.
func TestUninstrumentedFatal(t *testing.T) {
	check.Equal(t, lostUpdate(), 2)
}

// check.Expect calls t.Errorf: the real test is marked failed, and the goroutine goes on.
func TestUninstrumentedError(t *testing.T) {
	check.Expect(t, lostUpdate(), 2)
}

// prefixTB is a testing.TB of the test's own that overrides Fatalf.
type prefixTB struct {
	testing.TB
	prefix string
}

func (p prefixTB) Fatalf(format string, args ...any) {
	p.TB.Helper()
	p.TB.Fatalf(p.prefix+format, args...)
}

func assertCount(tb testing.TB, got, want int) {
	tb.Helper()
	if got != want {
		tb.Fatalf("count %d, want %d", got, want)
	}
}

func TestCustomTB(t *testing.T) {
	assertCount(prefixTB{t, "wrapped: "}, lostUpdate(), 2)
}

// A method value of t stored and called from another goroutine.
func TestMethodValue(t *testing.T) {
	fatalf := t.Fatalf
	done := make(chan struct{})
	go func() {
		defer close(done)
		if n := lostUpdate(); n != 2 {
			fatalf("method value: n = %d, want 2", n)
		}
	}()
	<-done
}

// Subtests, with the subtest's t given to the module that was not instrumented.
func TestSubtestUninstrumented(t *testing.T) {
	t.Run("sub", func(t *testing.T) {
		check.Equal(t, lostUpdate(), 2)
	})
}

// A test that passes: t's methods keep their meaning per schedule.
func TestNoBug(t *testing.T) {
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()
	check.Equal(t, n, 2)
	assertCount(prefixTB{t, "wrapped: "}, n, 2)
	t.Run("sub", func(t *testing.T) {
		if t.Name() != "TestNoBug/sub" {
			t.Errorf("subtest name %q", t.Name())
		}
	})
}
`

const testingTSuite = `package suite

import (
	"reflect"
	"strings"
	"testing"
)

// Run runs every method of s whose name starts with Test as a subtest, by reflection.
func Run(t *testing.T, s any) {
	v := reflect.ValueOf(s)
	for i := 0; i < v.NumMethod(); i++ {
		m := v.Type().Method(i)
		if !strings.HasPrefix(m.Name, "Test") {
			continue
		}
		f, ok := v.Method(i).Interface().(func(*testing.T))
		if !ok {
			t.Fatalf("%s is not a test method", m.Name)
		}
		t.Run(m.Name, f)
	}
}
`

const testingTCheck = `package check

import "testing"

// Equal stops the test when got is not want.
func Equal(t *testing.T, got, want int) {
	t.Helper()
	if got != want {
		t.Fatalf("check: got %d, want %d", got, want)
	}
}

// Expect marks the test failed when got is not want.
func Expect(t *testing.T, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("check: got %d, want %d", got, want)
	}
}
`

// writeTestingTModule writes testingTModule with its helper package and the module
// example.com/check it requires, replaced by its directory.
func writeTestingTModule(t *testing.T) string {
	t.Helper()
	dir := writeModule(t, map[string]string{
		"m_test.go":      testingTModule,
		"suite/suite.go": testingTSuite,
		"check/check.go": testingTCheck,
		"check/go.mod":   "module example.com/check\n\ngo 1.22\n",
	})
	gomod := "module example.com/m\n\ngo 1.22\n\nrequire example.com/check v0.0.0\n\nreplace example.com/check => ./check\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Every way the test's t reaches other code builds, and the lost update is found through it.
func TestTestingTStaysTestingT(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := writeTestingTModule(t)
	code, out, errOut := interleaveIn(t, dir, nil, "test", "-json", "-minimize", "0", ".")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, tc := range []struct{ test, message string }{
		{"TestReflectDispatch", "reflect: n = 1, want 2"},
		{"TestUninstrumentedFatal", "t.FailNow (t.Fatal, t.Fatalf) of the real *testing.T, called by example.com/check.Equal"},
		{"TestUninstrumentedError", "the real *testing.T was marked failed (t.Error, t.Errorf or t.Fail) by code that was not instrumented"},
		{"TestCustomTB", "wrapped: count 1, want 2"},
		{"TestMethodValue", "method value: n = 1, want 2"},
		{"TestSubtestUninstrumented", "called by example.com/check.Equal"},
	} {
		e := finalEvent(t, out, tc.test)
		if e.Action != "fail" || e.Bug == nil || e.Bug.Kind != "fail" || !strings.Contains(e.Bug.Message, tc.message) {
			t.Errorf("%s: %s, bug %+v: want the fail %q", tc.test, e.Action, e.Bug, tc.message)
		}
	}
	if e := finalEvent(t, out, "TestNoBug"); e.Action != "pass" {
		t.Errorf("TestNoBug: %s, bug %+v: want a pass", e.Action, e.Bug)
	}
}
