package closedchan

import (
	"errors"
	"testing"
)

// TestCloseWhileSending closes the queue while a producer is still sending
// and checks that every accepted message is delivered.
func TestCloseWhileSending(t *testing.T) {
	q := NewQueue(4)
	accepted := make(chan int)
	go func() {
		n := 0
		for _, msg := range []string{"a", "b", "c", "d", "e"} {
			if err := q.Send(msg); err != nil {
				if !errors.Is(err, ErrClosed) {
					t.Errorf("Send(%q): %v", msg, err)
				}
				break
			}
			n++
		}
		accepted <- n
	}()

	if msg := <-q.Messages(); msg != "a" {
		t.Errorf("first message = %q, want %q", msg, "a")
	}
	q.Close()
	n := <-accepted

	received := 1
	for range q.Messages() {
		received++
	}
	if received != n {
		t.Errorf("received %d messages, want the %d accepted", received, n)
	}
}
