package context

import (
	"sync"
	"testing"
)

// TestStop stops two waiting goroutines from a third.
func TestStop(t *testing.T) {
	s := NewStopper()
	var wg sync.WaitGroup
	wg.Add(3)
	for i := 0; i < 2; i++ {
		go func() {
			defer wg.Done()
			if got := s.Wait(); got != "shutdown" {
				t.Errorf("Wait() = %q, want shutdown", got)
			}
		}()
	}
	go func() {
		defer wg.Done()
		s.Stop("shutdown")
	}()
	wg.Wait()
}
