// Package tally counts events. It is the bundled example of a data race that no assertion
// sees: two goroutines add to a plain int, and the test only checks that the total is
// positive. interleave stress -race reports it through Go's race detector.
package tally

// Tally is a count of events.
type Tally struct{ n int }

// Add counts one event. It is not safe for concurrent use, and Merge calls it concurrently.
func (t *Tally) Add() { t.n++ }

// Merge counts the events of two sources at once.
func Merge(a, b int) int {
	var t Tally
	done := make(chan bool)
	for _, n := range []int{a, b} {
		go func() {
			for range n {
				t.Add()
			}
			done <- true
		}()
	}
	<-done
	<-done
	return t.n
}
