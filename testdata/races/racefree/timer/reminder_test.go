package timer

import (
	"sync"
	"testing"
	"time"
)

// TestTimers delivers a message with time.AfterFunc and waits for a
// reminder in another goroutine.
func TestTimers(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(2)
	SendLater(time.Millisecond, "ops", "disk full", func(m *Message) {
		defer wg.Done()
		if m.To != "ops" || m.Body != "disk full" {
			t.Errorf("delivered %+v", *m)
		}
	})

	r := NewReminder()
	go func() {
		defer wg.Done()
		if got := r.Wait(); got != "stand up" {
			t.Errorf("Wait() = %q, want stand up", got)
		}
	}()
	r.Schedule(time.Millisecond, "stand up")
	wg.Wait()
}
