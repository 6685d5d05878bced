package engine_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"unsafe"

	"github.com/interleave-dev/interleave/engine"
)

// TestIOPipeLostWrite: a goroutine copies a pipe into a sink the test reads after closing the
// writer, without waiting for the copy to end: a schedule where the sink misses the bytes is
// found; waiting for the copier fixes it, and no schedule then fails.
func TestIOPipeLostWrite(t *testing.T) {
	body := func(wait bool) func(*engine.T) {
		return func(et *engine.T) {
			pr, pw := engine.IOPipe("w.go:1")
			sink := &pipeSink{}
			done := make(chan struct{})
			engine.Go(func() {
				io.Copy(sink, pr)
				engine.Close(done, "w.go:2")
			}, "w.go:3")
			if _, err := pw.Write([]byte("hello, ")); err != nil {
				et.Errorf("write: %v", err)
			}
			if _, err := io.WriteString(pw, "world"); err != nil {
				et.Errorf("write: %v", err)
			}
			pw.Close()
			if wait {
				engine.Recv(done, "w.go:4")
			}
			engine.Gosched("w.go:5")
			if got := sink.String(); got != "hello, world" {
				et.Errorf("sink = %q", got)
			}
			engine.Recv(done, "w.go:6")
		}
	}
	rep := spExplore(t, body(false), randomStrategy(3), 200)
	if rep.First == nil || rep.First.Bug.Kind != engine.Fail || !strings.Contains(rep.First.Bug.Message, "sink = ") {
		t.Fatalf("want the lost write found, got %+v", rep.First)
	}
	spNoBug(t, spExplore(t, body(true), randomStrategy(3), 200))
}

// pipeSink is an io.Writer whose writes are accesses to its bytes, as an instrumented
// sink's are: a scheduling point before each.
type pipeSink struct{ b []byte }

func (s *pipeSink) Write(p []byte) (int, error) {
	engine.Write(unsafe.Pointer(&s.b), "sink.go:1")
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *pipeSink) String() string {
	engine.Read(unsafe.Pointer(&s.b), "sink.go:2")
	return string(s.b)
}

// TestIOPipeSemantics: io.Pipe's partial reads and close errors under the engine.
func TestIOPipeSemantics(t *testing.T) {
	spNoBug(t, spExplore(t, func(et *engine.T) {
		pr, pw := engine.IOPipe("s.go:3")
		boom := errors.New("boom")
		engine.Go(func() { pw.Write([]byte("abcdef")); pw.CloseWithError(boom) }, "s.go:4")
		buf := make([]byte, 4)
		n, err := pr.Read(buf)
		if string(buf[:n]) != "abcd" || err != nil {
			et.Errorf("first read %q, %v", buf[:n], err)
		}
		got, err := io.ReadAll(pr)
		if string(got) != "ef" || err != boom {
			et.Errorf("ReadAll = %q, %v", got, err)
		}
		if _, err := pw.Write([]byte("x")); err != io.ErrClosedPipe {
			et.Errorf("write after close: %v", err)
		}
		pr2, pw2 := engine.IOPipe("s.go:5")
		pr2.Close()
		if _, err := pw2.Write([]byte("x")); err != io.ErrClosedPipe {
			et.Errorf("write to a closed reader: %v", err)
		}
		if _, err := pr2.Read(buf); err != io.ErrClosedPipe {
			et.Errorf("read of a closed reader: %v", err)
		}
	}, randomStrategy(9), 50))
}

// TestIOPipeDeadlock: a reader of a pipe nobody writes or closes is a deadlock, not a
// goroutine blocked outside the engine, at the program's line that called io.ReadAll (not
// the read inside io.ReadAll).
func TestIOPipeDeadlock(t *testing.T) {
	rep := spExplore(t, func(et *engine.T) {
		pr, _ := engine.IOPipe("k.go:1")
		io.ReadAll(pr)
	}, firstEnabled(), 1)
	if rep.First == nil || rep.First.Bug.Kind != engine.Deadlock || !strings.Contains(rep.First.Bug.Message, "net.read at ") ||
		!strings.Contains(rep.First.Bug.Message, "vnet_test.go:") {
		t.Fatalf("want a deadlock at the read in vnet_test.go, got %+v", rep.First)
	}
}

// TestIOPipeOutsideAnExecution: outside an execution IOPipe is a real pipe.
func TestIOPipeOutsideAnExecution(t *testing.T) {
	pr, pw := engine.IOPipe("o.go:1")
	go func() { pw.Write([]byte("real")); pw.Close() }()
	if got, err := io.ReadAll(pr); string(got) != "real" || err != nil {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
}
