package constructs

import (
	"reflect"
	"sync"
	"testing"
)

// The test's *testing.T keeps its type: every way of reaching its methods compiles once
// rewritten, and means what it means natively.

type embedsT struct{ *testing.T }

type embedsTB struct{ testing.TB }

type helperOnly interface{ Helper() }

type extendedTB interface {
	testing.TB
	Parallel()
}

type logfer interface {
	Logf(format string, args ...any)
}

func genericName[T testing.TB](tb T) string {
	tb.Helper()
	return tb.Name()
}

func TestHandles(t *testing.T) {
	say("name %s", t.Name())
	say("embedded *testing.T: %s", embedsT{t}.Name())
	say("embedded testing.TB: %s", embedsTB{t}.Name())
	var h helperOnly = t
	h.Helper()
	var x extendedTB = t
	say("interface embedding testing.TB: %s", x.Name())
	parallel := x.Parallel // not called: a top-level Parallel changes the order of go test's output
	_ = parallel
	var l logfer = t
	l.Logf("through an interface of testing.TB's methods")
	say("generic: %s", genericName(t))
	name := t.Name
	say("method value: %s", name())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		say("goroutine of the test: %s", t.Name())
	}()
	wg.Wait()
	// A subtest's transcript is its own under go test -v; the method value of Run compiles
	// (cmd/interleave's TestTestingTStaysTestingT runs subtests).
	run := t.Run
	_ = run
	defer t.Log("deferred log")
	t.Cleanup(func() { say("cleanup") })
	say("temporary directory: %v", t.TempDir() != "")
	t.Setenv("INTERLEAVE_CONSTRUCTS_HANDLES", "1")
	say("failed %v, skipped %v, context %v", t.Failed(), t.Skipped(), t.Context().Err())
	say("by reflection: %s", reflect.ValueOf(t).MethodByName("Name").Call(nil)[0].String())
}
