package testinglog

import "testing"

func TestLogsAfterReturn(t *testing.T) {
	s := Start(t.Logf)
	s.CloseNoWait()
}

func TestWaitsForServer(t *testing.T) {
	s := Start(t.Logf)
	s.Close()
}

// TestLogsAsItStarts: the worker's log is its first act; Go may run it after the test
// returned (issue 47: found since a goroutine that does something observable before its first
// scheduling point starts in a step of its own).
func TestLogsAsItStarts(t *testing.T) {
	Announce(t.Logf)
}

// TestSubtestServerClosedByParent: the server started with the subtest's Logf logs after the
// subtest returned, while the parent, which waits for it, still runs: Go writes the line to
// the parent's output, no panic.
func TestSubtestServerClosedByParent(t *testing.T) {
	var s *Server
	t.Run("start", func(t *testing.T) { s = Start(t.Logf) })
	s.Close()
}
