package deadline

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// TestSilentServer: the server reads the question and never answers; Ask times out after
// its deadline, three seconds natively.
func TestSilentServer(t *testing.T) {
	l, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.ReadAll(c) // until the client closes
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	_, err = Ask(c, "anyone?", 3*time.Second)
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("Ask: %v, want a timeout", err)
	}
	if d := time.Since(start); d < 3*time.Second {
		t.Errorf("timed out after %v, before the deadline", d)
	}
}

// TestPipeAnswer: over net.Pipe an answer comes before the deadline.
func TestPipeAnswer(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	go func() {
		defer b.Close()
		buf := make([]byte, 3)
		io.ReadFull(b, buf)
		b.Write([]byte("yes"))
	}()
	if r, err := Ask(a, "ok?", time.Second); r != "yes" || err != nil {
		t.Errorf("Ask: %q, %v", r, err)
	}
}
