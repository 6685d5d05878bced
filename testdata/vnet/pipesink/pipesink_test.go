package pipesink

import "testing"

// TestClose reads the sink right after Close: the last line may not be there yet.
func TestClose(t *testing.T) {
	var s Sink
	l := New(&s)
	l.Printf("one")
	l.Printf("two")
	l.Close()
	if len(s.Lines) != 2 {
		t.Errorf("sink has %d lines after Close, want 2: %q", len(s.Lines), s.Lines)
	}
	<-l.done
}

// TestCloseAndWait: waiting for the copier keeps every line.
func TestCloseAndWait(t *testing.T) {
	var s Sink
	l := New(&s)
	l.Printf("one")
	l.Printf("two")
	l.CloseAndWait()
	if len(s.Lines) != 2 {
		t.Errorf("sink has %d lines, want 2: %q", len(s.Lines), s.Lines)
	}
}
