package rlock

import "testing"

// TestLookupDuringPut looks a key up while another goroutine updates it
// and checks that the lookup sees either the old or the new value.
func TestLookupDuringPut(t *testing.T) {
	c := NewCache()
	c.Put("lang", "go")

	done := make(chan struct{})
	go func() {
		defer close(done)
		c.Put("lang", "golang")
	}()
	got := c.Lookup("lang", "unknown")
	<-done

	if got != "go" && got != "golang" {
		t.Errorf("Lookup = %q, want %q or %q", got, "go", "golang")
	}
	if got := c.Lookup("lang", "unknown"); got != "golang" {
		t.Errorf("Lookup after Put = %q, want %q", got, "golang")
	}
}
